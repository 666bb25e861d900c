// W30-W36: the rank and box filters (kiln/rank_filters.hpp) on 2048^2
// float32 images and 256^3 float32 volumes (256^2 and 32^3 at small size),
// uniform random input in [0, 1). Every result is checked: against the CPU
// reference where it takes at most a few seconds, else chosen rows against
// a direct selection (W32).
#include <algorithm>
#include <cmath>

#include "bench.hpp"
#include "kiln/rank_filters.hpp"
#include "kiln/reference/rank_filters.hpp"

namespace kiln::bench {

namespace {

HostArray random_input(Shape shape) {
    std::vector<float> v(shape.size());
    uint32_t state = 12345;
    for (float& x : v) x = float((state = state * 1664525u + 1013904223u) >> 8) / 16777216.0f;
    return HostArray::from(shape, v);
}

Shape shape_of(Size size, bool volume) {
    if (volume) return size == Size::full ? Shape{256, 256, 256} : Shape{32, 32, 32};
    return size == Size::full ? Shape{2048, 2048} : Shape{256, 256};
}

void finish(Result& r, double max_err, double tol) {
    r.checked = true;
    r.ok = max_err <= tol;
    r.metrics["max_abs_err"] = max_err;
    if (!r.ok) r.note = "max abs error " + std::to_string(max_err);
}

double max_diff(const HostArray& got, const HostArray& want) {
    double m = 0;
    for (size_t i = 0; i < got.size(); ++i) m = std::max(m, std::abs(got.at(i) - want.at(i)));
    return m;
}

// Rows of a 2-D reflect-mode box rank filter, selected directly.
double rows_diff(const HostArray& in, const HostArray& got, int box, size_t rank) {
    const ptrdiff_t ny = ptrdiff_t(in.shape.y()), nx = ptrdiff_t(in.shape.x()), h = box / 2;
    auto reflect = [](ptrdiff_t i, ptrdiff_t n) {
        const ptrdiff_t k = (i >= 0 ? i : -i - 1) % (2 * n);
        return k >= n ? 2 * n - 1 - k : k;
    };
    const auto src = in.as<float>();
    const auto out = got.as<float>();
    std::vector<float> w(size_t(box * box));
    double m = 0;
    for (ptrdiff_t y : {ptrdiff_t(0), ptrdiff_t(3), ny / 2, ny - 1})
        for (ptrdiff_t x = 0; x < nx; ++x) {
            size_t n = 0;
            for (ptrdiff_t dy = -h; dy <= h; ++dy)
                for (ptrdiff_t dx = -h; dx <= h; ++dx)
                    w[n++] = src[size_t(reflect(y + dy, ny) * nx + reflect(x + dx, nx))];
            std::nth_element(w.begin(), w.begin() + ptrdiff_t(rank), w.end());
            m = std::max(m, double(std::abs(out[size_t(y * nx + x)] - w[rank])));
        }
    return m;
}

// A rank filter of a box, timed and checked (exact: the outputs are inputs).
Result rank_workload(Context& ctx, Size size, int n, bool volume, int box, double percentile) {
    const HostArray hin = random_input(shape_of(size, volume));
    const Array in = Array::from_host(ctx, hin);
    const Footprint f = Footprint::box(std::vector<int64_t>(hin.shape.ndim(), box));
    const int64_t rank = percentile < 0 ? int64_t(f.count() / 2) : percentile_rank(percentile, f.count());
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = rank_filter(in, rank, f); }, n, 3));
    r.metrics["Mpix/s"] = double(hin.size()) / (r.gpu_ms * 1e-3) / 1e6;
    const HostArray got = out.to_host();
    const bool whole = size == Size::small || uint64_t(f.count()) * hin.size() <= (uint64_t(1) << 31);
    finish(r, whole ? max_diff(got, cpu::rank_filter(hin, rank, f)) : rows_diff(hin, got, box, size_t(rank)), 0);
    return r;
}

Result uniform_workload(Context& ctx, Size size, int n, bool volume, int box) {
    const HostArray hin = random_input(shape_of(size, volume));
    const Array in = Array::from_host(ctx, hin);
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = uniform_filter(in, {box}); }, n, 3));
    r.metrics["GB/s"] = 2.0 * double(hin.nbytes()) / (r.gpu_ms * 1e-3) / 1e9;
    // Each pass is within (box + 1) float32 units of the inputs' scale (1)
    // of SciPy's double sums (tests/ops/test_rank_filters.cpp).
    const double units = 1 + double(hin.shape.ndim()) * (box + 1);
    finish(r, max_diff(out.to_host(), cpu::uniform_filter(hin, {box})), units * std::ldexp(1.0, -23));
    return r;
}

Register w30{{"W30", "median_filter 3x3, 2048^2 float32", "rank_filters",
              [](Context& ctx, Size s, int n) { return rank_workload(ctx, s, n, false, 3, -1); }}};
Register w31{{"W31", "median_filter 7x7, 2048^2 float32", "rank_filters",
              [](Context& ctx, Size s, int n) { return rank_workload(ctx, s, n, false, 7, -1); }}};
Register w32{{"W32", "median_filter 15x15, 2048^2 float32", "rank_filters",
              [](Context& ctx, Size s, int n) { return rank_workload(ctx, s, n, false, 15, -1); }}};
Register w33{{"W33", "percentile_filter 25 5x5, 2048^2 float32", "rank_filters",
              [](Context& ctx, Size s, int n) { return rank_workload(ctx, s, n, false, 5, 25); }}};
Register w34{{"W34", "uniform_filter size 15, 2048^2 float32", "rank_filters",
              [](Context& ctx, Size s, int n) { return uniform_workload(ctx, s, n, false, 15); }}};
Register w35{{"W35", "median_filter 3x3x3, 256^3 float32", "rank_filters",
              [](Context& ctx, Size s, int n) { return rank_workload(ctx, s, n, true, 3, -1); }}};
Register w36{{"W36", "uniform_filter 5x5x5, 256^3 float32", "rank_filters",
              [](Context& ctx, Size s, int n) { return uniform_workload(ctx, s, n, true, 5); }}};

}  // namespace

}  // namespace kiln::bench
