// W20-W25: the morphology and minimum/maximum filters against CuPy's
// cupyx.scipy.ndimage (bench/peers_morphology.py builds the same inputs).
// Every result is checked whole: the grey and binary ones against the CPU
// reference, binary_fill_holes against a breadth-first flood of the
// background from the edges (4-connected).
#include <deque>

#include "bench.hpp"
#include "kiln/morphology.hpp"
#include "kiln/reference/morphology.hpp"

namespace kiln::bench {

namespace {

size_t side(Size s, size_t full) { return s == Size::full ? full : 256; }

// Values in [0, 1) from a multiplicative hash of the index (peers: the same
// formula in NumPy).
HostArray hashed(Shape shape) {
    HostArray h(shape, DType::float32);
    auto v = h.as<float>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(uint32_t(uint64_t(i) * 2654435761u) >> 8) / float(1 << 24);
    return h;
}

// Rings on a 32-pixel grid, each around a hole (peers: the same formula).
HostArray rings(size_t n) {
    HostArray h(Shape{n, n}, DType::uint8);
    auto v = h.as<uint8_t>();
    for (size_t y = 0; y < n; ++y)
        for (size_t x = 0; x < n; ++x) {
            const long dy = long(y % 32) - 16, dx = long(x % 32) - 16, r2 = dy * dy + dx * dx;
            const long rin = 6 + long((y / 32) * 7 + (x / 32) * 3) % 5, rout = rin + 3;
            v[y * n + x] = r2 >= rin * rin && r2 < rout * rout;
        }
    return h;
}

void check_exact(Result& r, const HostArray& got, const HostArray& want) {
    r.checked = true;
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) bad += got.at(i) != want.at(i);
    r.ok = bad == 0 && got.dtype == want.dtype;
    r.metrics["mismatches"] = double(bad);
    if (!r.ok) r.note = std::to_string(bad) + " elements differ from the CPU reference";
}

Result grey(Context& ctx, Size size, int n, Shape shape, std::vector<int64_t> box, bool maximum) {
    const HostArray host = hashed(shape);
    const Array in = Array::from_host(ctx, host);
    const Footprint f = Footprint::box(box);
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = maximum ? maximum_filter(in, f) : grey_erosion(in, f); }, n, 3));
    r.metrics["GB/s"] = 2.0 * host.nbytes() / (r.gpu_ms * 1e-3) / 1e9;
    check_exact(r, out.to_host(),
                maximum ? cpu::min_or_max_filter(host, f, {}, NdMode::reflect, 0, false)
                        : cpu::grey_erosion(host, f));
    return r;
}

// Background reached from the edges through 4-neighbours; the rest is filled.
HostArray flood_fill_holes(const HostArray& mask) {
    const size_t ny = mask.shape[0], nx = mask.shape[1];
    auto m = mask.as<uint8_t>();
    HostArray out(mask.shape, DType::uint8);
    auto o = out.as<uint8_t>();
    std::fill(o.begin(), o.end(), uint8_t(1));
    std::deque<size_t> todo;
    auto visit = [&](size_t i) {
        if (!m[i] && o[i]) o[i] = 0, todo.push_back(i);
    };
    for (size_t x = 0; x < nx; ++x) visit(x), visit((ny - 1) * nx + x);
    for (size_t y = 0; y < ny; ++y) visit(y * nx), visit(y * nx + nx - 1);
    while (!todo.empty()) {
        const size_t i = todo.front(), y = i / nx, x = i % nx;
        todo.pop_front();
        if (x > 0) visit(i - 1);
        if (x + 1 < nx) visit(i + 1);
        if (y > 0) visit(i - nx);
        if (y + 1 < ny) visit(i + nx);
    }
    return out;
}

Result binary(Context& ctx, Size size, int n, Array (*op)(const Array&), HostArray (*reference)(const HostArray&)) {
    const HostArray host = rings(side(size, 2048));
    const Array in = Array::from_host(ctx, host);
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = op(in); }, n, 3));
    r.metrics["GB/s"] = 2.0 * host.nbytes() / (r.gpu_ms * 1e-3) / 1e9;
    check_exact(r, out.to_host(), reference(host));
    return r;
}

Register w20{{"W20", "grey_erosion size 3x3, 2048^2 float32", "morphology", [](Context& ctx, Size s, int n) {
                  const size_t g = side(s, 2048);
                  return grey(ctx, s, n, Shape{g, g}, {3, 3}, false);
              }}};
Register w21{{"W21", "grey_erosion size 15x15, 2048^2 float32", "morphology", [](Context& ctx, Size s, int n) {
                  const size_t g = side(s, 2048);
                  return grey(ctx, s, n, Shape{g, g}, {15, 15}, false);
              }}};
Register w22{{"W22", "binary_erosion 3x3 cross, 2048^2 uint8 rings, iterations 1", "morphology",
              [](Context& ctx, Size size, int n) {
                  return binary(ctx, size, n, [](const Array& a) { return binary_erosion(a); },
                                [](const HostArray& h) { return cpu::binary_erosion(h, {}, 1, nullptr, false); });
              }}};
Register w23{{"W23", "binary_fill_holes, 2048^2 uint8 rings (cross)", "morphology",
              [](Context& ctx, Size size, int n) {
                  return binary(ctx, size, n, [](const Array& a) { return binary_fill_holes(a); }, flood_fill_holes);
              }}};
Register w24{{"W24", "grey_erosion size 3x3x3, 256^3 float32", "morphology", [](Context& ctx, Size s, int n) {
                  const size_t g = s == Size::full ? 256 : 48;
                  return grey(ctx, s, n, Shape{g, g, g}, {3, 3, 3}, false);
              }}};
Register w25{{"W25", "maximum_filter size 5x5, 2048^2 float32", "morphology", [](Context& ctx, Size s, int n) {
                  const size_t g = side(s, 2048);
                  return grey(ctx, s, n, Shape{g, g}, {5, 5}, true);
              }}};

}  // namespace

}  // namespace kiln::bench
