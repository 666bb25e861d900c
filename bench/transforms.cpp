// W70-W75: scipy.ndimage's geometric transforms at the sizes (2048^2
// float32 images, 128^3 -> 256^3 volumes), each checked whole against the CPU
// reference (kiln/reference/transforms.hpp); bench/peers_transforms.py holds
// the same calls in cupyx.scipy.ndimage.
#include <cmath>

#include "bench.hpp"
#include "kiln/reference/transforms.hpp"
#include "kiln/transforms.hpp"

namespace kiln::bench {

namespace {

size_t side(Size s, size_t full) {
    return s == Size::full ? full : full / 8;
}

// Within a few float32 roundings of the double reference: the tolerance of
// tests/ops/test_transforms.cpp (2e-6 relative plus 3e-6 of the largest
// input, 1e-6 without a prefilter).
void check(Result& r, const HostArray& got, const HostArray& want, double scale, bool filtered) {
    double err = 0;
    bool ok = got.shape == want.shape;
    for (size_t i = 0; ok && i < want.size(); ++i) {
        const double d = std::abs(got.at(i) - want.at(i));
        err = std::max(err, std::isnan(d) ? INFINITY : d);
        ok = d <= 2e-6 * std::abs(want.at(i)) + (filtered ? 3e-6 : 1e-6) * scale;
    }
    r.checked = true;
    r.ok = ok;
    r.metrics["max_abs_err"] = err;
    if (!ok) r.note = "max abs error " + std::to_string(err);
}

// One workload: `op` on the device input, `ref` on the host one; bytes is
// what the op must read and write at least.
Result run(Context& ctx, Size size, int n, const HostArray& host, const std::function<Array(const Array&)>& op,
           const std::function<HostArray(const HostArray&)>& ref, double bytes, bool filtered) {
    const Array in = Array::from_host(ctx, host);
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = op(in); }, n, 3));
    r.metrics["GB/s"] = bytes / (r.gpu_ms * 1e-3) / 1e9;
    check(r, out.to_host(), ref(host), 1.0, filtered);
    return r;
}

// Uniform values in [0, 1).
HostArray uniform(Shape shape, uint64_t seed) {
    HostArray h(shape, DType::float32);
    uint64_t s = seed;
    for (float& v : h.as<float>()) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        v = float((s >> 40) & 0xFFFFFF) / float(1 << 24);
    }
    return h;
}

HostArray image(size_t n, uint64_t seed) {
    return uniform(Shape{n, n}, seed);
}

const Interp linear{1, InterpMode::constant, 0, true}, cubic{3, InterpMode::constant, 0, true};

Register w70{{"W70", "shift (10.3, -7.7) order 1, 2048^2 float32", "transforms", [](Context& ctx, Size s, int n) {
                  const size_t g = side(s, 2048);
                  return run(ctx, s, n, image(g, 70), [](const Array& a) { return shift(a, {10.3, -7.7}, linear); },
                             [](const HostArray& a) { return cpu::shift(a, {10.3, -7.7}, linear); }, 8.0 * g * g, false);
              }}};

Register w71{{"W71", "zoom 2x order 3 (prefilter included), 1024^2 -> 2048^2 float32", "transforms",
              [](Context& ctx, Size s, int n) {
                  const size_t g = side(s, 1024);
                  return run(ctx, s, n, image(g, 71), [](const Array& a) { return zoom(a, {2.0}, cubic); },
                             [](const HostArray& a) { return cpu::zoom(a, {2.0}, cubic); }, 20.0 * g * g, true);
              }}};

Register w72{{"W72", "rotate 30 degrees order 1 reshape=False, 2048^2 float32", "transforms",
              [](Context& ctx, Size s, int n) {
                  const size_t g = side(s, 2048);
                  return run(ctx, s, n, image(g, 72), [](const Array& a) { return rotate(a, 30, {1, 0}, false, linear); },
                             [](const HostArray& a) { return cpu::rotate(a, 30, {1, 0}, false, linear); }, 8.0 * g * g,
                             false);
              }}};

// A rotation by about 8 degrees with shear and scale, shifted.
const std::vector<double> w73_matrix{1.02, 0.15, -0.12, 0.98}, w73_offset{20, -30};

Register w73{{"W73", "affine_transform order 3 (prefilter included), 2048^2 float32", "transforms",
              [](Context& ctx, Size s, int n) {
                  const size_t g = side(s, 2048);
                  return run(ctx, s, n, image(g, 73),
                             [](const Array& a) { return affine_transform(a, w73_matrix, w73_offset, {}, cubic); },
                             [](const HostArray& a) { return cpu::affine_transform(a, w73_matrix, w73_offset, {}, cubic); },
                             8.0 * g * g, true);
              }}};

Register w74{{"W74", "map_coordinates order 1, 4M random float32 coordinates into 2048^2 float32", "transforms",
              [](Context& ctx, Size s, int n) {
                  const size_t g = side(s, 2048), count = g * g;
                  // Coordinates uniform over [0, g) on both axes, as the peer's.
                  HostArray co = uniform(Shape{2, count}, 740);
                  for (float& v : co.as<float>()) v *= float(g);
                  const Array c = Array::from_host(ctx, co);
                  return run(ctx, s, n, image(g, 74), [&](const Array& a) { return map_coordinates(a, c, linear); },
                             [&](const HostArray& a) { return cpu::map_coordinates(a, co, linear); },
                             4.0 * (g * g + 3 * count), false);
              }}};

Register w75{{"W75", "zoom 2x order 1, 128^3 -> 256^3 float32", "transforms", [](Context& ctx, Size s, int n) {
                  const size_t g = side(s, 128);
                  return run(ctx, s, n, uniform(Shape{g, g, g}, 75), [](const Array& a) { return zoom(a, {2.0}, linear); },
                             [](const HostArray& a) { return cpu::zoom(a, {2.0}, linear); }, 36.0 * g * g * g, false);
              }}};

}  // namespace

}  // namespace kiln::bench
