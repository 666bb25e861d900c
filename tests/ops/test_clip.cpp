// GPU kappa-sigma clipping against the CPU reference (engine/cpu/clip):
// every dtype, heavy tails that take many passes, passes that empty the
// set, max_iters, non-finite values, the synthetic radio sky (large enough
// for a sum tree of two levels), masks, the async form, bad input.
#include <cmath>
#include <limits>

#include "clip_support.hpp"
#include "kiln/reference/clip.hpp"
#include "kiln/sky.hpp"
#include "kiln/statistics.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

using test::check_clip;
using test::check_close;
using test::noisy;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

void check_dtypes(std::initializer_list<DType> dtypes) {
    Context ctx = test::context();
    for (DType t : dtypes)
        for (Shape s : {Shape{13}, Shape{127, 129}, Shape{3, 5, 7}}) {
            INFO(dtype_name(t) << " " << s.str());
            const bool narrow = t == DType::int8 || t == DType::uint8;
            HostArray h = noisy(s, t, 1, narrow ? 10 : 30, t == DType::uint8 || t == DType::uint16 ? 120 : 0);
            check_clip(Array::from_host(ctx, h), h, 3.0, 100);
        }
}

} // namespace

TEST_CASE("kappa-sigma clipping equals the CPU reference (float32, float64)", "[ops][clip]") {
    check_dtypes({DType::float32, DType::float64});
}

TEST_CASE("kappa-sigma clipping equals the CPU reference (int8, uint8)", "[ops][clip]") {
    check_dtypes({DType::int8, DType::uint8});
}

TEST_CASE("kappa-sigma clipping equals the CPU reference (int16, uint16)", "[ops][clip]") {
    check_dtypes({DType::int16, DType::uint16});
}

TEST_CASE("kappa-sigma clipping equals the CPU reference (int32, uint32)", "[ops][clip]") {
    check_dtypes({DType::int32, DType::uint32});
}

TEST_CASE("clipping that takes many passes stops where the reference does", "[ops][clip]") {
    Context ctx = test::context();
    for (double kappa : {2.0, 3.0}) {
        INFO("kappa " << kappa);
        HostArray h = noisy(Shape{127, 129}, DType::float32, 2, 1, 1000);
        Array a = Array::from_host(ctx, h);
        check_clip(a, h, kappa, 100);
        const cpu::ClipResult want = cpu::kappa_sigma_clip(h, kappa, 100);
        CHECK(want.iterations >= 12);
        // Stopped by max_iters before convergence.
        for (int max_iters : {1, 2, 5, 12, 13}) {
            INFO("max_iters " << max_iters);
            check_clip(a, h, kappa, max_iters, max_iters == 5);
        }
    }
}

TEST_CASE("equal values are all kept, a pass that removes every value leaves NaN, as the reference",
          "[ops][clip]") {
    Context ctx = test::context();
    // All equal: std 0, nothing is an outlier, every value is kept (astropy).
    HostArray c = HostArray::from(Shape{5, 7}, std::vector<float>(35, 2.5f));
    check_clip(Array::from_host(ctx, c), c, 3.0, 100);
    const ClipResult r = kappa_sigma_clip(Array::from_host(ctx, c), 3.0, 100, true);
    CHECK(r.count == 35);
    CHECK(r.iterations == 1);
    CHECK(r.median == 2.5);
    CHECK(r.std == 0);
    CHECK(r.mean == 2.5);
    CHECK(r.mask->to_vector<uint8_t>() == std::vector<uint8_t>(35, 1));
    // Large enough for the tree sums, clipped down to equal values.
    std::vector<double> mostly(5000, -3.25);
    mostly[17] = 1e6;
    HostArray m = HostArray::from(Shape{5000}, mostly);
    check_clip(Array::from_host(ctx, m), m, 3.0, 100, true);
    CHECK(kappa_sigma_clip(Array::from_host(ctx, m)).count == 4999);
    // Two values with kappa 1: both lie on the interval's ends, none kept.
    HostArray two = HostArray::from(Shape{2}, std::vector<float>{1, 2});
    check_clip(Array::from_host(ctx, two), two, 1.0, 100);
    CHECK(kappa_sigma_clip(Array::from_host(ctx, two), 1.0).count == 0);
    // Heavy tails with kappa 1 shrink the set to nothing after many passes.
    HostArray h = noisy(Shape{127, 129}, DType::float64, 3);
    check_clip(Array::from_host(ctx, h), h, 1.0, 100);
    check_clip(Array::from_host(ctx, h), h, 1.0, 3);
}

TEST_CASE("clipping ignores NaN and infinities", "[ops][clip]") {
    Context ctx = test::context();
    for (DType t : {DType::float32, DType::float64}) {
        INFO(dtype_name(t));
        HostArray h = noisy(Shape{3, 1031}, t, 4);
        for (size_t i = 0; i < h.size(); i += 97) {
            const double v = i % 3 == 0 ? nan_v : (i % 3 == 1 ? inf_v : -inf_v);
            visit_dtype(t, [&](auto z) { h.as<decltype(z)>()[i] = static_cast<decltype(z)>(v); });
        }
        check_clip(Array::from_host(ctx, h), h, 3.0, 100);
        check_clip(Array::from_host(ctx, h), h, 2.5, 4);
    }
}

TEST_CASE("clipping the synthetic radio sky", "[ops][clip]") {
    Context ctx = test::context();
    kiln::SkyParams p;
    p.size = 320;  // 102400 values: two levels of sums of 256, many sort tiles
    p.n_compact = 40;
    p.n_shells = 2;
    HostArray sky = kiln::synthetic_sky(p);
    check_clip(Array::from_host(ctx, sky), sky, 3.0, 100);
    check_clip(Array::from_host(ctx, sky), sky, 2.0, 3, false);
}

TEST_CASE("a large float64 set with ties and an offset clips as the reference", "[ops][clip]") {
    Context ctx = test::context();
    // 70001 values: every sort pass and both tree levels; values rounded to a
    // coarse grid give long runs of equal keys, and the offset makes the sums
    // cancel unless they are taken about a shift.
    HostArray h = noisy(Shape{70001}, DType::float64, 5, 2, 1e6, 0.05);
    for (double& x : h.as<double>()) x = std::round(x * 64) / 64;
    h.as<double>()[17] = -0.0;
    h.as<double>()[18] = nan_v;
    check_clip(Array::from_host(ctx, h), h, 3.0, 100);
    check_clip(Array::from_host(ctx, h), h, 1.5, 100, false);
}

TEST_CASE("kappa_sigma_clip_async records the loop and gives what the synchronous form gives", "[ops][clip]") {
    Context ctx = test::context();
    for (DType t : {DType::float32, DType::float64, DType::int16, DType::uint8}) {
        INFO(dtype_name(t));
        HostArray h = noisy(Shape{61, 67}, t, 6, t == DType::uint8 ? 10 : 30, t == DType::uint8 ? 120 : 0);
        Array a = Array::from_host(ctx, h);
        for (int max_iters : {100, 2}) {
            INFO("max_iters " << max_iters);
            const ClipResultAsync pending = kappa_sigma_clip_async(a, 3.0, max_iters);
            REQUIRE(pending.stats.dtype() == DType::float64);
            REQUIRE(pending.stats.size() == 5);
            const auto raw = pending.stats.to_vector<double>();
            const ClipResult got = pending.get();
            const ClipResult sync = kappa_sigma_clip(a, 3.0, max_iters);
            const cpu::ClipResult want = cpu::kappa_sigma_clip(h, 3.0, max_iters);
            CHECK(got.iterations == want.iterations);
            CHECK(got.count == want.count);
            CHECK(raw[3] == double(want.count));
            CHECK(raw[4] == double(want.iterations));
            check_close(got.median, want.median, 1e-15);
            check_close(got.std, want.std, 1e-12);
            check_close(got.mean, want.mean, 1e-12);
            CHECK(got.median == sync.median);
            CHECK(got.std == sync.std);
            CHECK(got.mean == sync.mean);
            CHECK_FALSE(got.mask.has_value());
        }
    }
    // No finite value: get() throws as kappa_sigma_clip does; so does a default-constructed one.
    Array nans = Array::from(ctx, Shape{3}, std::vector<float>{NAN, INFINITY, -INFINITY});
    const ClipResultAsync none = kappa_sigma_clip_async(nans);
    CHECK_THROWS_WITH(none.get(), Catch::Contains("no finite value"));
    CHECK_THROWS_AS(ClipResultAsync{}.get(), InvalidArgument);
    CHECK_THROWS_WITH(kappa_sigma_clip_async(nans, -1.0), Catch::Contains("kappa"));
}

TEST_CASE("clipping refuses bad input clearly and the context stays usable", "[ops][clip]") {
    Context ctx = test::context();
    Array a = Array::from(ctx, Shape{4}, std::vector<float>{1, 2, 3, 100});
    CHECK_THROWS_WITH(kappa_sigma_clip(a, 0.0), Catch::Contains("kappa") && Catch::Contains("> 0"));
    CHECK_THROWS_AS(kappa_sigma_clip(a, nan_v), InvalidArgument);
    CHECK_THROWS_AS(kappa_sigma_clip(a, inf_v), InvalidArgument);
    CHECK_THROWS_WITH(kappa_sigma_clip(a, 3.0, 0), Catch::Contains("max_iters"));
    Array null;
    CHECK_THROWS_WITH(kappa_sigma_clip(null), Catch::Contains("null"));
    Array nans = Array::from(ctx, Shape{3}, std::vector<float>{NAN, INFINITY, -INFINITY});
    CHECK_THROWS_WITH(kappa_sigma_clip(nans), Catch::Contains("no finite value"));
    const ClipResult r = kappa_sigma_clip(a, 1.0);
    const cpu::ClipResult w = cpu::kappa_sigma_clip(a.to_host(), 1.0);
    CHECK(r.count == w.count);
    CHECK(r.iterations == w.iterations);
    CHECK_FALSE(r.mask.has_value());
}
