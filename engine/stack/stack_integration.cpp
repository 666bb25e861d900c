// integrate_stack (kiln/stack_integration.hpp): the pipeline from frame
// files to profile files. Reader threads fill pinned slots with a
// batch's chunks, the GPU decodes and integrates a slot per Graph run, and
// the calling thread launches batches and writes the finished ones.
#include "kiln/stack_integration.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "io/file.hpp"
#include "kiln/bslz4.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/error.hpp"
#include "kiln/graph.hpp"
#include "kiln/io.hpp"
#include "kiln/pinned.hpp"
#include "host/run_each.hpp"
#include "stack/frame_stack_impl.hpp"

namespace kiln {

namespace {

using Clock = std::chrono::steady_clock;

// How one frame travels: its chunk read from the file with pread (direct),
// or the frame produced on the host (a frame HDF5 decodes, an array file's).
struct Entry {
    uint64_t stored = 0;  // direct: the chunk's stored size, from the chunk index
    uint64_t share = 0;   // bytes it takes in its slot
    ChunkCoding coding = ChunkCoding::raw;  // as the GPU gets it; a direct frame's is set by its reader
    bool direct = false;
};

// The field of a result by its name.
const Array& field_of(const AzimuthalResult& r, const std::string& name) {
    if (name == "intensity") return r.intensity;
    if (name == "sigma") return r.sigma;
    if (name == "sem") return r.sem;
    if (name == "std") return r.std;
    if (name == "count") return r.count;
    if (name == "sum_signal") return r.sum_signal;
    if (name == "sum_variance") return r.sum_variance;
    if (name == "sum_normalization") return r.sum_normalization;
    if (name == "sum_normalization_sq") return r.sum_normalization_sq;
    throw InvalidArgument("integrate_stack: unknown field '" + name +
                          "'; accepted: intensity, sigma, sem, std, count, sum_signal, sum_variance, "
                          "sum_normalization, sum_normalization_sq");
}

// Seconds of one stage, summed over its threads (StackStages).
struct Tally {
    std::atomic<int64_t> ns{0};
    void add(Clock::time_point since) {
        ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count();
    }
    double seconds() const { return double(ns.load()) * 1e-9; }
};
struct Tallies {
    Tally read, read_wait, input_wait, parse, submit, gpu_wait, slot_wait, results_wait, write;
    StackStages stages() const {
        StackStages s;
        s.read = read.seconds();
        s.read_wait = read_wait.seconds();
        s.input_wait = input_wait.seconds();
        s.parse = parse.seconds();
        s.submit = submit.seconds();
        s.gpu_wait = gpu_wait.seconds();
        s.slot_wait = slot_wait.seconds();
        s.results_wait = results_wait.seconds();
        s.write = write.seconds();
        return s;
    }
};

// Reader threads filling one device's pinned slots: its i-th batch
// (order[i]) goes to slot i % slots, once its batch i - slots has been
// written (release()).
class Loader {
public:
    using Load = std::function<void(size_t frame, std::byte* dst)>;

    Loader(unsigned threads, size_t slots, std::vector<size_t> order, const std::vector<size_t>& batch_first,
           const std::vector<std::vector<uint64_t>>& offsets, std::function<std::byte*(size_t slot)> base, Load load,
           Tallies& tally)
        : slots_(slots),
          order_(std::move(order)),
          first_(batch_first),
          offsets_(offsets),
          load_(std::move(load)),
          base_(std::move(base)),
          tally_(tally),
          filled_(slots, 0) {
        for (unsigned w = 0; w < threads; ++w) pool_.emplace_back([this, w, threads] { work(w, threads); });
    }
    ~Loader() { stop(); }

    // Waits until the i-th batch is in its slot; rethrows a reader's error;
    // false once stopped.
    bool wait(size_t i) {
        std::unique_lock lock(m_);
        main_cv_.wait(lock, [&] { return error_ || abort_ || filled_[i % slots_] == pool_.size(); });
        if (error_) std::rethrow_exception(error_);
        if (abort_) return false;
        filled_[i % slots_] = 0;
        return true;
    }
    // The i-th batch is written: its slot may take batch i + slots.
    void release(size_t i) {
        {
            std::lock_guard lock(m_);
            released_ = i + 1;
        }
        work_cv_.notify_all();
    }
    void stop() noexcept {
        {
            std::lock_guard lock(m_);
            abort_ = true;
        }
        work_cv_.notify_all();
        main_cv_.notify_all();
        for (auto& t : pool_)
            if (t.joinable()) t.join();
    }

private:
    void work(unsigned w, unsigned threads) {
        for (size_t i = 0; i < order_.size(); ++i) {
            {
                const auto t = Clock::now();
                std::unique_lock lock(m_);
                work_cv_.wait(lock, [&] { return abort_ || i < released_ + slots_; });
                tally_.read_wait.add(t);
                if (abort_) return;
            }
            const auto t = Clock::now();
            try {
                std::byte* slot = base_(i % slots_);
                const size_t b = order_[i];
                const auto& off = offsets_[b];
                for (size_t k = w; k + 1 < off.size(); k += threads) load_(first_[b] + k, slot + off[k]);
                tally_.read.add(t);
            } catch (...) {
                {
                    std::lock_guard lock(m_);
                    if (!error_) error_ = std::current_exception();
                    abort_ = true;
                }
                main_cv_.notify_all();
                work_cv_.notify_all();
                return;
            }
            {
                std::lock_guard lock(m_);
                ++filled_[i % slots_];
            }
            main_cv_.notify_all();
        }
    }

    size_t slots_;
    std::vector<size_t> order_;                          // the device's batches, in order
    const std::vector<size_t>& first_;                   // per batch: its first frame
    const std::vector<std::vector<uint64_t>>& offsets_;  // per batch: frames' offsets in the slot, and the end
    Load load_;
    std::function<std::byte*(size_t)> base_;
    Tallies& tally_;
    std::mutex m_;
    std::condition_variable main_cv_, work_cv_;
    std::vector<size_t> filled_;  // per slot: threads done with its batch
    size_t released_ = 0;
    bool abort_ = false;
    std::exception_ptr error_;
    std::vector<std::thread> pool_;
};

// One device's part of a run: its context and integrator, pinned slots,
// decoders and graphs, the readers filling its slots and the thread that
// launches its batches (every D-th, from its index).
struct Device {
    Device(Context c, const AzimuthalIntegrator* i) : ctx(std::move(c)), integ(i) {}
    Context ctx;  // (no default: a default Context opens a device of its own)
    const AzimuthalIntegrator* integ = nullptr;
    std::vector<size_t> order;  // its batches, in order
    PinnedBuffer in, out;
    std::vector<std::unique_ptr<Bslz4Decoder>> decoders;
    std::vector<std::unique_ptr<Graph>> graphs;
    std::unique_ptr<Loader> loader;
    std::thread thread;
    size_t finished = 0;  // of its batches, those whose results are in its pinned slots
    bool done = false;    // its thread launches nothing more
};

StackSummary run_stack(std::vector<std::pair<Context, const AzimuthalIntegrator*>> devs, const FrameStack& stack,
                       io::ProfileSink& sink, const StackOptions& o, io::ProfileMeta meta) {
    const auto t0 = Clock::now();
    const auto since = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    const FrameStack::Impl& m = stack.impl();
    const AzimuthalIntegrator& integ = *devs.front().second;
    if (o.batch == 0) throw InvalidArgument("integrate_stack: batch is 0; integrate at least one frame a batch");
    for (const auto& d : devs)
        if (d.second->pixels() != m.rows * m.cols)
            throw InvalidArgument("integrate_stack: the integrator is made for " + std::to_string(d.second->pixels()) +
                                  " pixels, the frames hold " + std::to_string(m.rows) + "x" + std::to_string(m.cols));
    for (const std::string& f : o.fields) (void)field_of(AzimuthalResult{}, f);
    if (o.shards == 0 || o.shard >= o.shards)
        throw InvalidArgument("integrate_stack: share " + std::to_string(o.shard) + " of " + std::to_string(o.shards) +
                              " batches; give shards >= 1 and shard below it");
    const size_t total = m.frames, batch = std::min(o.batch, total);
    const size_t batches = (total + batch - 1) / batch;
    // This run's batches: every shards-th from shard (all of them alone).
    std::vector<size_t> mine;
    for (size_t b = o.shard; b < batches; b += o.shards) mine.push_back(b);
    const auto is_mine = [&](size_t b) { return b % o.shards == o.shard; };  // batch b
    const size_t frame_bytes = byte_size(Shape{m.rows, m.cols}, m.dtype), elem = dtype_size(m.dtype);

    // Every frame's way in and its share of a slot. Where kiln reads a
    // file's chunk index itself (chunk_table, one pass), every chunk is
    // located here and the reader threads pread without HDF5. Otherwise from
    // the chunk index's sizes (a quick lookup each; where a chunk lies is
    // looked up by the reader threads, as they go: HDF5 1.10 finds that in
    // time growing with the frame's index, so doing it ahead for every frame
    // would cost the square of the stack's length before the first batch).
    std::vector<Entry> entries(total);
    std::vector<std::optional<io::FrameStackReader::ChunkTable>> tables(m.parts.size());
    bool any_direct = false, any_host_decoded = false;
    for (size_t p = 0; p < m.parts.size(); ++p) {
        const FrameStack::Part& part = m.parts[p];
        const io::FrameStackReader* reader = m.readers[p].get();
        if (reader) {
            try {
                tables[p] = reader->chunk_table();
            } catch (const IoError&) {
                // An index kiln's reading refuses: HDF5's lookups, frame by
                // frame, read what it can and name the frames they cannot.
            }
        }
        for (size_t k = 0; k < part.frames; ++k) {
            Entry& e = entries[part.first + k];
            e.share = frame_bytes;
            if (!reader || !is_mine((part.first + k) / batch)) continue;
            any_host_decoded = any_host_decoded || !reader->gpu_decodable() || o.cpu_decompress;
            if (!reader->gpu_decodable() || !reader->own_file()) continue;
            if (tables[p]) {
                const auto& at = (*tables[p])[k];
                if (!at) continue;  // never written: read_frame gives HDF5's fill value
                e.stored = at->bytes;
            } else {
                try {
                    e.stored = reader->chunk_bytes(k);
                } catch (const IoError&) {
                    continue;  // never written: read_frame gives HDF5's fill value
                }
            }
            e.direct = any_direct = true;
            if (!o.cpu_decompress) e.share = e.stored;
        }
    }
    std::vector<size_t> batch_first(batches);
    std::vector<std::vector<uint64_t>> offsets(batches);
    size_t capacity = 0, share_frames = 0;
    for (size_t b = 0; b < batches; ++b) {
        batch_first[b] = b * batch;
        const size_t n = std::min(batch, total - b * batch);
        auto& off = offsets[b];
        off.assign(1, 0);
        for (size_t k = 0; k < n; ++k) off.push_back(off.back() + entries[b * batch + k].share);
        if (!is_mine(b)) continue;
        capacity = std::max<size_t>(capacity, off.back());
        share_frames += n;
    }
    StackSummary summary;
    summary.total = total;
    summary.batch = batch;
    summary.path = any_direct && !o.cpu_decompress ? "compressed chunks decoded on the GPU"
                   : any_host_decoded               ? "frames decoded on the host"
                                                    : "frames pushed from the file";

    io::ProfileLayout layout;
    const Csr& csr = integ.csr();
    // A cake's rows are (azimuth, radial): its radial centres are the first row's.
    const size_t radial_bins = csr.azimuth_bins ? csr.bins / csr.azimuth_bins : csr.bins;
    meta.radial.assign(csr.bin_centers.begin(), csr.bin_centers.begin() + long(radial_bins));
    meta.radial_unit = radial_name(csr.unit);
    if (csr.azimuth_bins) {
        meta.azimuthal = csr.azimuth_centers;
        meta.azimuthal_unit = radial_name(Radial::chi_deg);
    }
    if (meta.sources.empty())
        for (const auto& part : m.parts) meta.sources.push_back(part.path);
    layout.meta = std::move(meta);
    layout.fields = o.fields;
    layout.frames = total;
    layout.single = m.single;

    // Per device: slots of pinned input, decoder, graph and pinned profiles.
    constexpr size_t slots = 3;
    const size_t ndev = std::min(devs.size(), mine.size());
    const size_t field_bytes = batch * layout.frame_values() * sizeof(float);
    std::vector<Device> dev;
    dev.reserve(ndev);  // the threads hold references: no reallocation
    for (size_t k = 0; k < ndev; ++k) dev.emplace_back(devs[k].first, devs[k].second);
    const auto in_slot = [&](Device& d, size_t s) { return d.in.data() + s * capacity; };
    const auto out_field = [&](Device& d, size_t s, size_t f) {
        return reinterpret_cast<float*>(d.out.data() + (s * o.fields.size() + f) * field_bytes);
    };
    const double index_seconds = since();
    // Every device's slots and graphs at once, a thread each.
    const auto set_up = [&](size_t k) {
        Device& d = dev[k];
        for (size_t j = k; j < mine.size(); j += ndev) d.order.push_back(mine[j]);
        d.in = PinnedBuffer(d.ctx, slots * capacity);
        d.out = PinnedBuffer(d.ctx, slots * o.fields.size() * field_bytes);
        for (size_t s = 0; s < slots; ++s) {
            d.decoders.push_back(std::make_unique<Bslz4Decoder>(d.ctx, Shape{m.rows, m.cols}, m.dtype, batch, capacity));
            d.graphs.push_back(std::make_unique<Graph>(d.ctx));
            auto capture = d.graphs.back()->capture();
            d.decoders[s]->record(
                std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(in_slot(d, s)), capacity));
            const Array& frames = d.decoders[s]->output();
            const AzimuthalResult r =
                o.sigma_clip_kappa ? d.integ->sigma_clip(frames, *o.sigma_clip_kappa, o.sigma_clip_iter, o.sigma_clip_threshold)
                : o.medfilt        ? d.integ->medfilt1d(frames, o.medfilt->first, o.medfilt->second)
                                   : d.integ->integrate(frames);
            for (size_t f = 0; f < o.fields.size(); ++f)
                field_of(r, o.fields[f]).pull(out_field(d, s, f), field_bytes);
        }
    };
    run_each(ndev, set_up);
    const double setup_seconds = since() - index_seconds;

    // The readers: pread into the slot (several threads at once: no HDF5),
    // host decoding, or HDF5 and array files for the rest; the host's
    // threads shared among the devices.
    const unsigned hw = std::max(1u, o.cores ? o.cores : std::thread::hardware_concurrency());
    const unsigned nd = unsigned(std::max<size_t>(ndev, 1));
    const unsigned threads = o.readers ? o.readers : std::clamp(hw > 2 ? hw - 2 : 1u, 1u, 8u * nd);
    const unsigned per_device = std::max(1u, threads / nd);
    summary.readers = per_device * unsigned(ndev);
    auto load = [&](size_t frame, std::byte* dst) {
        Entry& e = entries[frame];
        const size_t p = m.part_of(frame);
        const size_t local = frame - m.parts[p].first;
        if (e.direct) {
            // Where it lies: from the table, or asked of HDF5 (under its lock).
            const auto at = tables[p] ? (*tables[p])[local] : m.readers[p]->stored_chunk(local);
            if (!at || at->bytes != e.stored)
                throw IoError(stack.where(frame) + ": its chunk changed while the stack was read");
            if (o.cpu_decompress && at->coding == ChunkCoding::bslz4) {
                thread_local std::vector<uint8_t> chunk;
                chunk.resize(at->bytes);
                m.files[p]->read_at(at->offset, std::as_writable_bytes(std::span<uint8_t>(chunk)));
                bslz4_decompress(chunk, elem, std::span<uint8_t>(reinterpret_cast<uint8_t*>(dst), frame_bytes),
                                 stack.where(frame));
                e.coding = ChunkCoding::raw;
            } else {
                m.files[p]->read_at(at->offset, std::span<std::byte>(dst, at->bytes));
                e.coding = at->coding;
            }
        } else if (m.readers[p]) {
            const HostArray f = m.readers[p]->read_frame(local);
            std::memcpy(dst, f.data(), frame_bytes);
        } else {
            std::memcpy(dst, static_cast<const std::byte*>(m.arrays[p]->data()) + local * frame_bytes, frame_bytes);
        }
    };
    // Names the files behind a failed batch's frames.
    const auto in_files = [&](size_t b) {
        const size_t first = batch_first[b], last = first + offsets[b].size() - 2;
        return " (frames " + std::to_string(first) + " to " + std::to_string(last) + " of the run: from " +
               stack.where(first) + " to " + stack.where(last) + ")";
    };

    // Each device's thread launches its batches and waits for them in turn;
    // this thread writes every batch in frame order as it is finished, so
    // the sink sees what one device would give.
    Tallies tally;
    std::mutex mu;
    std::condition_variable cv;
    size_t written_batches = 0;  // this run's batches below written_batches are written
    bool abort = false;
    std::exception_ptr error;
    const auto fail = [&](std::exception_ptr e) {
        std::lock_guard lock(mu);
        if (!error) error = e;
        abort = true;
        cv.notify_all();
    };
    const auto drive = [&](Device& d) {
        std::vector<size_t> sizes;
        std::vector<ChunkCoding> coding;
        size_t launched = 0;
        const auto finish = [&](size_t i) {
            const auto t = Clock::now();
            try {
                d.decoders[i % slots]->check();  // waits for that run
                tally.gpu_wait.add(t);
            } catch (const IoError& e) {
                throw IoError(e.what() + in_files(d.order[i]));
            }
            std::lock_guard lock(mu);
            d.finished = i + 1;
            cv.notify_all();
        };
        try {
            for (size_t i = 0; i < d.order.size(); ++i) {
                const size_t b = d.order[i], s = i % slots, n = offsets[b].size() - 1;
                {
                    // The slot's last batch must be written before its
                    // profiles are overwritten.
                    const auto t = Clock::now();
                    std::unique_lock lock(mu);
                    cv.wait(lock, [&] { return abort || i < slots || written_batches > d.order[i - slots]; });
                    tally.slot_wait.add(t);
                    if (abort || (o.stop && o.stop->load())) break;
                }
                auto t = Clock::now();
                if (!d.loader->wait(i)) break;
                tally.input_wait.add(t);
                t = Clock::now();
                sizes.resize(n);
                coding.resize(n);
                for (size_t k = 0; k < n; ++k) {
                    const Entry& e = entries[batch_first[b] + k];
                    sizes[k] = e.share;
                    coding[k] = e.coding;
                }
                try {
                    d.decoders[s]->stage(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(in_slot(d, s)),
                                                                  offsets[b].back()),
                                         sizes, batch_first[b], "frame", coding);
                } catch (const IoError& e) {
                    throw IoError(e.what() + in_files(b));
                }
                tally.parse.add(t);
                t = Clock::now();
                d.graphs[s]->launch();
                tally.submit.add(t);
                launched = i + 1;
                if (i >= 1) finish(i - 1);
            }
            while (d.finished < launched) finish(d.finished);
        } catch (...) {
            fail(std::current_exception());
            try {
                d.ctx.sync();  // no GPU work left reading or writing the slots
            } catch (...) {
            }
        }
        std::lock_guard lock(mu);
        d.done = true;
        cv.notify_all();
    };
    const auto stop_all = [&] {
        {
            std::lock_guard lock(mu);
            abort = true;
            cv.notify_all();
        }
        for (Device& d : dev)
            if (d.loader) d.loader->stop();
        for (Device& d : dev)
            if (d.thread.joinable()) d.thread.join();
    };
    size_t written = 0;
    try {
        sink.begin(layout);
        for (Device& d : dev) {
            d.loader = std::make_unique<Loader>(per_device, slots, d.order, batch_first, offsets,
                                                [&d, &in_slot](size_t s) { return in_slot(d, s); }, load, tally);
            d.thread = std::thread(drive, std::ref(d));
        }
        for (size_t j = 0; j < mine.size(); ++j) {
            const size_t b = mine[j];
            Device& d = dev[j % ndev];
            const size_t i = j / ndev, s = i % slots, n = offsets[b].size() - 1;
            {
                const auto t = Clock::now();
                std::unique_lock lock(mu);
                cv.wait(lock, [&] { return error || d.finished > i || d.done; });
                tally.results_wait.add(t);
                if (error) std::rethrow_exception(error);
                if (d.finished <= i) break;  // stopped before this batch
            }
            std::vector<const float*> fields;
            for (size_t f = 0; f < o.fields.size(); ++f) fields.push_back(out_field(d, s, f));
            const auto t = Clock::now();
            sink.write(batch_first[b], n, fields);
            tally.write.add(t);
            written += n;
            // Progress before the slot is free: a stop it asks for is seen
            // before that device launches into the slot again.
            if (o.progress) o.progress(StackProgress{written, share_frames, since()});
            d.loader->release(i);
            {
                std::lock_guard lock(mu);
                written_batches = b + 1;
                cv.notify_all();
            }
        }
        stop_all();
        if (error) std::rethrow_exception(error);
        summary.stopped = written < share_frames;
        const auto t = Clock::now();
        sink.finish(written);
        tally.write.add(t);
    } catch (...) {
        stop_all();
        for (Device& d : dev) {
            try {
                d.ctx.sync();  // no GPU work left reading or writing the slots
            } catch (...) {
            }
        }
        throw;
    }
    summary.devices = ndev;
    summary.stages = tally.stages();
    summary.stages.index = index_seconds;
    summary.stages.setup = setup_seconds;
    summary.frames = written;
    summary.seconds = since();
    return summary;
}

}  // namespace

StackSummary integrate_stack(const Context& ctx, const AzimuthalIntegrator& integ, const FrameStack& stack,
                             io::ProfileSink& sink, const StackOptions& o, io::ProfileMeta meta) {
    return run_stack({{ctx, &integ}}, stack, sink, o, std::move(meta));
}

StackSummary integrate_stack(const std::vector<Context>& devices, const AzimuthalSetup& setup,
                             const FrameStack& stack, io::ProfileSink& sink, const StackOptions& o,
                             io::ProfileMeta meta) {
    if (devices.empty()) throw InvalidArgument("integrate_stack: no device; give at least one context");
    // One integrator per device (the matrix is built once: cached_csr).
    std::vector<AzimuthalIntegrator> integs;
    integs.reserve(devices.size());
    for (const Context& c : devices) integs.emplace_back(c, setup);
    std::vector<const AzimuthalIntegrator*> ptrs;
    for (const AzimuthalIntegrator& i : integs) ptrs.push_back(&i);
    return integrate_stack(ptrs, stack, sink, o, std::move(meta));
}

StackSummary integrate_stack(const std::vector<const AzimuthalIntegrator*>& integrators, const FrameStack& stack,
                             io::ProfileSink& sink, const StackOptions& o, io::ProfileMeta meta) {
    if (integrators.empty()) throw InvalidArgument("integrate_stack: no integrator; give one per device");
    std::vector<std::pair<Context, const AzimuthalIntegrator*>> devs;
    for (const AzimuthalIntegrator* i : integrators) {
        if (!i) throw InvalidArgument("integrate_stack: a null integrator");
        devs.emplace_back(i->context(), i);
    }
    return run_stack(std::move(devs), stack, sink, o, std::move(meta));
}

}  // namespace kiln
