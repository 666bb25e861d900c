#include "kiln/profile.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <unistd.h>

#include "kiln/context.hpp"
#include "kiln/error.hpp"

namespace kiln {

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Profile::Profile(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

void Profile::add(const std::string& name, double start_us, double duration_us, uint64_t submission) {
    events_.push_back({name, start_us, duration_us, submission});
    if (events_.size() > capacity_) {
        events_.pop_front();
        ++dropped_events_;
    }
    auto [it, fresh] = kernel_index_.try_emplace(name, kernels_.size());
    if (fresh) kernels_.push_back({name});
    Kernel& k = kernels_[it->second];
    const double ms = duration_us / 1000.0;
    k.min = k.count ? std::min(k.min, ms) : ms;
    k.max = k.count ? std::max(k.max, ms) : ms;
    ++k.count;
    k.total += ms;
    const double delta = ms - k.mean;
    k.mean += delta / double(k.count);
    k.m2 += delta * (ms - k.mean);
    k.recent.push_back(ms);
    if (k.recent.size() > capacity_) k.recent.pop_front();
}

void Profile::add_submission(double duration_ms) {
    submissions_.push_back(duration_ms);
    if (submissions_.size() > capacity_) {
        submissions_.pop_front();
        ++dropped_submissions_;
    }
}

void Profile::clear() {
    events_.clear();
    submissions_.clear();
    dropped_events_ = dropped_submissions_ = 0;
    kernels_.clear();
    kernel_index_.clear();
}

void Profile::set_capacity(size_t capacity) {
    capacity_ = std::max<size_t>(1, capacity);
    for (; events_.size() > capacity_; ++dropped_events_) events_.pop_front();
    for (; submissions_.size() > capacity_; ++dropped_submissions_) submissions_.pop_front();
    for (Kernel& k : kernels_)
        while (k.recent.size() > capacity_) k.recent.pop_front();
}

std::vector<TraceEvent> Profile::events_since(uint64_t first) const {
    const uint64_t skip = first > dropped_events_ ? first - dropped_events_ : 0;
    if (skip >= events_.size()) return {};
    return {events_.begin() + static_cast<std::ptrdiff_t>(skip), events_.end()};
}

std::vector<double> Profile::submissions_since(uint64_t first) const {
    const uint64_t skip = first > dropped_submissions_ ? first - dropped_submissions_ : 0;
    if (skip >= submissions_.size()) return {};
    return {submissions_.begin() + static_cast<std::ptrdiff_t>(skip), submissions_.end()};
}

std::vector<KernelStats> Profile::stats() const {
    std::vector<KernelStats> out;
    for (const Kernel& k : kernels_) {
        KernelStats s;
        s.name = k.name;
        s.count = k.count;
        s.min = k.min;
        s.max = k.max;
        s.total = k.total;
        s.mean = k.mean;
        s.std = std::sqrt(std::max(0.0, k.m2 / double(k.count)));
        s.median = median_of({k.recent.begin(), k.recent.end()});
        out.push_back(s);
    }
    return out;
}

std::string Profile::table() const {
    std::string s;
    char line[256];
    std::snprintf(line, sizeof line, "%-28s %7s %10s %10s %10s %10s %10s %11s\n", "kernel", "count", "min ms",
                  "median ms", "max ms", "mean ms", "std ms", "total ms");
    s += line;
    for (auto& k : stats()) {
        std::snprintf(line, sizeof line, "%-28s %7zu %10.4f %10.4f %10.4f %10.4f %10.4f %11.4f\n", k.name.c_str(),
                      k.count, k.min, k.median, k.max, k.mean, k.std, k.total);
        s += line;
    }
    if (!submissions_.empty()) {
        std::snprintf(line, sizeof line, "%llu submissions, median GPU span %.4f ms\n",
                      static_cast<unsigned long long>(submission_count()),
                      median_of({submissions_.begin(), submissions_.end()}));
        s += line;
    }
    return s;
}

namespace {

std::string json_escaped(const std::string& text) {
    std::string s;
    for (char c : text) {
        if (c == '"' || c == '\\') s += '\\';
        s += c;
    }
    return s;
}

}  // namespace

std::string chrome_trace(const std::vector<TraceTrack>& tracks) {
    std::string s = "{\"traceEvents\":[";
    char buf[512];
    bool first = true;
    const auto metadata = [&](const char* what, const TraceTrack& t, const std::string& name) {
        if (name.empty()) return;
        s += std::string(first ? "" : ",") + "{\"name\":\"" + what + "\",\"ph\":\"M\",\"pid\":" +
             std::to_string(t.pid) + ",\"tid\":" + std::to_string(t.tid) + ",\"args\":{\"name\":\"" +
             json_escaped(name) + "\"}}";
        first = false;
    };
    for (const TraceTrack& t : tracks) {
        metadata("process_name", t, t.process);
        metadata("thread_name", t, t.thread);
        for (const TraceEvent& e : t.events) {
            std::snprintf(buf, sizeof buf,
                          "%s{\"name\":\"%s\",\"cat\":\"gpu\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,"
                          "\"tid\":%d,\"args\":{\"submission\":%llu}}",
                          first ? "" : ",", json_escaped(e.name).c_str(), e.start_us, e.duration_us, t.pid, t.tid,
                          static_cast<unsigned long long>(e.submission));
            s += buf;
            first = false;
        }
    }
    s += "],\"displayTimeUnit\":\"ns\"}\n";
    return s;
}

std::string Profile::chrome_trace() const { return kiln::chrome_trace({TraceTrack{1, 1, "", "", events()}}); }

void Profile::write_chrome_trace(const std::string& path) const {
    // Written beside the destination and renamed over it, so the path never
    // holds a partial trace; the temporary goes on failure.
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    const auto fail = [&](const char* step) {
        const std::string reason = std::strerror(errno);
        std::remove(tmp.c_str());
        throw IoError("could not write trace file '" + path + "': " + step + ": " + reason);
    };
    errno = 0;
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) fail("cannot create it");
    const std::string text = chrome_trace();
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !written) fail("writing failed");
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("renaming it into place failed");
}

double BenchmarkResult::cpu_median() const { return median_of(cpu_ms); }
double BenchmarkResult::gpu_median() const { return median_of(gpu_ms); }
double BenchmarkResult::gpu_min() const { return gpu_ms.empty() ? 0 : *std::min_element(gpu_ms.begin(), gpu_ms.end()); }
double BenchmarkResult::gpu_max() const { return gpu_ms.empty() ? 0 : *std::max_element(gpu_ms.begin(), gpu_ms.end()); }

std::string BenchmarkResult::str() const {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-24s: CPU %10.4f ms   GPU %10.4f ms (min %.4f, max %.4f, n=%zu)",
                  name.empty() ? "benchmark" : name.c_str(), cpu_median(), gpu_median(), gpu_min(), gpu_max(),
                  gpu_ms.size());
    return buf;
}

BenchmarkResult benchmark(Context& ctx, const std::function<void()>& fn, int n_repeat, int n_warmup,
                          const std::string& name) {
    if (n_repeat < 1 || n_warmup < 0)
        throw InvalidArgument("benchmark: n_repeat must be >= 1 and n_warmup >= 0");
    BenchmarkResult r;
    r.name = name;
    for (int i = 0; i < n_warmup; ++i) {
        fn();
        ctx.sync();
    }
    for (int i = 0; i < n_repeat; ++i) {
        const uint64_t before = ctx.profile().submission_count();
        auto t0 = std::chrono::steady_clock::now();
        fn();
        ctx.sync();
        auto t1 = std::chrono::steady_clock::now();
        r.cpu_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        const std::vector<double> subs = ctx.profile().submissions_since(before);
        if (!subs.empty()) {
            double gpu = 0;
            for (double s : subs) gpu += s;
            r.gpu_ms.push_back(gpu);
        }
    }
    return r;
}

} // namespace kiln
