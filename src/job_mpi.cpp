// The MPI job (job.hpp): Open MPI's ranks, the messages each sends rank 0,
// and rank 0's sink, which writes every rank's batches in frame order.
//
// Errors in MPI calls end the job (MPI_ERRORS_ARE_FATAL, MPI's default on
// MPI_COMM_WORLD), so their results are not checked one by one: a broken
// communicator leaves nothing to clean up with, and rank 0's unfinished
// output is then under its temporary name, never the output's.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <type_traits>

#include "job.hpp"

namespace kiln::cli {

namespace {

// One tag per kind of message; job.hpp says in which order a rank sends them
// (part_tag: a leading part of a long message, see send).
enum Tag : int { batch_tag = 1, end_tag, tracks_tag, status_tag, control_tag, part_tag };

// A message's bytes: numbers and strings appended in order...
struct Packer {
    std::vector<std::byte> bytes;
    void append(const void* p, size_t n) {
        const auto* b = static_cast<const std::byte*>(p);
        bytes.insert(bytes.end(), b, b + n);
    }
    template <class T>
    void put(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        append(&v, sizeof v);
    }
    void put(const std::string& s) {
        put(uint64_t(s.size()));
        append(s.data(), s.size());
    }
};

// ...and read back in the same order, from rank `from`.
class Unpacker {
public:
    Unpacker(const std::vector<std::byte>& bytes, int from) : bytes_(bytes), from_(from) {}
    template <class T>
    T get() {
        T v;
        std::memcpy(&v, take(sizeof v), sizeof v);
        return v;
    }
    std::string text() {
        const auto n = get<uint64_t>();
        const std::byte* p = take(n);
        return std::string(reinterpret_cast<const char*>(p), n);
    }
    const std::byte* take(size_t n) {
        if (bytes_.size() - at_ < n)
            throw Error("rank " + std::to_string(from_) + " sent a message shorter than its kind (internal error)");
        at_ += n;
        return bytes_.data() + at_ - n;
    }

private:
    const std::vector<std::byte>& bytes_;
    int from_;
    size_t at_ = 0;
};

struct Message {
    int tag = 0;
    std::vector<std::byte> bytes;
};

// The most bytes one MPI message carries (MPI counts in int): a longer
// message travels as parts of part_tag, then its last part with its own
// tag. KILN_MPI_PART_BYTES sets smaller parts (the tests' way to split).
size_t part_bytes() {
    static const size_t bytes = [] {
        const char* v = std::getenv("KILN_MPI_PART_BYTES");
        const long long n = v ? std::atoll(v) : 0;
        return n > 0 && n < (1ll << 30) ? size_t(n) : size_t(1) << 30;
    }();
    return bytes;
}

// The next message from `source` (of `tag`, or of any), whatever its size:
// its parts, in the order sent (MPI keeps one sender's order), joined.
Message receive(int source, int tag = MPI_ANY_TAG) {
    Message m;
    for (;;) {
        MPI_Message handle;
        MPI_Status status;
        MPI_Mprobe(source, tag, MPI_COMM_WORLD, &handle, &status);
        int n = 0;
        MPI_Get_count(&status, MPI_BYTE, &n);
        const size_t at = m.bytes.size();
        m.bytes.resize(at + size_t(n));
        MPI_Mrecv(m.bytes.data() + at, n, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
        if (status.MPI_TAG != part_tag) {
            m.tag = status.MPI_TAG;
            return m;
        }
        tag = MPI_ANY_TAG;  // the rest of this message, whatever its kind
    }
}

// `synchronous`: returns once the receiver has begun taking it (MPI_Ssend),
// where a plain send may return at once with the message buffered (Open
// MPI buffers small ones at the receiver).
void send(int dest, Tag tag, const Packer& p, bool synchronous = false) {
    const size_t limit = part_bytes();
    for (size_t at = 0;;) {
        const size_t n = std::min(limit, p.bytes.size() - at);
        const bool last = at + n == p.bytes.size();
        (synchronous ? MPI_Ssend : MPI_Send)(p.bytes.data() + at, int(n), MPI_BYTE, dest, last ? tag : part_tag,
                                             MPI_COMM_WORLD);
        if (last) return;
        at += n;
    }
}

class MpiJob;

// Rank 0's sink: its own batches come through write(), the others' are
// taken from their ranks in between, in frame order (batch b from rank
// b mod N, as StackOptions::shards splits the stack). A rank that ends its
// share early (stopped) cuts the output before its first missing batch;
// what comes after is still taken, so that no rank waits on a send, and
// dropped.
class RootSink final : public JobSink {
public:
    RootSink(MpiJob& job, io::ProfileSink& out, size_t batch) : job_(job), out_(out), batch_(batch) {}
    void begin(const io::ProfileLayout& layout) override;
    void write(size_t first, size_t n, std::span<const float* const> fields) override;
    void finish(size_t frames) override;
    size_t written() const override { return written_; }
    bool cut() const override { return cut_; }

private:
    void take_until(size_t batch);
    void put(size_t first, size_t n, std::span<const float* const> fields);

    MpiJob& job_;
    io::ProfileSink& out_;
    size_t batch_, batches_ = 0, values_ = 0, fields_ = 0;
    size_t next_ = 0;  // the next batch of the stack to write
    size_t written_ = 0;
    bool cut_ = false;
};

// Another rank's sink: each batch to rank 0.
class RankSink final : public JobSink {
public:
    explicit RankSink(MpiJob& job) : job_(job) {}
    void begin(const io::ProfileLayout& layout) override {
        values_ = layout.frame_values();
        fields_ = layout.fields.size();
    }
    void write(size_t first, size_t n, std::span<const float* const> fields) override;
    void finish(size_t) override {}  // the share's end goes with integrated(), its summary known
    size_t written() const override { return written_; }
    bool cut() const override { return false; }

private:
    MpiJob& job_;
    size_t values_ = 0, fields_ = 0, written_ = 0;
};

class MpiJob final : public Job {
public:
    MpiJob(int& argc, char**& argv) {
        // Only the thread that called MPI_Init talks (integrate_stack hands
        // the sink every batch on its calling thread): FUNNELED is enough.
        int provided = MPI_THREAD_SINGLE;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
        MPI_Comm local;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
        MPI_Comm_rank(local, &local_rank_);
        MPI_Comm_size(local, &local_size_);
        MPI_Comm_free(&local);
        if (provided < MPI_THREAD_FUNNELED) {
            MPI_Finalize();
            ended_ = true;
            throw JobRefused("this MPI gives no MPI_THREAD_FUNNELED support (kiln's readers and devices run "
                             "threads beside the one that talks); build kiln with Open MPI",
                             rank_ == 0);
        }
        reported_.assign(size_t(size_), false);
        ended_share_.assign(size_t(size_), false);
        shares_.assign(size_t(size_), StackSummary{});
    }
    ~MpiJob() override {
        // end() finalises; only a path that skipped it (an error of kiln's
        // own) gets here with MPI running, and then ends the job at once.
        if (!ended_) MPI_Abort(MPI_COMM_WORLD, 1);
    }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int local_rank() const override { return local_rank_; }
    int local_size() const override { return local_size_; }

    std::unique_ptr<JobSink> sink(io::ProfileSink* out, size_t batch) override {
        if (root()) return std::make_unique<RootSink>(*this, *out, batch);
        return std::make_unique<RankSink>(*this);
    }

    void integrated(StackSummary& summary) override {
        if (!root()) {
            Packer p;
            p.put(uint64_t(summary.frames));
            p.put(uint64_t(summary.devices));
            p.put(uint64_t(summary.readers));
            for (const auto& [name, t] : stage_fields(summary.stages)) p.put(*t);
            send(0, end_tag, p);
            return;
        }
        for (size_t k = 1; k < size_t(size_); ++k) {
            StackSummary& theirs = shares_[k];
            summary.devices += theirs.devices;
            summary.readers += theirs.readers;
            // Wall times before the pipeline: the slowest rank's; the rest summed.
            const double index = std::max(summary.stages.index, theirs.stages.index);
            const double setup = std::max(summary.stages.setup, theirs.stages.setup);
            const auto mine = stage_fields(summary.stages), other = stage_fields(theirs.stages);
            for (size_t j = 0; j < mine.size(); ++j) *mine[j].second += *other[j].second;
            summary.stages.index = index;
            summary.stages.setup = setup;
        }
    }

    std::vector<TraceTrack> gather_tracks(std::vector<TraceTrack> mine) override {
        if (!root()) {
            Packer p;
            p.put(uint64_t(mine.size()));
            for (const TraceTrack& t : mine) {
                p.put(int32_t(t.pid));
                p.put(int32_t(t.tid));
                p.put(t.process);
                p.put(t.thread);
                p.put(uint64_t(t.events.size()));
                for (const TraceEvent& e : t.events) {
                    p.put(e.name);
                    p.put(e.start_us);
                    p.put(e.duration_us);
                    p.put(e.submission);
                }
            }
            send(0, tracks_tag, p);
            return {};
        }
        for (int k = 1; k < size_; ++k) {
            const Message m = expect(k, {tracks_tag}, "its GPU profile");
            Unpacker u(m.bytes, k);
            for (auto n = u.get<uint64_t>(); n > 0; --n) {
                TraceTrack t;
                t.pid = u.get<int32_t>();
                t.tid = u.get<int32_t>();
                t.process = u.text();
                t.thread = u.text();
                for (auto e = u.get<uint64_t>(); e > 0; --e) {
                    TraceEvent ev;
                    ev.name = u.text();
                    ev.start_us = u.get<double>();
                    ev.duration_us = u.get<double>();
                    ev.submission = u.get<uint64_t>();
                    t.events.push_back(std::move(ev));
                }
                mine.push_back(std::move(t));
            }
        }
        return mine;
    }

    int end(int code, const std::string& message) override {
        int job_code = code;
        if (!root()) {
            Packer p;
            p.put(int32_t(code));
            p.put(message);
            send(0, status_tag, p);
            if (!control_) take_control();
            job_code = 0;  // rank 0's status is the job's
        } else {
            Packer p;
            p.put(int32_t(code));
            for (int k = 1; k < size_; ++k) send(k, control_tag, p);
            // Every rank's last message is its status: what came before it
            // (batches of a job that failed) is dropped.
            for (int k = 1; k < size_; ++k) {
                while (!reported_[size_t(k)]) {
                    const Message m = receive(k);
                    if (m.tag != status_tag) continue;
                    reported_[size_t(k)] = true;
                    Unpacker u(m.bytes, k);
                    const int status = u.get<int32_t>();
                    const std::string said = u.text();
                    if (job_code == 0 && status != 0) {
                        std::cerr << "kiln: " << RankError(k, status, said).what() << "\n";
                        job_code = status;
                    }
                }
            }
        }
        MPI_Finalize();
        ended_ = true;
        return job_code;
    }

    // Rank 0: rank k's next message, which must be of one of `tags` (`what`
    // names it); its status instead says it failed (RankError).
    Message expect(int k, std::initializer_list<int> tags, const std::string& what) {
        Message m = receive(k);
        for (int tag : tags)
            if (m.tag == tag) return m;
        if (m.tag == status_tag) {
            reported_[size_t(k)] = true;
            Unpacker u(m.bytes, k);
            const int status = u.get<int32_t>();
            const std::string said = u.text();
            throw RankError(k, status ? status : 1, status ? said : "it ended before sending " + what);
        }
        throw Error("rank " + std::to_string(k) + " sent a message of kind " + std::to_string(m.tag) + " where " +
                    what + " was due (internal error)");
    }
    // Rank 0: the share of rank k ended (frames, devices) in this message.
    void share_ended(int k, const Message& m) {
        Unpacker u(m.bytes, k);
        StackSummary& theirs = shares_[size_t(k)];
        theirs.frames = size_t(u.get<uint64_t>());
        theirs.devices = size_t(u.get<uint64_t>());
        theirs.readers = unsigned(u.get<uint64_t>());
        for (const auto& [name, t] : stage_fields(theirs.stages)) *t = u.get<double>();
        ended_share_[size_t(k)] = true;
    }
    bool share_ended(int k) const { return ended_share_[size_t(k)]; }

    // Another rank: whether rank 0 has said it is done, which it says
    // before this rank's share is taken only when the job failed.
    bool root_done() {
        if (!control_) {
            int waiting = 0;
            MPI_Iprobe(0, control_tag, MPI_COMM_WORLD, &waiting, MPI_STATUS_IGNORE);
            if (waiting) take_control();
        }
        return control_.has_value();
    }

private:
    void take_control() {
        const Message m = receive(0, control_tag);
        control_ = Unpacker(m.bytes, 0).get<int32_t>();
    }

    int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
    bool ended_ = false;
    std::vector<bool> reported_;     // rank 0: the ranks whose status came
    std::vector<bool> ended_share_;  // rank 0: the ranks whose share's end came
    std::vector<StackSummary> shares_;  // rank 0: each rank's summary (frames, devices, readers, stages), from its share's end
    std::optional<int> control_;     // another rank: rank 0's word, once come
};

void RootSink::begin(const io::ProfileLayout& layout) {
    out_.begin(layout);
    values_ = layout.frame_values();
    fields_ = layout.fields.size();
    batches_ = (layout.frames + batch_ - 1) / batch_;
}

void RootSink::put(size_t first, size_t n, std::span<const float* const> fields) {
    if (cut_) return;
    out_.write(first, n, fields);
    written_ += n;
}

void RootSink::take_until(size_t batch) {
    const size_t ranks = size_t(job_.size());
    for (; next_ < batch; ++next_) {
        const int k = int(next_ % ranks);
        // Rank 0's own batch missing (it stopped), or a rank whose share ended.
        if (k == 0 || job_.share_ended(k)) {
            cut_ = true;
            continue;
        }
        const Message m = job_.expect(k, {batch_tag, end_tag}, "a batch");
        if (m.tag == end_tag) {  // it stopped before this batch
            job_.share_ended(k, m);
            cut_ = true;
            continue;
        }
        Unpacker u(m.bytes, k);
        const auto first = u.get<uint64_t>(), n = u.get<uint64_t>();
        if (first != next_ * batch_)
            throw Error("rank " + std::to_string(k) + " sent frames from " + std::to_string(first) + " where frame " +
                        std::to_string(next_ * batch_) + " was due (internal error)");
        std::vector<const float*> fields;
        for (size_t f = 0; f < fields_; ++f)
            fields.push_back(reinterpret_cast<const float*>(u.take(n * values_ * sizeof(float))));
        put(first, n, fields);
    }
}

void RootSink::write(size_t first, size_t n, std::span<const float* const> fields) {
    take_until(first / batch_);
    put(first, n, fields);
    next_ = first / batch_ + 1;
}

void RootSink::finish(size_t) {
    take_until(batches_);
    // Each rank's end; batches past a cut are still sent, and dropped.
    for (int k = 1; k < job_.size(); ++k) {
        while (!job_.share_ended(k)) {
            const Message m = job_.expect(k, {end_tag, batch_tag}, "the end of its share");
            if (m.tag == end_tag)
                job_.share_ended(k, m);
            else if (!cut_)
                throw Error("rank " + std::to_string(k) + " sent a batch past its share (internal error)");
        }
    }
    out_.finish(written_);
}

void RankSink::write(size_t first, size_t n, std::span<const float* const> fields) {
    if (job_.root_done()) throw Error("stopped: rank 0 ended the job");
    Packer p;
    p.put(uint64_t(first));
    p.put(uint64_t(n));
    for (size_t f = 0; f < fields_; ++f) p.append(fields[f], n * values_ * sizeof(float));
    // Synchronous: back-pressure. This rank's pipeline (its slots) runs on
    // while rank 0 takes the other ranks' batches before this one.
    send(0, batch_tag, p, true);
    written_ += n;
}

}  // namespace

std::unique_ptr<Job> start_mpi_job(int& argc, char**& argv) { return std::make_unique<MpiJob>(argc, argv); }

}  // namespace kiln::cli
