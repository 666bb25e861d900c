// kiln-bench: runs the registered workloads, prints a table, writes JSON.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>

#include "bench.hpp"
#include "kiln/sky.hpp"
#include "kiln/version.hpp"

namespace kiln::bench {

std::vector<Workload>& registry() {
    static std::vector<Workload> r;
    return r;
}

const SkyInput& sky_input(Size size) {
    static std::unique_ptr<SkyInput> cache[2];
    auto& s = cache[size == Size::full];
    if (!s) {
        kiln::SkyParams p;
        if (size == Size::small) {
            p.size = 256;
            p.n_compact = 40;
            p.n_shells = 2;
        }
        s = std::make_unique<SkyInput>();
        s->image = kiln::synthetic_sky(p);
        s->clip = cpu::kappa_sigma_clip(s->image, 3.0, 100, true);
    }
    return *s;
}

namespace {
double hold_ms = 400;

struct ClockLoad {
    Context* ctx = nullptr;
    Array source;
    std::vector<Array> outs;
    std::vector<std::unique_ptr<Graph>> graphs;
};
} // namespace

void set_hold_clock_ms(double ms) { hold_ms = ms; }

void hold_clock(Context& ctx, Size size) {
    if (size == Size::small || hold_ms <= 0) return;
    static ClockLoad load;
    if (load.ctx != &ctx) {
        load = ClockLoad{};
        load.ctx = &ctx;
        load.source = Array::full(ctx, Shape{16ull << 20}, 1.0);  // 64 MiB: ~30 us of copy
        load.outs.resize(3);
        for (int i = 0; i < 3; ++i) {
            load.graphs.push_back(std::make_unique<Graph>(ctx));
            auto capture = load.graphs.back()->capture();
            load.outs[i] = copy(load.source);
        }
        for (auto& g : load.graphs) g->run();
    }
    // Three recorded graphs in turn keep the queue from running dry.
    auto t0 = std::chrono::steady_clock::now();
    size_t k = 0;
    while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() < hold_ms)
        for (int i = 0; i < 16; ++i) load.graphs[k++ % 3]->launch();
    ctx.sync();
}

BenchmarkResult timed(Context& ctx, Size size, const std::function<void()>& fn, int n_repeat, int n_warmup) {
    hold_clock(ctx, size);
    return benchmark(ctx, fn, n_repeat, n_warmup);
}

void take_times(Result& r, const BenchmarkResult& b) {
    r.gpu_ms = b.gpu_median();
    r.gpu_min = b.gpu_min();
    r.gpu_max = b.gpu_max();
    r.wall_ms = b.cpu_median();
}

namespace {

std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (c == '\n') {
            o += "\\n";
            continue;
        }
        o += c;
    }
    return o;
}

std::string today() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
    return buf;
}

} // namespace

} // namespace kiln::bench

int main(int argc, char** argv) {
    using namespace kiln;
    using namespace kiln::bench;
    CLI::App app{"kiln-bench: GPU times (timestamp queries, median of repeats) of kiln's workloads"};
    std::string size_name = "full", json_path, filter, device;
    int repeats = 20;
    bool list = false;
    app.add_option("--size", size_name, "full (REFERENCE.md sizes) or small (quick check, e.g. on lavapipe)")
        ->check(CLI::IsMember({"full", "small"}))
        ->capture_default_str();
    app.add_option("--repeat", repeats, "Timed repetitions per workload (after warm-up)")->capture_default_str();
    app.add_option("--json", json_path, "Write the results as JSON to this file");
    app.add_option("--filter", filter, "Run only workloads whose id, name or family contains this text");
    std::vector<std::string> only;
    app.add_option("--id", only, "Run only the workloads of exactly these ids (repeatable; with --filter, both apply)");
    app.add_option("--device", device, "Device index or part of its name");
    app.add_flag("--list", list, "List the workloads and exit");
    double hold = 400;
    app.add_option("--hold-clock-ms", hold,
                   "Before each timed workload, keep the GPU busy this long so its clock is at the sustained-load "
                   "level (0: off; the driver idles the clock between the benchmark's short bursts)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 10000.0));
    bool profile = false;
    app.add_flag("--profile", profile,
                 "Time every kernel too (timestamps around each node, which add to the workloads' times) and "
                 "print the per-kernel table at the end");
    bool tuned = false;
    app.add_flag("--tuned", tuned, "Use the workgroup sizes `kiln tune` saved for this device");
    CLI11_PARSE(app, argc, argv);

    if (list) {
        for (auto& w : registry()) std::cout << w.id << "\t" << w.family << "\t" << w.name << "\n";
        return 0;
    }
    try {
        ContextOptions o;
        // Per-node timestamps add to what is measured: only with --profile.
        o.timing = profile ? Timing::nodes : Timing::submission;
        if (!device.empty()) {
            if (device.find_first_not_of("0123456789") == std::string::npos) o.device_index = std::stoul(device);
            else o.device_name = device;
        }
        Context ctx(o);
        if (tuned) load_tuning(ctx);
        set_hold_clock_ms(hold);
        Size size = size_name == "small" ? Size::small : Size::full;
        std::vector<Result> results;
        std::printf("kiln-bench on %s (%s), size %s, %d repeats\n", ctx.device().name.c_str(),
                    ctx.device().driver.c_str(), size_name.c_str(), repeats);
        std::printf("%-6s %-44s %10s %10s %10s %10s  %s\n", "id", "workload", "GPU ms", "min", "max", "wall ms",
                    "metrics");
        bool all_ok = true;
        // A fixed order, whatever the static registration order: the
        // engine's own figures first, then the workloads by REFERENCE.md id.
        std::vector<Workload> order = registry();
        auto rank = [](const Workload& w) {
            static const std::vector<std::string> families{"core", "transfer", "convolve", "reduce", "astro", "lessons", "azimuthal"};
            auto it = std::find(families.begin(), families.end(), w.family);
            return it - families.begin();
        };
        std::stable_sort(order.begin(), order.end(), [&](const Workload& a, const Workload& b) { return rank(a) < rank(b); });
        for (auto& w : order) {
            if (!filter.empty() && w.id.find(filter) == std::string::npos &&
                w.name.find(filter) == std::string::npos && w.family.find(filter) == std::string::npos)
                continue;
            if (!only.empty() && std::find(only.begin(), only.end(), w.id) == only.end()) continue;
            Result r;
            try {
                r = w.run(ctx, size, repeats);
            } catch (const std::exception& e) {
                r.ok = false;
                r.note = e.what();
            }
            r.id = w.id;
            r.name = w.name;
            all_ok = all_ok && r.ok;
            std::string m;
            for (auto& [k, v] : r.metrics) {
                char b[64];
                std::snprintf(b, sizeof b, "%s=%.4g ", k.c_str(), v);
                m += b;
            }
            if (r.checked) m += "check=ok ";
            if (!r.ok) m += "FAILED: " + r.note;
            std::printf("%-6s %-44s %10.4f %10.4f %10.4f %10.4f  %s\n", r.id.c_str(), r.name.c_str(), r.gpu_ms,
                        r.gpu_min, r.gpu_max, r.wall_ms, m.c_str());
            std::fflush(stdout);
            results.push_back(r);
        }
        if (!json_path.empty()) {
            std::ofstream out(json_path);
            out << "{\n  \"date\": \"" << today() << "\",\n  \"device\": \"" << json_escape(ctx.device().name)
                << "\",\n  \"driver\": \"" << json_escape(ctx.device().driver) << "\",\n  \"vulkan\": \""
                << ctx.device().api_version << "\",\n  \"kiln\": \"" << KILN_VERSION << "\",\n  \"size\": \""
                << size_name << "\",\n  \"repeats\": " << repeats << ",\n  \"results\": [\n";
            for (size_t i = 0; i < results.size(); ++i) {
                auto& r = results[i];
                out << "    {\"id\": \"" << r.id << "\", \"name\": \"" << json_escape(r.name) << "\", \"gpu_ms\": "
                    << r.gpu_ms << ", \"gpu_min_ms\": " << r.gpu_min << ", \"gpu_max_ms\": " << r.gpu_max
                    << ", \"wall_ms\": " << r.wall_ms << ", \"checked\": " << (r.checked ? "true" : "false")
                    << ", \"ok\": " << (r.ok ? "true" : "false") << ", \"note\": \"" << json_escape(r.note)
                    << "\", \"metrics\": {";
                bool first = true;
                for (auto& [k, v] : r.metrics) {
                    out << (first ? "" : ", ") << "\"" << k << "\": " << v;
                    first = false;
                }
                out << "}}" << (i + 1 < results.size() ? "," : "") << "\n";
            }
            out << "  ]\n}\n";
        }
        // What the context still holds after all workloads (to spot leaks).
        std::cerr << ctx.memory_stats().str();
        if (profile) std::cout << ctx.profile().table();
        if (ctx.validation_message_count()) {
            std::cerr << "kiln-bench: " << ctx.validation_message_count() << " Vulkan validation message(s)\n";
            return 1;
        }
        return all_ok ? 0 : 1;
    } catch (const kiln::Error& e) {
        std::cerr << "kiln-bench: error: " << e.what() << "\n";
        return 1;
    }
}
