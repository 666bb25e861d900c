// The threshold references against scikit-image 0.19's values
// (tests/data/make_threshold.py).
#include <cmath>

#include "kiln/reference/threshold.hpp"
#include "threshold_support.hpp"

using namespace kiln;

TEST_CASE("cpu Otsu, Yen and triangle thresholds equal scikit-image's", "[cpu][threshold]") {
    for (const auto& name : test::threshold_images) {
        INFO(name);
        const HostArray image = test::image_fixture("threshold/" + name);
        const auto want = test::thresholds(name);
        test::check_same(cpu::threshold_otsu(image), want.otsu);
        test::check_same(cpu::threshold_yen(image), want.yen);
        test::check_same(cpu::threshold_triangle(image), want.triangle);
    }
}

TEST_CASE("cpu threshold_li agrees with scikit-image's", "[cpu][threshold]") {
    for (const auto& name : test::threshold_images) {
        INFO(name);
        const HostArray image = test::image_fixture("threshold/" + name);
        const auto want = test::thresholds(name);
        // Integer images: every sum is an exact integer in float64, so only the
        // log may differ (1 ulp), 1e-12 allows it. float64: sums in another
        // order, 1e-12. float32: NumPy's means are float32 pairwise sums, ours
        // float64 rounded once, a few float32 ulps apart: 1e-5.
        const double rtol = image.dtype == DType::float32 ? 1e-5 : 1e-12;
        CHECK(test::close_rel(cpu::threshold_li(image, want.tolerance), want.li_tol, rtol));
        CHECK(test::close_rel(cpu::threshold_li(image), want.li, rtol));
    }
}

TEST_CASE("cpu thresholds of an image of one value, and without finite values", "[cpu][threshold]") {
    HostArray one = test::from_values({3, 4}, DType::float32, std::vector<double>(12, 2.5));
    CHECK(cpu::threshold_otsu(one) == 2.5);
    CHECK(cpu::threshold_yen(one) == 2.5);
    CHECK(cpu::threshold_li(one) == 2.5);
    CHECK_THROWS_AS(cpu::threshold_triangle(one), InvalidArgument);
    HostArray nan = test::from_values({2}, DType::float64, {NAN, INFINITY});
    CHECK_THROWS_AS(cpu::threshold_otsu(nan), InvalidArgument);
    CHECK(std::isnan(cpu::threshold_li(nan)));
}
