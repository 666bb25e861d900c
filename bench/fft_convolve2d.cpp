// W86: convolve2d's FFT crossover (engine/ops/convolve2d.cpp,
// fft_min_kernel_taps): the direct sum and the FFT path on 2048^2 float32
// "same" for kernels of 7 to 63 squared (19 to 35 around the crossover), as
// metrics of one Result;
// its own time is convolve2d's choice at 31^2, against
// cupyx.scipy.signal.convolve2d (bench/peers_fft.py).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "bench.hpp"
#include "kiln/convolve.hpp"
#include "kiln/fft.hpp"
#include "kiln/reference/convolve.hpp"

namespace kiln::bench {

namespace {

HostArray uniform(Shape s, uint32_t seed) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<float> v(s.size());
    for (float& x : v) x = d(g);
    return HostArray::from(s, v);
}

// Largest |a - b| relative to max |b|.
double rel_diff(const HostArray& a, const HostArray& b) {
    double e = 0, m = 0;
    for (size_t i = 0; i < b.size(); ++i) {
        e = std::max(e, std::abs(a.at(i) - b.at(i)));
        m = std::max(m, std::abs(b.at(i)));
    }
    return m > 0 ? e / m : e;
}

Register w86{{"W86", "convolve2d 2048^2 float32 same: direct vs FFT for kernels 7^2-63^2", "fft",
              [](Context& ctx, Size s, int n) {
                  const size_t m = s == Size::full ? 2048 : 128;
                  const HostArray img = uniform(Shape{m, m}, 5);
                  const Array a = Array::from_host(ctx, img);
                  Result r;
                  r.checked = true;
                  // 63^2 direct takes seconds on lavapipe: the full sweep only.
                  const std::vector<size_t> sizes =
                      s == Size::full ? std::vector<size_t>{7, 15, 19, 23, 25, 27, 29, 31, 35, 63} : std::vector<size_t>{7, 15, 31};
                  for (size_t k : sizes) {
                      const HostArray hk = uniform(Shape{k, k}, uint32_t(6 + k));  // random: not rank one
                      const Array kernel = Array::from_host(ctx, hk);
                      const std::string tag = "_k" + std::to_string(k);
                      Array direct, fft;
                      // A fill value of 1e-30 keeps the direct sum at every size
                      // (the path takes fill 0 only); its cost is the same.
                      const auto td = timed(ctx, s, [&] {
                          direct = convolve2d(a, kernel, ConvMode::same, Boundary::fill, 1e-30);
                      }, n, 2);
                      const auto tf = timed(ctx, s, [&] { fft = fftconvolve(a, kernel, "same"); }, n, 2);
                      r.metrics["direct_ms" + tag] = td.gpu_median();
                      r.metrics["fft_ms" + tag] = tf.gpu_median();
                      if (k == 31) take_times(r, timed(ctx, s, [&] { (void)convolve2d(a, kernel, ConvMode::same); }, n, 2));
                      // float32 FFT rounding relative to the largest output (the tests' 1e-5).
                      const HostArray want = s == Size::small ? cpu::convolve2d(img, hk, ConvMode::same)
                                                              : direct.to_host();
                      const double e = std::max(rel_diff(fft.to_host(), want),
                                                s == Size::small ? rel_diff(direct.to_host(), want) : 0.0);
                      r.metrics["max_rel_err" + tag] = e;
                      if (e > 1e-5) {
                          r.ok = false;
                          r.note += "k" + std::to_string(k) + " error " + std::to_string(e) + " ";
                      }
                  }
                  return r;
              }}};

}  // namespace

}  // namespace kiln::bench
