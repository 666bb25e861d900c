#pragma once
// The processes of one `mpirun -np N kiln ...` launch (an MPI job), seen
// from one of them, its rank. MPI starts only when Open MPI's launcher
// started this process (its environment says so): a plain `kiln` run never
// initialises MPI. Only integrate-azimuthal splits its work across ranks:
// every rank reads and integrates its share of the stack's batches
// (StackOptions::shards), the others send their profiles to rank 0, which
// writes the one output in frame order; rank 0 speaks for the job (its
// messages, summary, exit status), the other ranks print nothing.
//
// Each rank's messages to rank 0 come in one order: its batches, the end
// of its share (integrated), its trace tracks (--profile, --trace), and
// last its status (exit code and message), sent whatever happened. Rank 0
// sends each rank one control message when it is done (its exit code):
// a rank still integrating then stops. So a failure anywhere ends the job
// cleanly, rank 0 having removed its unfinished output first.
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/error.hpp"
#include "kiln/profile.hpp"
#include "kiln/profile_io.hpp"
#include "kiln/stack_integration.hpp"

namespace kiln::cli {

/// Another rank's failure, as rank 0 reports it: "rank R: " and that rank's
/// message, with its exit code.
class RankError : public Error {
public:
    RankError(int rank, int code, const std::string& message)
        : Error("rank " + std::to_string(rank) + ": " + message), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

/// What join_job throws, on every rank, when the job cannot run; only one
/// of them (rank 0) says so.
class JobRefused : public InvalidArgument {
public:
    JobRefused(const std::string& message, bool speaks) : InvalidArgument(message), speaks_(speaks) {}
    bool speaks() const { return speaks_; }

private:
    bool speaks_;
};

/// A rank's sink in a job: rank 0's writes every rank's batches to its
/// output; another rank's sends its own to rank 0.
class JobSink : public io::ProfileSink {
public:
    /// Frames written to the output (rank 0: the job's, a prefix of the
    /// stack; another rank: those it sent).
    virtual size_t written() const = 0;
    /// Rank 0: whether the output stops short of the stack because a rank
    /// stopped early (Ctrl-C, SIGTERM).
    virtual bool cut() const = 0;
};

/// A run's stage times by name, as --json and the summary print them and
/// ranks send them to rank 0: index and setup first (wall times).
inline std::array<std::pair<const char*, double*>, 11> stage_fields(StackStages& s) {
    return {{{"index", &s.index},
             {"setup", &s.setup},
             {"read", &s.read},
             {"read_wait", &s.read_wait},
             {"input_wait", &s.input_wait},
             {"parse", &s.parse},
             {"submit", &s.submit},
             {"gpu_wait", &s.gpu_wait},
             {"slot_wait", &s.slot_wait},
             {"results_wait", &s.results_wait},
             {"write", &s.write}}};
}

class Job {
public:
    virtual ~Job() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// The rank among those on this host (which GPU it takes).
    virtual int local_rank() const = 0;
    /// The ranks on this host (which share its cores).
    virtual int local_size() const = 0;
    bool root() const { return rank() == 0; }

    /// Rank 0: a sink writing to `out` its own batches (integrate_stack's
    /// writes) and the other ranks' as they come, in frame order, for a
    /// stack split into batches of `batch` frames; its finish() waits for
    /// every rank's end. Another rank: a sink sending each batch to rank 0,
    /// returning once rank 0 has taken it (so no rank runs more than its
    /// pipeline's slots ahead of the output, nor buffers the stack).
    virtual std::unique_ptr<JobSink> sink(io::ProfileSink* out, size_t batch) = 0;
    /// A rank other than 0: its share is integrated (summary), sent to
    /// rank 0. Rank 0 (after its sink finished): `summary` becomes the
    /// job's devices, reader threads and stage times, every rank's added
    /// to its own (index and setup: the slowest rank's).
    virtual void integrated(StackSummary& summary) = 0;
    /// Rank 0: its tracks and every other rank's, in rank order; another
    /// rank: sends its tracks and returns none.
    virtual std::vector<TraceTrack> gather_tracks(std::vector<TraceTrack> mine) = 0;
    /// Ends this process's part: another rank sends its status (code and
    /// message; it printed nothing) and waits for rank 0's word; rank 0
    /// tells every rank it is done and collects their statuses. Returns
    /// this process's exit status: rank 0's is the job's (`code`, or a
    /// rank's failure, printed here, where rank 0 succeeded); the others
    /// return 0, so that mpirun reports rank 0's.
    virtual int end(int code, const std::string& message) = 0;
};

/// The job of this process when Open MPI's mpirun launched it (MPI
/// initialised here, MPI_THREAD_FUNNELED: only the calling thread talks),
/// else nothing. A kiln built without MPI refuses to run as one of several
/// ranks (JobRefused), rather than have every rank do the whole work.
std::unique_ptr<Job> join_job(int& argc, char**& argv);

}  // namespace kiln::cli
