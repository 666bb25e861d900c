// Workgroup-size tuning: time candidates with kiln::benchmark, keep the
// fastest, persist it per device in a small tab-separated file.
#include "kiln/tune.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "graph/op_services.hpp"
#include "kiln/kernel.hpp"
#include "kiln/profile.hpp"

namespace kiln {

namespace {

std::string size_str(const WorkgroupSize& s) {
    return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
}

std::string driver_key(const Context& ctx) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", ctx.device().driver_version);
    return buf;
}

struct Line {
    std::string device, driver, kernel;
    WorkgroupSize size{1, 1, 1};
    double ms = 0;
};

// Lines of the file; malformed ones are dropped (someone edited it by hand).
std::vector<Line> read_lines(const std::string& path) {
    std::vector<Line> out;
    std::ifstream in(path);
    std::string text;
    while (std::getline(in, text)) {
        if (text.empty() || text[0] == '#') continue;
        std::vector<std::string> f;
        std::stringstream ss(text);
        for (std::string field; std::getline(ss, field, '\t');) f.push_back(field);
        if (f.size() < 4) continue;
        Line l{f[0], f[1], f[2]};
        std::istringstream sz(f[3]);
        if (!(sz >> l.size[0] >> l.size[1] >> l.size[2])) continue;
        if (f.size() > 4) l.ms = std::atof(f[4].c_str());
        out.push_back(l);
    }
    return out;
}

} // namespace

std::string TuneResult::str() const {
    std::string s = "tuning " + kernel + " on " + device + "\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %-14s %12s %12s %12s\n", "workgroup", "GPU ms", "min ms", "max ms");
    s += line;
    for (const TuneEntry& e : table) {
        const char mark = e.ok && e.size == best ? '*' : ' ';
        if (e.ok)
            std::snprintf(line, sizeof line, "%c %-14s %12.4f %12.4f %12.4f\n", mark, size_str(e.size).c_str(),
                          e.gpu_ms, e.min_ms, e.max_ms);
        else
            std::snprintf(line, sizeof line, "  %-14s %12s  %s\n", size_str(e.size).c_str(), "failed",
                          e.error.substr(0, 100).c_str());
        s += line;
    }
    s += "best: " + size_str(best) + "\n";
    return s;
}

std::vector<WorkgroupSize> default_candidates(const Context& ctx) {
    std::vector<WorkgroupSize> c;
    const uint32_t top = std::min<uint32_t>(1024, ctx.device().max_workgroup_invocations);
    for (uint32_t x = 32; x <= top; x *= 2) c.push_back({x, 1, 1});
    return c;
}

std::vector<std::string> kernels_of(Context& ctx, const std::function<void()>& run_op) {
    std::map<std::string, double> total;
    for (const TraceEvent& e : ops::services(ctx).events_of(run_op))
        if (e.name != "push" && e.name != "pull") total[e.name] += e.duration_us;
    std::vector<std::pair<double, std::string>> order;
    for (auto& [name, us] : total) order.push_back({-us, name});
    std::sort(order.begin(), order.end());
    std::vector<std::string> names;
    for (auto& [us, name] : order) names.push_back(name);
    return names;
}

TuneResult tune(Context& ctx, const std::string& kernel, const std::function<void()>& run_op,
                std::vector<WorkgroupSize> candidates, int repeats, bool persist) {
    if (kernel.empty()) throw InvalidArgument("tune: the kernel name is empty; give the name of the kernel to tune");
    if (repeats < 1) throw InvalidArgument("tune: repeats = " + std::to_string(repeats) + "; give repeats >= 1");
    if (candidates.empty()) candidates = default_candidates(ctx);
    if (candidates.empty()) throw InvalidArgument("tune: no candidate workgroup sizes");
    if (ops::services(ctx).options().timing == Timing::off || !ctx.device().timestamps)
        throw Unsupported("tune: timing needs GPU timestamps; create the context with timing on, on a device "
                          "with timestamp queries");
    const auto previous = ctx.workgroup_size(kernel);
    TuneResult r;
    r.kernel = kernel;
    r.device = ctx.device().name;
    bool any = false;
    for (const WorkgroupSize& size : candidates) {
        TuneEntry e;
        e.size = size;
        try {
            ctx.set_workgroup_size(kernel, size);
            const BenchmarkResult b = benchmark(ctx, run_op, repeats, 2, kernel);
            e.gpu_ms = b.gpu_median();
            e.min_ms = b.gpu_min();
            e.max_ms = b.gpu_max();
            if (!any || e.gpu_ms < r.best_ms) r.best = size, r.best_ms = e.gpu_ms;
            any = true;
        } catch (const Error& err) {
            e.ok = false;
            e.error = err.what();
        }
        r.table.push_back(e);
    }
    if (!any) {
        ctx.set_workgroup_size(kernel, previous.value_or(WorkgroupSize{0, 0, 0}));
        std::string why = r.table.front().error;
        throw Error("tune: no candidate workgroup size ran for '" + kernel + "'; the first failed with: " + why);
    }
    ctx.set_workgroup_size(kernel, r.best);
    if (persist && !tuning_file(ctx).empty()) save_tuning(ctx, kernel, r.best, r.best_ms);
    return r;
}

std::string tuning_file(const Context& ctx) {
    const std::string dir = cache_directory(ctx);
    return dir.empty() ? std::string() : (std::filesystem::path(dir) / "tuning.tsv").string();
}

void save_tuning(const Context& ctx, const std::string& kernel, WorkgroupSize size, double gpu_ms) {
    const std::string path = tuning_file(ctx);
    if (path.empty()) throw IoError("save_tuning: there is no cache directory (set KILN_CACHE_DIR or HOME)");
    if (kernel.empty() || kernel.find_first_of("\t\r\n") != std::string::npos)
        throw InvalidArgument("save_tuning: kernel name '" + kernel + "' is empty or holds tabs or line breaks");
    const std::string device = ctx.device().name, driver = driver_key(ctx);
    std::vector<Line> lines = read_lines(path);
    std::erase_if(lines, [&](const Line& l) { return l.device == device && l.driver == driver && l.kernel == kernel; });
    lines.push_back({device, driver, kernel, size, gpu_ms});

    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    std::random_device rd;
    const std::string tmp = path + ".tmp" + std::to_string(rd());
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << "# kiln tuned workgroup sizes: device, driver version, kernel, size x y z, GPU ms\n";
        for (const Line& l : lines)
            out << l.device << '\t' << l.driver << '\t' << l.kernel << '\t' << l.size[0] << ' ' << l.size[1] << ' '
                << l.size[2] << '\t' << l.ms << '\n';
        if (!out.flush()) {
            out.close();
            std::filesystem::remove(tmp, ec);
            throw IoError("save_tuning: could not write '" + tmp + "'");
        }
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw IoError("save_tuning: could not replace '" + path + "'");
    }
}

size_t load_tuning(Context& ctx) {
    const std::string path = tuning_file(ctx);
    if (path.empty()) return 0;
    const std::string device = ctx.device().name, driver = driver_key(ctx);
    size_t applied = 0;
    for (const Line& l : read_lines(path)) {
        if (l.device != device || l.driver != driver) continue;
        try {
            ctx.set_workgroup_size(l.kernel, l.size);
            ++applied;
        } catch (const Error&) {
            // A size this device (or a newer kiln) refuses is simply not used.
        }
    }
    return applied;
}

} // namespace kiln
