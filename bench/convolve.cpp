// W1-W5: the CuPy lesson's convolutions and the Gaussian filter. Every
// workload checks its result: whole for the small sizes, chosen rows (or
// stretches) against a direct double-precision sum for the full ones.
#include <chrono>
#include <cmath>
#include <cstring>

#include "bench.hpp"
#include "kiln/convolve.hpp"
#include "kiln/filters.hpp"

namespace kiln::bench {

namespace {

using clock_type = std::chrono::steady_clock;

// The lesson's inputs: a Dirac grid (ones at [8::16, 8::16]) and the 15 x 15
// Gaussian exp(-(x^2 + y^2) / 2) over linspace(-2, 2, 15), float32.
std::vector<float> dirac_grid(size_t n) {
    std::vector<float> g(n * n, 0.0f);
    for (size_t y = 8; y < n; y += 16)
        for (size_t x = 8; x < n; x += 16) g[y * n + x] = 1.0f;
    return g;
}

std::vector<float> lesson_gaussian() {
    std::vector<double> x(15);
    for (int i = 0; i < 15; ++i) x[i] = i == 14 ? 2.0 : -2.0 + i * (4.0 / 14.0);
    std::vector<float> k(225);
    for (int j = 0; j < 15; ++j)
        for (int i = 0; i < 15; ++i) {
            double d = std::sqrt(x[i] * x[i] + x[j] * x[j]);
            k[j * 15 + i] = static_cast<float>(std::exp(-(d * d / 2.0)));
        }
    return k;
}

size_t grid_size(Size s) {
    return s == Size::full ? 2048 : 256;
}

// Rows to check: the edges, and a few inside.
std::vector<size_t> rows_to_check(size_t rows) {
    return {0, 1, 7, rows / 3, rows / 2 + 5, rows - 8, rows - 1};
}

// |got - want| <= 1e-5 * max |want| + tol_abs over the checked values.
struct Checker {
    double max_err = 0, max_want = 0;
    void add(double got, double want) {
        max_err = std::max(max_err, std::abs(got - want));
        if (std::isnan(got)) max_err = INFINITY;
        max_want = std::max(max_want, std::abs(want));
    }
    void finish(Result& r, double rtol) const {
        r.checked = true;
        r.ok = max_err <= rtol * max_want + 1e-30;
        r.metrics["max_abs_err"] = max_err;
        if (!r.ok)
            r.note = "max abs error " + std::to_string(max_err) + " of " + std::to_string(max_want);
    }
};

// convolve2d full, fill 0, of rows `rows` in double.
void check_convolve2d_rows(Result& r, const std::vector<float>& img, size_t n,
                           const std::vector<float>& k, size_t kn, const std::vector<float>& got) {
    const size_t on = n + kn - 1;
    Checker c;
    for (size_t m : rows_to_check(on))
        for (size_t x = 0; x < on; ++x) {
            double s = 0;
            for (size_t j = 0; j < kn; ++j)
                for (size_t i = 0; i < kn; ++i) {
                    const ptrdiff_t y = ptrdiff_t(m) - ptrdiff_t(j),
                                    xx = ptrdiff_t(x) - ptrdiff_t(i);
                    if (y >= 0 && y < ptrdiff_t(n) && xx >= 0 && xx < ptrdiff_t(n))
                        s += double(k[j * kn + i]) * img[size_t(y) * n + size_t(xx)];
                }
            c.add(got[m * on + x], s);
        }
    c.finish(r, 1e-5);
}

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

Result w1(Context& ctx, Size size, int n, bool rank_two) {
    const size_t g = grid_size(size);
    const std::vector<float> img = dirac_grid(g);
    std::vector<float> k = lesson_gaussian();
    if (rank_two) k[3 * 15 + 5] += 1e-3f;  // no longer rank one: the general tiled kernel
    const Array image = Array::from(ctx, Shape{g, g}, img),
                kernel = Array::from(ctx, Shape{15, 15}, k);
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = convolve2d(image, kernel); }, n, 3));
    const double outputs = double(g + 14) * (g + 14);
    r.metrics["GFLOP/s"] = (rank_two ? 2.0 * 225 : 2.0 * 30) * outputs / (r.gpu_ms * 1e-3) / 1e9;
    check_convolve2d_rows(r, img, g, k, 15, out.to_vector<float>());
    return r;
}

enum class HostMemory { pinned, pageable, pageable_import, graph };

// W2: push the image (and the kernel), convolve, pull the result; wall time.
Result w2(Context& main_ctx, Size size, int n, HostMemory memory, bool kernel_array) {
    ContextOptions o;
    o.timing = Timing::submission;
    o.device_index = main_ctx.device().index;
    if (memory == HostMemory::pageable_import) o.import_threshold = 0;
    Context ctx(o);
    const size_t g = grid_size(size), on = g + 14;
    const std::vector<float> grid = dirac_grid(g), k = lesson_gaussian();
    std::vector<float> pageable_in(grid), pageable_out(on * on);
    PinnedBuffer pin_in, pin_out;
    std::span<float> in(pageable_in), out(pageable_out);
    const bool pageable = memory == HostMemory::pageable || memory == HostMemory::pageable_import;
    if (!pageable) {
        pin_in = PinnedBuffer(ctx, grid.size() * 4);
        pin_out = PinnedBuffer(ctx, on * on * 4);
        in = pin_in.as<float>();
        out = pin_out.as<float>();
        std::memcpy(in.data(), grid.data(), grid.size() * 4);
    }
    const HostArray host_kernel = HostArray::from(Shape{15, 15}, k);
    Array image = Array::empty(ctx, Shape{g, g}), kernel = Array::empty(ctx, Shape{15, 15});
    Result r;
    std::vector<double> wall, gpu, push_wall;
    // A captured graph reads the pinned input and fills the pinned output at
    // every run: push, convolution and pull in one submission.
    Graph graph(ctx);
    if (memory == HostMemory::graph) {
        auto capture = graph.capture();
        image.push(std::span<const float>(in));
        convolve2d(image, host_kernel).pull(out);
    }
    auto once = [&] {
        const uint64_t before = ctx.profile().submission_count();
        auto t0 = clock_type::now();
        if (memory == HostMemory::graph) {
            graph.run();
            wall.push_back(ms_since(t0));
            const std::vector<double> subs = ctx.profile().submissions_since(before);
            gpu.push_back(subs.empty() ? 0 : subs.back());
            return;
        }
        image.push(std::span<const float>(in));
        push_wall.push_back(ms_since(t0));
        Array res;
        if (kernel_array) {
            kernel.push(std::span<const float>(k));
            res = convolve2d(image, kernel);
        } else {
            res = convolve2d(image, host_kernel);
        }
        res.pull(out);
        wall.push_back(ms_since(t0));
        double s = 0;
        for (double d : ctx.profile().submissions_since(before)) s += d;
        gpu.push_back(s);
    };
    for (int i = 0; i < 3; ++i) once();
    wall.clear(), gpu.clear(), push_wall.clear();
    hold_clock(ctx, size);
    for (int i = 0; i < n; ++i) once();
    r.wall_ms = median_of(wall);
    r.gpu_ms = median_of(gpu);
    r.gpu_min = *std::min_element(gpu.begin(), gpu.end());
    r.gpu_max = *std::max_element(gpu.begin(), gpu.end());
    r.metrics["wall_min_ms"] = *std::min_element(wall.begin(), wall.end());
    r.metrics["GB/s"] = (grid.size() + on * on) * 4.0 / (r.wall_ms * 1e-3) / 1e9;
    // Where the wall time goes: the push's return, then the convolution and
    // the pull (which waits for it).
    if (!push_wall.empty()) r.metrics["push_ms"] = median_of(push_wall);
    check_convolve2d_rows(r, grid, g, k, 15, std::vector<float>(out.begin(), out.end()));
    if (r.ok) {
        // What the wall time holds besides the DMA and the kernel.
        if (memory == HostMemory::graph)
            r.note = "one submission: push, convolution, pull";
        else if (kernel_array)
            r.note = "push, read-back of the kernel for the rank test, pull: 3 round trips";
        else
            r.note = memory == HostMemory::pinned
                         ? "push (synchronous), then convolution and pull"
                         : memory == HostMemory::pageable ? "pageable memory, defaults"
                                                          : "pageable, the caller's pages imported";
    }
    return r;
}

Register w1_sep{{"W1", "convolve2d full 2048^2 x 15^2 lesson Gaussian (rank one)", "convolve",
                 [](Context& ctx, Size s, int n) { return w1(ctx, s, n, false); }}};
Register w1_2d{{"W1-2d", "W1 with a rank-two kernel: general tiled path", "convolve",
                [](Context& ctx, Size s, int n) { return w1(ctx, s, n, true); }}};
Register w2_pin{
    {"W2", "W1 + push image, pull result; PinnedBuffer, host kernel", "convolve",
     [](Context& ctx, Size s, int n) { return w2(ctx, s, n, HostMemory::pinned, false); }}};
Register w2_pin_array{
    {"W2-ka", "W2 with the kernel pushed as an Array too", "convolve",
     [](Context& ctx, Size s, int n) { return w2(ctx, s, n, HostMemory::pinned, true); }}};
Register w2_graph{
    {"W2-g", "W2 as a captured graph (pinned): one submission", "convolve",
     [](Context& ctx, Size s, int n) { return w2(ctx, s, n, HostMemory::graph, false); }}};
Register w2_pageable{
    {"W2-pg", "W2 from pageable memory, host kernel", "convolve",
     [](Context& ctx, Size s, int n) { return w2(ctx, s, n, HostMemory::pageable, false); }}};
Register w2_pageable_import{
    {"W2-pg.imp", "W2-pg importing the caller's pages", "convolve",
     [](Context& ctx, Size s, int n) { return w2(ctx, s, n, HostMemory::pageable_import, false); }}};

// W3: numpy.convolve of the raveled grid with the Gaussian's diagonal, float64.
Register w3{{"W3", "convolve 4M float64 raveled grid x 15-tap diagonal", "convolve",
             [](Context& ctx, Size size, int n) {
                 const size_t g = grid_size(size), len = g * g;
                 const std::vector<float> grid = dirac_grid(g), k = lesson_gaussian();
                 std::vector<double> a(grid.begin(), grid.end()), v(15);
                 for (int i = 0; i < 15; ++i) v[i] = k[i * 15 + i];
                 const Array aa = Array::from(ctx, Shape{len}, a),
                             vv = Array::from(ctx, Shape{15}, v);
                 Array out;
                 Result r;
                 take_times(r, timed(ctx, size, [&] { out = convolve(aa, vv); }, n, 3));
                 r.metrics["GB/s"] = (len + len + 14) * 8.0 / (r.gpu_ms * 1e-3) / 1e9;
                 const std::vector<double> got = out.to_vector<double>();
                 Checker c;
                 for (size_t start : {size_t(0), len / 2, len + 14 - 2000})
                     for (size_t i = start; i < start + 2000; ++i) {
                         double s = 0;
                         for (size_t t = 0; t < 15; ++t)
                             if (i >= t && i - t < len) s += v[t] * a[i - t];
                         c.add(got[i], s);
                     }
                 c.finish(r, 1e-12);
                 return r;
             }}};

// W4, W5: gaussian_filter sigma 2 (17 weights, mode reflect) of a float32 image.
Result gaussian(Context& ctx, Size size, size_t side, int n) {
    std::vector<float> img(side * side);
    uint32_t state = 12345;
    for (float& v : img) v = float((state = state * 1664525u + 1013904223u) >> 8) / 16777216.0f;
    const Array image = Array::from(ctx, Shape{side, side}, img);
    Array out;
    Result r;
    take_times(r, timed(ctx, size,
                      [&] {
                          out = gaussian_filter(image, {0, 2, 2});
                      },
                      n, 3));
    r.metrics["GB/s"] = 2.0 * side * side * 4 / (r.gpu_ms * 1e-3) / 1e9;
    // Rows in double, as SciPy: a y pass rounded to float32, then an x pass.
    std::vector<double> w(17);
    double total = 0;
    for (int i = 0; i < 17; ++i) total += w[i] = std::exp(-0.5 / 4.0 * (i - 8) * (i - 8));
    for (double& x : w) x /= total;
    auto reflect = [&](ptrdiff_t i) {
        const ptrdiff_t s = ptrdiff_t(side), k = (i >= 0 ? i : -i - 1) % (2 * s);
        return size_t(k >= s ? 2 * s - 1 - k : k);
    };
    const std::vector<float> got = out.to_vector<float>();
    Checker c;
    std::vector<float> mid(side);
    for (size_t m : rows_to_check(side)) {
        for (size_t x = 0; x < side; ++x) {
            double s = 0;
            for (int j = 0; j < 17; ++j) s += w[j] * img[reflect(ptrdiff_t(m) + 8 - j) * side + x];
            mid[x] = float(s);
        }
        for (size_t x = 0; x < side; ++x) {
            double s = 0;
            for (int i = 0; i < 17; ++i) s += w[i] * mid[reflect(ptrdiff_t(x) + 8 - i)];
            c.add(got[m * side + x], s);
        }
    }
    c.finish(r, 1e-5);
    return r;
}

Register w4{
    {"W4", "gaussian_filter sigma 2, 2048^2 float32", "convolve",
     [](Context& ctx, Size s, int n) { return gaussian(ctx, s, s == Size::full ? 2048 : 256, n); }}};
Register w5{
    {"W5", "gaussian_filter sigma 2, 8192^2 float32", "convolve",
     [](Context& ctx, Size s, int n) { return gaussian(ctx, s, s == Size::full ? 8192 : 512, n); }}};

}  // namespace

}  // namespace kiln::bench
