// GPU thresholds against scikit-image 0.19's values
// (tests/data/make_threshold.py) and the CPU reference.
#include <cmath>
#include <limits>

#include "kiln/reference/threshold.hpp"
#include "kiln/threshold.hpp"
#include "support.hpp"
#include "threshold_support.hpp"

using namespace kiln;

TEST_CASE("Otsu, Yen and triangle thresholds equal scikit-image's", "[ops][threshold]") {
    Context ctx = test::context();
    for (const auto& name : test::threshold_images) {
        INFO(name);
        const Array image = Array::from_host(ctx, test::image_fixture("threshold/" + name));
        const auto want = test::thresholds(name);
        test::check_same(threshold_otsu(image), want.otsu);
        test::check_same(threshold_yen(image), want.yen);
        test::check_same(threshold_triangle(image), want.triangle);
    }
}

TEST_CASE("threshold_li agrees with scikit-image's and the CPU reference", "[ops][threshold]") {
    Context ctx = test::context();
    for (const auto& name : test::threshold_images) {
        INFO(name);
        const HostArray host = test::image_fixture("threshold/" + name);
        const Array image = Array::from_host(ctx, host);
        const auto want = test::thresholds(name);
        // As in the CPU reference's test: exact integer sums (1e-12 for the
        // log), float64 sums in another order (1e-12), float32 means rounded
        // from float64 sums against NumPy's float32 pairwise means (1e-5).
        const double rtol = host.dtype == DType::float32 ? 1e-5 : 1e-12;
        CHECK(test::close_rel(threshold_li(image, want.tolerance), want.li_tol, rtol));
        CHECK(test::close_rel(threshold_li(image), want.li, rtol));
        // The CPU reference sums sequentially, the GPU by workgroups: the same
        // sums in float64 to rounding, the same threshold to 1e-12 (float32:
        // a float64 sum's rounding can cross a float32 rounding boundary).
        CHECK(test::close_rel(threshold_li(image), cpu::threshold_li(host),
                              host.dtype == DType::float32 ? 1e-6 : 1e-12));
    }
}

TEST_CASE("thresholds leave NaN out and return the value of a constant image", "[ops][threshold]") {
    Context ctx = test::context();
    // NaN and infinities, on which scikit-image raises, are left out: the
    // GPU agrees with the CPU reference, which drops them the same way.
    HostArray with_nan = test::image_fixture("threshold/f32");
    auto w = with_nan.as<float>();
    w[3] = std::numeric_limits<float>::quiet_NaN();
    w[7] = std::numeric_limits<float>::infinity();
    const Array a = Array::from_host(ctx, with_nan);
    test::check_same(threshold_otsu(a), cpu::threshold_otsu(with_nan));
    test::check_same(threshold_yen(a), cpu::threshold_yen(with_nan));
    CHECK(test::close_rel(threshold_li(a), cpu::threshold_li(with_nan), 1e-6));

    const Array one = Array::full(ctx, Shape{5, 7}, 3.25, DType::float32);
    CHECK(threshold_otsu(one) == 3.25);
    CHECK(threshold_yen(one) == 3.25);
    CHECK(threshold_li(one) == 3.25);
    CHECK_THROWS_AS(threshold_triangle(one), InvalidArgument);
    const Array ints = Array::full(ctx, Shape{9}, 7, DType::int16);
    CHECK(threshold_otsu(ints) == 7);
    CHECK_THROWS_AS(threshold_otsu(Array{}), InvalidArgument);
    CHECK_THROWS_AS(threshold_otsu(one, 0), InvalidArgument);
}
