// W80-W85: the FFTs (VkFFT through kiln's plans) and fftconvolve, against
// CuPy's cp.fft and cupyx.scipy.signal.fftconvolve (bench/peers_fft.py).
// Each checks a few output bins against a direct DFT in double.
#include <cmath>
#include <complex>
#include <random>

#include "bench.hpp"
#include "kiln/fft.hpp"

namespace kiln::bench {

namespace {

using cd = std::complex<double>;

std::vector<float> noise(size_t n, uint32_t seed) {
    std::mt19937 g(seed);
    std::normal_distribution<float> d;
    std::vector<float> v(n);
    for (float& x : v) x = d(g);
    return v;
}

// Bins (z, y, x) of the DFT of `in` (dims z, y, x; complex when `im` is not
// empty) compared with the transform's output: relative to sqrt(N) (the
// size of a bin of unit noise), float32 error ~1e-6 * sqrt(log2 N).
void check_bins(Result& r, const std::vector<float>& re, const std::vector<float>& im, std::array<size_t, 3> dims,
                const std::vector<std::complex<float>>& got, size_t out_x) {
    const double n = double(dims[0]) * dims[1] * dims[2];
    const std::array<size_t, 3> bins[] = {{0, 0, 0}, {0, 1, 2}, {dims[0] / 2, dims[1] / 3, out_x - 1}};
    double err = 0;
    for (auto b : bins) {
        b[0] %= dims[0];  // 1-D and 2-D: the leading bins are 0
        b[1] %= dims[1];
        cd s = 0;
        for (size_t z = 0; z < dims[0]; ++z)
            for (size_t y = 0; y < dims[1]; ++y)
                for (size_t x = 0; x < dims[2]; ++x) {
                    const double ph = -2 * M_PI *
                                      (double(b[0] * z % dims[0]) / dims[0] + double(b[1] * y % dims[1]) / dims[1] +
                                       double(b[2] * x % dims[2]) / dims[2]);
                    const size_t i = (z * dims[1] + y) * dims[2] + x;
                    s += cd(re[i], im.empty() ? 0.0 : im[i]) * cd(std::cos(ph), std::sin(ph));
                }
        const auto g = got[(b[0] * dims[1] + b[1]) * out_x + b[2]];
        err = std::max(err, std::abs(cd(g.real(), g.imag()) - s) / std::sqrt(n));
    }
    r.checked = true;
    r.metrics["max_rel_err"] = err;
    r.ok = err <= 1e-5 * std::sqrt(std::log2(n));
    if (!r.ok) r.note = "bin error " + std::to_string(err);
}

std::vector<std::complex<float>> interleave(const std::vector<float>& re, const std::vector<float>& im) {
    std::vector<std::complex<float>> c(re.size());
    for (size_t i = 0; i < re.size(); ++i) c[i] = {re[i], im[i]};
    return c;
}

Result transform(Context& ctx, Size size, int n, std::array<size_t, 3> dims, size_t nd, bool complex,
                 const std::function<Array(const Array&)>& op) {
    const size_t count = dims[0] * dims[1] * dims[2];
    const std::vector<float> re = noise(count, 1), im = complex ? noise(count, 2) : std::vector<float>{};
    const size_t shape[3] = {dims[0], dims[1], dims[2]};
    const Shape s = Shape::of(nd, shape + 3 - nd);
    const Array in = complex ? Array::from(ctx, s, interleave(re, im)) : Array::from(ctx, s, re);
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = op(in); }, n, 3));
    r.metrics["GB/s"] = double(in.nbytes() + out.nbytes()) / (r.gpu_ms * 1e-3) / 1e9;
    check_bins(r, re, im, dims, out.to_vector<std::complex<float>>(), out.shape().x());
    return r;
}

size_t side(Size s, size_t full, size_t small) { return s == Size::full ? full : small; }

Register w80{{"W80", "rfft2 2048^2 float32", "fft", [](Context& ctx, Size s, int n) {
                  const size_t m = side(s, 2048, 256);
                  return transform(ctx, s, n, {1, m, m}, 2, false, [](const Array& a) { return rfft2(a); });
              }}};
Register w81{{"W81", "fft2 2048^2 complex64", "fft", [](Context& ctx, Size s, int n) {
                  const size_t m = side(s, 2048, 256);
                  return transform(ctx, s, n, {1, m, m}, 2, true, [](const Array& a) { return fft2(a); });
              }}};
Register w82{{"W82", "fftn 256^3 complex64", "fft", [](Context& ctx, Size s, int n) {
                  const size_t m = side(s, 256, 32);
                  return transform(ctx, s, n, {m, m, m}, 3, true, [](const Array& a) { return fftn(a); });
              }}};
Register w84{{"W84", "rfft 2^22 float32", "fft", [](Context& ctx, Size s, int n) {
                  const size_t m = side(s, size_t(1) << 22, size_t(1) << 14);
                  return transform(ctx, s, n, {1, 1, m}, 1, false, [](const Array& a) { return rfft(a); });
              }}};
Register w85{{"W85", "fft2 2039^2 complex64 (prime: Bluestein)", "fft", [](Context& ctx, Size s, int n) {
                  const size_t m = side(s, 2039, 127);
                  return transform(ctx, s, n, {1, m, m}, 2, true, [](const Array& a) { return fft2(a); });
              }}};

// W83: fftconvolve same, 2048^2 x 31^2; a few output pixels by direct sums.
Register w83{{"W83", "fftconvolve 2048^2 x 31^2 float32, same", "fft", [](Context& ctx, Size s, int n) {
                  const size_t m = side(s, 2048, 256), k = 31;
                  const std::vector<float> img = noise(m * m, 3), ker = noise(k * k, 4);
                  const Array a = Array::from(ctx, Shape{m, m}, img), b = Array::from(ctx, Shape{k, k}, ker);
                  Array out;
                  Result r;
                  take_times(r, timed(ctx, s, [&] { out = fftconvolve(a, b, "same"); }, n, 3));
                  const std::vector<float> got = out.to_vector<float>();
                  double err = 0;
                  for (size_t y : {size_t(0), size_t(7), m / 2, m - 1})
                      for (size_t x : {size_t(0), size_t(15), m / 3, m - 1}) {
                          double sum = 0;  // full index (y + 15, x + 15): same's window
                          for (size_t j = 0; j < k; ++j)
                              for (size_t i = 0; i < k; ++i) {
                                  const ptrdiff_t yy = ptrdiff_t(y + 15) - ptrdiff_t(j),
                                                  xx = ptrdiff_t(x + 15) - ptrdiff_t(i);
                                  if (yy >= 0 && yy < ptrdiff_t(m) && xx >= 0 && xx < ptrdiff_t(m))
                                      sum += double(ker[j * k + i]) * img[size_t(yy) * m + size_t(xx)];
                              }
                          err = std::max(err, std::abs(got[y * m + x] - sum));
                      }
                  // Sums of 961 products of unit noise: about 31 in size.
                  r.checked = true;
                  r.metrics["max_abs_err"] = err;
                  r.ok = err <= 1e-4 * 31;
                  return r;
              }}};

}  // namespace

}  // namespace kiln::bench
