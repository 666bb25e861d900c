// The GPU Gaussian filter against scipy.ndimage (fixtures of
// tests/data/make_conv.py) and the CPU reference (engine/cpu/gaussian):
// 1-, 2- and 3-D, every mode, skipped axes, long weights, integer input.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/reference/gaussian.hpp"
#include "kiln/filters.hpp"
#include "gaussian_fixture.hpp"
#include "support.hpp"

using namespace kiln;

namespace fx = kiln::test::fixture;

namespace {



// Weights sum to 1: each pass is within a few roundings of max |x|.
void require_blur_close(const HostArray& got, const HostArray& want, double max_input) {
    const bool f64 = want.dtype == DType::float64;
    test::require_close(got, want, f64 ? 1e-12 : 1e-5, (f64 ? 1e-14 : 1e-6) * max_input);
}

void poison_memory(Context& ctx, size_t bytes) {
    for (int i = 0; i < 3; ++i) test::poisoned(ctx, Shape{(bytes + 3) / 4}, DType::float32);
    ctx.sync();
}

}  // namespace

namespace {

void check_fixtures(bool images) {
    Context ctx = test::context();
    for (const fx::GaussianCase& c : fx::gaussian_cases) {
        if ((fx::gaussian_inputs[c.input].shape.size() == 2) != images) continue;
        INFO(c.name);
        const HostArray in = to_host(fx::gaussian_inputs[c.input]);
        const Array r = gaussian_filter(Array::from_host(ctx, in), c.sigma_zyx, parse_nd_mode(c.mode),
                                        c.cval, c.truncate);
        require_blur_close(r.to_host(), to_host(c.expected),
                           std::max(test::max_abs(in), std::abs(c.cval)));
    }
}

struct Case {
    Shape shape;
    std::array<double, 3> sigma;
};

// Every mode, cval 3.5. Sigmas 1 and 2 (9 and 17 weights) and 0.5 (5) mostly,
// so that the tests compile few pipelines.
void check_cases(DType t, const std::vector<Case>& cases) {
    Context ctx = test::context();
    for (const Case& c : cases) {
        const HostArray hi = test::random(c.shape, t, 1);
        const Array in = Array::from_host(ctx, hi);
        for (NdMode mode :
             {NdMode::reflect, NdMode::constant, NdMode::nearest, NdMode::mirror, NdMode::wrap}) {
            INFO(dtype_name(t) << " " << c.shape.str() << " sigma (" << c.sigma[0] << ", "
                               << c.sigma[1] << ", " << c.sigma[2] << ") mode " << int(mode));
            const HostArray want = cpu::gaussian_filter(hi, c.sigma, mode, 3.5);
            poison_memory(ctx, want.nbytes());
            require_blur_close(gaussian_filter(in, c.sigma, mode, 3.5).to_host(), want, 100);
        }
    }
}

}  // namespace

TEST_CASE("GPU gaussian_filter matches scipy.ndimage.gaussian_filter on images",
          "[ops][gaussian]") {
    check_fixtures(true);
}

TEST_CASE("GPU gaussian_filter matches scipy.ndimage.gaussian_filter in 1-D and 3-D",
          "[ops][gaussian]") {
    check_fixtures(false);
}

TEST_CASE("GPU gaussian_filter matches the CPU reference in 1-D and 2-D", "[ops][gaussian]") {
    check_cases(DType::float32, {{Shape{1031}, {0, 0, 2}},
                                 {Shape{127, 129}, {0, 2, 2}},
                                 {Shape{13, 17}, {0, 0.5, 2}},
                                 {Shape{13, 17}, {0, 0, 2}},
                                 {Shape{13, 17}, {0, 2, 0}},
                                 {Shape{20, 36}, {0, 2, 2}}});  // rows of whole vectors
    check_cases(DType::float64, {{Shape{127, 129}, {0, 2, 2}}, {Shape{20, 36}, {0, 2, 2}}});
}

TEST_CASE("GPU gaussian_filter of a large stack uses taller tiles and still matches", "[ops][gaussian]") {
    // 2 x 2049 x 4099 outputs, at least 2^24: the two-axis pass takes 8 rows
    // per invocation instead of 4 (convolve_pass.cpp).
    Context ctx = test::context();
    const HostArray hi = test::random(Shape{2, 2049, 4099}, DType::float32, 3);
    const HostArray want = cpu::gaussian_filter(hi, {0, 2, 1}, NdMode::reflect);
    require_blur_close(gaussian_filter(Array::from_host(ctx, hi), {0, 2, 1}).to_host(), want, 100);
}

TEST_CASE("GPU gaussian_filter matches the CPU reference in 3-D", "[ops][gaussian]") {
    check_cases(DType::float32, {{Shape{7, 9, 11}, {1, 1, 1}},
                                 {Shape{3, 5, 7}, {0, 1, 2}},
                                 {Shape{7, 9, 11}, {2, 0, 0}},
                                 {Shape{7, 9, 11}, {1, 0, 2}}});
    check_cases(DType::float64, {{Shape{7, 9, 11}, {1, 1, 1}}});
}

TEST_CASE("GPU gaussian_filter with long weights, truncate and integer input", "[ops][gaussian]") {
    Context ctx = test::context();
    // sigma 20: 161 weights reaching far beyond a 13 x 17 image on both sides.
    const HostArray hi = test::random(Shape{13, 17}, DType::float32, 2);
    const Array in = Array::from_host(ctx, hi);
    for (NdMode mode : {NdMode::reflect, NdMode::mirror, NdMode::wrap, NdMode::constant}) {
        INFO("mode " << int(mode));
        require_blur_close(gaussian_filter(in, {0, 20, 20}, mode, -1).to_host(),
                           cpu::gaussian_filter(hi, {0, 20, 20}, mode, -1), 100);
        require_blur_close(gaussian_filter(in, {0, 2, 20}, mode, -1).to_host(),
                           cpu::gaussian_filter(hi, {0, 2, 20}, mode, -1), 100);
    }
    // truncate 2.5: radius int(2.5 * 3 + 0.5) = 8, 17 weights.
    require_blur_close(gaussian_filter(in, {0, 3, 2}, NdMode::reflect, 0, 2.5).to_host(),
                       cpu::gaussian_filter(hi, {0, 3, 2}, NdMode::reflect, 0, 2.5), 100);

    for (DType t : {DType::uint8, DType::int16, DType::int32}) {
        INFO(dtype_name(t));
        const HostArray hu = test::random(Shape{31, 33}, t, 3, 0, 255);
        const Array r = gaussian_filter(Array::from_host(ctx, hu), {0, 2, 2});
        CHECK(r.dtype() == DType::float32);
        require_blur_close(r.to_host(), cpu::gaussian_filter(hu, {0, 2, 2}), 255);
        // Every sigma skipped: the values as float32.
        test::require_close(gaussian_filter(Array::from_host(ctx, hu), {0, 0, 0}).to_host(),
                            cpu::gaussian_filter(hu, {0, 0, 0}), 0);
    }
    test::require_close(gaussian_filter(in, {0, 1e-16, 0}).to_host(), hi, 0);
}

TEST_CASE("GPU gaussian_blur takes sigmas in x, y, z order with defaults", "[ops][gaussian]") {
    Context ctx = test::context();
    const HostArray h2 = test::random(Shape{27, 31}, DType::float32, 4);
    const HostArray h3 = test::random(Shape{5, 9, 11}, DType::float32, 5);
    const Array a2 = Array::from_host(ctx, h2), a3 = Array::from_host(ctx, h3);
    require_blur_close(gaussian_blur(a2, 2).to_host(), cpu::gaussian_filter(h2, {0, 2, 2}), 100);
    require_blur_close(gaussian_blur(a2, 2, 1).to_host(), cpu::gaussian_filter(h2, {0, 1, 2}), 100);
    require_blur_close(gaussian_blur(a3, 1).to_host(), cpu::gaussian_filter(h3, {1, 1, 1}), 100);
    require_blur_close(gaussian_blur(a3, 2, 1, 1).to_host(), cpu::gaussian_filter(h3, {1, 1, 2}),
                       100);
    const HostArray h1 = test::random(Shape{101}, DType::float32, 6);
    require_blur_close(gaussian_blur(Array::from_host(ctx, h1), 2, 7, 9).to_host(),
                       cpu::gaussian_filter(h1, {0, 0, 2}), 100);
    // A uniform image stays uniform in every mode but constant.
    const Array flat = Array::full(ctx, Shape{19, 23}, 4.0);
    for (float v : gaussian_blur(flat, 2).to_vector<float>()) REQUIRE(std::abs(v - 4.0f) < 1e-5f);
}

TEST_CASE("GPU gaussian filters refuse bad sigmas clearly and the context stays usable",
          "[ops][gaussian]") {
    Context ctx = test::context();
    const Array img = Array::zeros(ctx, Shape{13, 17}), null;
    const double nan = std::numeric_limits<double>::quiet_NaN(),
                 inf = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(gaussian_blur(img, 0), Catch::Contains("sigma_x") && Catch::Contains("> 0"));
    CHECK_THROWS_AS(gaussian_blur(img, -1), InvalidArgument);
    CHECK_THROWS_AS(gaussian_blur(img, nan), InvalidArgument);
    CHECK_THROWS_WITH(gaussian_blur(img, 1, -2),
                      Catch::Contains("sigma_y") && Catch::Contains("-1"));
    CHECK_THROWS_AS(gaussian_blur(img, 1, 0), InvalidArgument);
    CHECK_THROWS_AS(gaussian_blur(img, 1, 1, inf), InvalidArgument);
    CHECK_THROWS_AS(gaussian_blur(null, 1), InvalidArgument);
    CHECK_THROWS_WITH(gaussian_filter(img, {0, -1, 1}),
                      Catch::Contains("sigma") && Catch::Contains(">= 0"));
    CHECK_THROWS_AS(gaussian_filter(img, {nan, 1, 1}), InvalidArgument);
    CHECK_THROWS_WITH(gaussian_filter(img, {0, 1, 1}, NdMode::reflect, 0, -4),
                      Catch::Contains("truncate"));
    CHECK_THROWS_AS(gaussian_filter(null, {0, 1, 1}), InvalidArgument);
    const Array one = Array::full(ctx, Shape{5, 5}, 2.0);
    for (float v : gaussian_filter(one, {0, 1, 1}).to_vector<float>())
        REQUIRE(std::abs(v - 2.0f) < 1e-6f);
}
