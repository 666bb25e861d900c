// Diagnostic: how the GPU clock follows kiln's load within one process.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>
#include "kiln/kiln.hpp"
using namespace kiln;
using clk = std::chrono::steady_clock;
static clk::time_point T0 = clk::now();
static double now_s() { return std::chrono::duration<double>(clk::now() - T0).count(); }
int main() {
    ContextOptions o;
    o.timing = Timing::submission;
    Context ctx(o);
    size_t n = 64ull << 20;
    Array a = Array::full(ctx, Shape{n}, 1.0), b = Array::full(ctx, Shape{n}, 2.0), c;
    Array big = Array::full(ctx, Shape{1ull << 28}, 1.0), big2;
    auto add_ms = [&](const char* what) {
        auto r = benchmark(ctx, [&] { c = add(a, b); }, 20, 3);
        std::vector<double> g = r.gpu_ms;
        std::sort(g.begin(), g.end());
        std::printf("%8.2f s  %-34s add %.4f ms\n", now_s(), what, g[g.size() / 2]);
        std::fflush(stdout);
    };
    std::vector<std::unique_ptr<Graph>> graphs;
    std::vector<Array> outs(3);
    for (int i = 0; i < 3; ++i) {
        graphs.push_back(std::make_unique<Graph>(ctx));
        auto cap = graphs.back()->capture();
        outs[i] = copy(big);
    }
    for (auto& g : graphs) g->run();
    auto load = [&](double ms) {
        auto t = clk::now();
        size_t k = 0;
        while (std::chrono::duration<double, std::milli>(clk::now() - t).count() < ms) graphs[k++ % 3]->launch();
        ctx.sync();
        return k;
    };
    add_ms("start");
    std::this_thread::sleep_for(std::chrono::seconds(10));
    add_ms("after 10 s idle");
    for (double T : {100.0, 300.0, 1000.0, 3000.0}) {
        size_t k = load(T);
        char w[64];
        std::snprintf(w, sizeof w, "after %.0f ms sustained (%zu)", T, k);
        add_ms(w);
        add_ms(w);
        std::this_thread::sleep_for(std::chrono::seconds(5));
        add_ms("  then 5 s idle");
    }
    return 0;
}
