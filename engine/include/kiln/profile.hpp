#pragma once
// GPU timings from timestamp queries: per-kernel statistics (as pyFAI's
// log_profile), a Chrome trace, and cupyx.profiler.benchmark's helper.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

class Context;

/// Statistics of one kernel's GPU durations, in milliseconds.
struct KernelStats {
    std::string name;
    size_t count = 0;
    double min = 0, median = 0, max = 0, mean = 0, std = 0, total = 0;
};

/// One timed node of one submission.
struct TraceEvent {
    std::string name;
    double start_us = 0;   ///< GPU clock, relative to the profile's first submission
    double duration_us = 0;
    uint64_t submission = 0;
};

/// One row of a Chrome trace: a process and thread id, their names (shown
/// where given) and the events timed there (a device's, a process's).
struct TraceTrack {
    int pid = 1, tid = 1;
    std::string process, thread;
    std::vector<TraceEvent> events;
};

/// Chrome trace JSON of several tracks, each on its own pid/tid row, with
/// process_name and thread_name metadata where a name is given. Each
/// track's times are its own (a profile's are relative to its first
/// submission): tracks of several devices are not aligned in time.
std::string chrome_trace(const std::vector<TraceTrack>& tracks);

/// Accumulated GPU timings of a context, in bounded memory: every kernel's
/// count, min, max, mean, std and total cover every run; its median covers
/// its most recent `capacity` runs; the trace keeps the most recent
/// `capacity` node timings and as many submission spans. A long-running
/// application does not grow (about 100 bytes per kept event).
class Profile {
public:
    /// ContextOptions::profile_capacity sets it for a context's profile.
    explicit Profile(size_t capacity = 65536);
    void add(const std::string& name, double start_us, double duration_us, uint64_t submission);
    void add_submission(double duration_ms);
    void clear();
    /// Keeps at most this many events and submission spans (>= 1); older
    /// ones are dropped now if there are more.
    void set_capacity(size_t capacity);
    size_t capacity() const { return capacity_; }

    std::vector<KernelStats> stats() const;
    /// A fixed-width table: kernel, count, min, median, max, mean, std (ms).
    std::string table() const;
    /// Chrome trace JSON (opens in Perfetto / chrome://tracing) of the kept events.
    std::string chrome_trace() const;
    /// Writes chrome_trace() to path whole or not at all; throws IoError
    /// with the system's reason (a missing or read-only directory...).
    void write_chrome_trace(const std::string& path) const;

    /// The kept node timings, oldest first.
    std::vector<TraceEvent> events() const { return {events_.begin(), events_.end()}; }
    /// Node timings added since the profile began (or was cleared), kept or not.
    uint64_t event_count() const { return dropped_events_ + events_.size(); }
    /// The kept events numbered `first` and later (numbers as event_count() counts).
    std::vector<TraceEvent> events_since(uint64_t first) const;
    /// GPU duration of each kept submission, ms, oldest first.
    std::vector<double> submissions() const { return {submissions_.begin(), submissions_.end()}; }
    /// Submissions timed since the profile began (or was cleared), kept or not.
    uint64_t submission_count() const { return dropped_submissions_ + submissions_.size(); }
    /// GPU durations of the kept submissions numbered `first` and later: what
    /// ran since submission_count() returned `first`.
    std::vector<double> submissions_since(uint64_t first) const;

private:
    struct Kernel {
        std::string name;
        size_t count = 0;
        double min = 0, max = 0, mean = 0, m2 = 0, total = 0;  // ms; m2: Welford's sum of squares
        std::deque<double> recent;                             // the median's window
    };
    size_t capacity_;
    std::deque<TraceEvent> events_;
    std::deque<double> submissions_;
    uint64_t dropped_events_ = 0, dropped_submissions_ = 0;
    std::vector<Kernel> kernels_;  // in order of first appearance
    std::unordered_map<std::string, size_t> kernel_index_;
};

/// Median/min/max of repeated timings, as cupyx.profiler.benchmark reports.
struct BenchmarkResult {
    std::string name;
    std::vector<double> cpu_ms;  ///< wall time of each repetition (record + submit + wait)
    std::vector<double> gpu_ms;  ///< GPU time of each repetition, from timestamps
    double cpu_median() const;
    double gpu_median() const;
    double gpu_min() const;
    double gpu_max() const;
    std::string str() const;
};

/// Runs fn n_warmup times, then n_repeat times, each followed by a sync, and
/// returns CPU and GPU times per repetition (GPU time needs Timing != off).
BenchmarkResult benchmark(Context& ctx, const std::function<void()>& fn, int n_repeat = 10,
                          int n_warmup = 3, const std::string& name = "");

double median_of(std::vector<double> v);

} // namespace kiln
#pragma GCC visibility pop
