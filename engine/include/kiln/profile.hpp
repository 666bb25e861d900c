#pragma once
// GPU timings from timestamp queries: per-kernel statistics (as pyFAI's
// log_profile), a Chrome trace, and cupyx.profiler.benchmark's helper.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

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

/// Accumulated GPU timings of a context.
class Profile {
public:
    void add(const std::string& name, double start_us, double duration_us, uint64_t submission);
    void add_submission(double duration_ms);
    void clear();

    std::vector<KernelStats> stats() const;
    /// A fixed-width table: kernel, count, min, median, max, mean, std (ms).
    std::string table() const;
    /// Chrome trace JSON (opens in Perfetto / chrome://tracing).
    std::string chrome_trace() const;
    /// Writes chrome_trace() to path whole or not at all; throws IoError
    /// with the system's reason (a missing or read-only directory...).
    void write_chrome_trace(const std::string& path) const;

    const std::vector<TraceEvent>& events() const { return events_; }
    /// GPU duration of every submission, ms.
    const std::vector<double>& submissions() const { return submissions_; }

private:
    std::vector<TraceEvent> events_;
    std::vector<double> submissions_;
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
