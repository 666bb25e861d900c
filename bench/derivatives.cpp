// W40-W46: the derivative filters (kiln/derivatives.hpp) on a 2048^2
// float32 image (256^2 at small size) and a 256^3 float32 volume (32^3),
// each result checked whole against the CPU reference.
#include <algorithm>
#include <cmath>
#include <functional>

#include "bench.hpp"
#include "host/gaussian_weights.hpp"
#include "kiln/derivatives.hpp"
#include "kiln/filters.hpp"
#include "kiln/reference/derivatives.hpp"
#include "kiln/reference/gaussian.hpp"

namespace kiln::bench {

namespace {

struct Spec {
    std::function<Array(const Array&)> gpu;
    std::function<HostArray(const HostArray&)> cpu;
    // sum of |weight| products of one output (derivative weights sum to 0).
    double gain;
};

HostArray uniform(Shape shape) {
    HostArray h(shape, DType::float32);
    uint32_t state = 12345;
    for (float& v : h.as<float>()) v = float((state = state * 1664525u + 1013904223u) >> 8) / 16777216.0f;
    return h;
}

double l1(std::vector<double> w) {
    double s = 0;
    for (double v : w) s += std::abs(v);
    return s;
}

Result run(Context& ctx, Size size, Shape shape, const Spec& spec, int n) {
    const HostArray host = uniform(shape);
    const Array image = Array::from_host(ctx, host);
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = spec.gpu(image); }, n, 3));
    r.metrics["GB/s"] = 2.0 * double(host.nbytes()) / (r.gpu_ms * 1e-3) / 1e9;
    // float32 passes of at most 17 taps, a few of them: within ~50 eps32 of
    // gain * max |input| (= 1), as tests/derivatives_fixture.hpp argues.
    const HostArray got = out.to_host(), want = spec.cpu(host);
    double err = 0;
    for (size_t i = 0; i < got.size(); ++i) err = std::max(err, std::abs(got.at(i) - want.at(i)));
    if (std::isnan(err)) err = INFINITY;
    r.checked = true;
    r.ok = err <= 3e-6 * spec.gain;
    r.metrics["max_abs_err"] = err;
    if (!r.ok) r.note = "max abs error " + std::to_string(err) + " against " + std::to_string(3e-6 * spec.gain);
    return r;
}

Shape image_shape(Size s) {
    const size_t side = s == Size::full ? 2048 : 256;
    return Shape{side, side};
}

// gaussian_laplace / gradient magnitude gain at sigma 2 in 2-D: sum over the
// axes of l1(order weights) * l1(smoothing weights) (= 1).
double gaussian_gain(int order) {
    return 2 * l1(gaussian_kernel1d(2.0, 4.0, order));
}

Register w40{{"W40", "sobel axis 0, 2048^2 float32", "derivatives", [](Context& ctx, Size s, int n) {
                  return run(ctx, s, image_shape(s),
                             {[](const Array& a) { return sobel(a, 0); },
                              [](const HostArray& a) { return cpu::sobel(a, 0); }, 8},
                             n);
              }}};

Register w41{{"W41", "laplace, 2048^2 float32", "derivatives", [](Context& ctx, Size s, int n) {
                  return run(ctx, s, image_shape(s),
                             {[](const Array& a) { return laplace(a); },
                              [](const HostArray& a) { return cpu::laplace(a); }, 8},
                             n);
              }}};

Register w42{{"W42", "gaussian_laplace sigma 2, 2048^2 float32", "derivatives", [](Context& ctx, Size s, int n) {
                  return run(ctx, s, image_shape(s),
                             {[](const Array& a) { return gaussian_laplace(a, {0, 2, 2}); },
                              [](const HostArray& a) { return cpu::gaussian_laplace(a, {0, 2, 2}); },
                              gaussian_gain(2)},
                             n);
              }}};

Register w43{{"W43", "gaussian_gradient_magnitude sigma 2, 2048^2 float32", "derivatives",
              [](Context& ctx, Size s, int n) {
                  return run(ctx, s, image_shape(s),
                             {[](const Array& a) { return gaussian_gradient_magnitude(a, {0, 2, 2}); },
                              [](const HostArray& a) { return cpu::gaussian_gradient_magnitude(a, {0, 2, 2}); },
                              gaussian_gain(1)},
                             n);
              }}};

Register w44{{"W44", "gaussian_filter sigma 2 order (0, 1), 2048^2 float32", "derivatives",
              [](Context& ctx, Size s, int n) {
                  return run(
                      ctx, s, image_shape(s),
                      {[](const Array& a) { return gaussian_filter(a, {0, 2, 2}, NdMode::reflect, 0, 4, {0, 0, 1}); },
                       [](const HostArray& a) {
                           return cpu::gaussian_filter(a, {0, 2, 2}, NdMode::reflect, 0, 4, {0, 0, 1});
                       },
                       gaussian_gain(1) / 2},
                      n);
              }}};

Register w45{{"W45", "difference_of_gaussians (1, 1.6), 2048^2 float32", "derivatives",
              [](Context& ctx, Size s, int n) {
                  return run(ctx, s, image_shape(s),
                             {[](const Array& a) { return difference_of_gaussians(a, 1.0, 1.6); },
                              [](const HostArray& a) { return cpu::difference_of_gaussians(a, 1.0, 1.6); }, 2},
                             n);
              }}};

Register w46{{"W46", "sobel axis 0, 256^3 float32", "derivatives", [](Context& ctx, Size s, int n) {
                  const size_t side = s == Size::full ? 256 : 32;
                  return run(ctx, s, Shape{side, side, side},
                             {[](const Array& a) { return sobel(a, 0); },
                              [](const HostArray& a) { return cpu::sobel(a, 0); }, 32},
                             n);
              }}};

}  // namespace

}  // namespace kiln::bench
