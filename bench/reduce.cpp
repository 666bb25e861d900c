// Reduction and statistics workloads of REFERENCE.md, each checked against
// the CPU reference:
//   W6   kappa-sigma clipping of the synthetic 2048^2 radio sky (and, as
//        metrics, the async form with its device-side 5-sigma threshold);
//   W7   its 5-sigma threshold to a 0/1 image;
//   W14  median of 4M float32 (uniform in [0, 1), as bench/compare.py);
//   sum  sum of 64M float32, with its relative error against float64.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "bench.hpp"
#include "cpu/reduce.hpp"
#include "cpu/select.hpp"
#include "kiln/reduce.hpp"
#include "kiln/reference/clip.hpp"
#include "kiln/reference/elementwise.hpp"
#include "kiln/statistics.hpp"

namespace kiln::bench {

namespace {


// Uniform float32 in [0, 1) from a fixed-seed generator.
std::vector<float> uniform(size_t n, uint64_t seed) {
    std::vector<float> v(n);
    uint64_t s = seed;
    for (auto& x : v) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x = static_cast<float>(s >> 40) * (1.0f / 16777216.0f);
    }
    return v;
}

bool same(double a, double b, double rtol) {
    return (std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= rtol * std::abs(b);
}

Register w6{{"W6", "kappa-sigma clipping 2048^2 radio sky", "reduce", [](Context& ctx, Size size, int n) {
    const SkyInput& s = sky_input(size);
    Array image = Array::from_host(ctx, s.image);
    ClipResult got;
    Result r;
    take_times(r, timed(ctx, size, [&] { got = kappa_sigma_clip(image, 3.0, 100); }, n, 3));
    r.metrics["iterations"] = got.iterations;
    r.metrics["ms_per_pass"] = r.gpu_ms / got.iterations;
    r.checked = true;
    const ClipResult with_mask = kappa_sigma_clip(image, 3.0, 100, true);
    const auto mask = with_mask.mask->to_vector<uint8_t>();
    const auto want_mask = s.clip.mask->as<uint8_t>();
    r.ok = got.iterations == s.clip.iterations && got.count == s.clip.count &&
           same(got.median, s.clip.median, 1e-15) && same(got.std, s.clip.std, 1e-12) &&
           same(got.mean, s.clip.mean, 1e-12) && std::equal(mask.begin(), mask.end(), want_mask.begin());
    if (!r.ok)
        r.note = "differs from cpu::kappa_sigma_clip: count " + std::to_string(got.count) + " vs " +
                 std::to_string(s.clip.count) + ", iterations " + std::to_string(got.iterations) + " vs " +
                 std::to_string(s.clip.iterations);
    // The astronomy pipeline's form: clipping and its 5-sigma mask recorded
    // together, nothing read back in between (GPU and wall time of both).
    Array seg;
    ClipResultAsync pending;
    const BenchmarkResult chain = timed(ctx, size, [&] {
        pending = kappa_sigma_clip_async(image, 3.0, 100);
        seg = threshold(image, pending.stats, 1, 5.0);
    }, n, 3);
    r.metrics["async_mask_gpu_ms"] = chain.gpu_median();
    r.metrics["async_mask_wall_ms"] = chain.cpu_median();
    const ClipResult async_got = pending.get();
    const auto seg_got = seg.to_vector<uint8_t>();
    const auto seg_want = threshold(image, 5 * async_got.std).to_vector<uint8_t>();
    if (r.ok && (async_got.std != got.std || seg_got != seg_want)) {
        r.ok = false;
        r.note = "kappa_sigma_clip_async or its device threshold differs from the synchronous forms";
    }
    return r;
}}};

Register w7{{"W7", "5-sigma threshold 2048^2 to 0/1", "reduce", [](Context& ctx, Size size, int n) {
    const SkyInput& s = sky_input(size);
    Array image = Array::from_host(ctx, s.image);
    const double t = 5 * s.clip.std;
    Array mask;
    Result r;
    take_times(r, timed(ctx, size, [&] { mask = threshold(image, t); }, n, 3));
    r.metrics["Gpix/s"] = double(s.image.size()) / (r.gpu_ms * 1e-3) / 1e9;
    r.checked = true;
    const auto got = mask.to_vector<uint8_t>();
    const HostArray want = cpu::threshold(s.image, t);
    r.ok = std::memcmp(got.data(), want.bytes.data(), got.size()) == 0;
    if (!r.ok) r.note = "differs from cpu::threshold";
    return r;
}}};

Register w14{{"W14", "median of 4M float32", "reduce", [](Context& ctx, Size size, int n) {
    const size_t count = size == Size::full ? (4u << 20) : (1u << 18);
    const std::vector<float> v = uniform(count, 6);
    Array a = Array::from(ctx, Shape{count}, v);
    double got = 0;
    Result r;
    take_times(r, timed(ctx, size, [&] { got = median(a); }, n, 3));
    r.metrics["Gelem/s"] = double(count) / (r.gpu_ms * 1e-3) / 1e9;
    r.checked = true;
    const double want = cpu::median(HostArray::from(Shape{count}, v));
    r.ok = got == want;
    if (!r.ok) r.note = "median " + std::to_string(got) + " differs from cpu::median " + std::to_string(want);
    return r;
}}};

Register sum64{{"sum", "sum of 64M float32 (float64 accumulation)", "reduce", [](Context& ctx, Size size, int n) {
    const size_t count = size == Size::full ? (64u << 20) : (1u << 20);
    // Positive values around 1: a float32 running sum would be far off.
    std::vector<float> v = uniform(count, 7);
    for (float& x : v) x += 0.5f;
    Array a = Array::from(ctx, Shape{count}, v);
    double got = 0;
    Result r;
    take_times(r, timed(ctx, size, [&] { got = sum(a); }, n, 3));
    r.metrics["GB/s"] = double(count) * 4 / (r.gpu_ms * 1e-3) / 1e9;
    const double want = cpu::sum(HostArray::from(Shape{count}, v));
    const double rel = std::abs(got - want) / want;
    r.metrics["rel_error"] = rel;
    const double rel_c = std::abs(sum(a, Accumulation::compensated) - want) / want;
    r.metrics["rel_error_compensated"] = rel_c;
    r.checked = true;
    r.ok = rel <= 1e-6 && rel_c <= 1e-6;
    if (!r.ok) r.note = "relative error above 1e-6";
    return r;
}}};

} // namespace

} // namespace kiln::bench
