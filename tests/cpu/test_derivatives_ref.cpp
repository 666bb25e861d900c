// The CPU derivative filters against scipy.ndimage and skimage (fixtures of
// tests/data/make_derivatives.py), the Gaussian derivative weights against
// their closed forms, and the checks.
#include <catch2/catch.hpp>

#include <cmath>

#include "derivatives_fixture.hpp"
#include "kiln/reference/derivatives.hpp"
#include "kiln/reference/gaussian.hpp"

using namespace kiln;
namespace deriv = kiln::test::deriv;

TEST_CASE("CPU derivative filters match scipy.ndimage and skimage", "[cpu][derivatives]") {
    const double worst =
        deriv::check_fixtures([](const deriv::Case& c, const HostArray& in) { return KILN_DERIV_RUN(cpu, c, in); });
    // Reported on each run: the margin the tolerance leaves.
    WARN("largest error " << worst << " of the tolerance");
}

TEST_CASE("Gaussian derivative weights are the derivatives of the Gaussian", "[cpu][derivatives]") {
    // sigma 1.5, truncate 4: r = 6. Before normalizing, the weights of order
    // n are the n-th derivative of g = exp(-x^2 / (2 s^2)), all divided by sum(g).
    const double s = 1.5, s2 = s * s;
    const std::vector<double> g = gaussian_kernel1d(s, 4.0, 0);
    REQUIRE(g.size() == 13);
    for (int order = 1; order <= 3; ++order) {
        const std::vector<double> w = gaussian_kernel1d(s, 4.0, order);
        REQUIRE(w.size() == 13);
        for (int i = 0; i < 13; ++i) {
            const double x = i - 6;
            const double poly = order == 1   ? -x / s2
                                : order == 2 ? (x * x - s2) / (s2 * s2)
                                             : (3 * s2 * x - x * x * x) / (s2 * s2 * s2);
            CHECK(w[size_t(i)] == Approx(poly * g[size_t(i)]).margin(1e-16));
        }
    }
    CHECK_THROWS_AS(gaussian_kernel1d(1.0, 4.0, 4), InvalidArgument);
    CHECK_THROWS_AS(gaussian_kernel1d(1.0, 4.0, -1), InvalidArgument);
}

TEST_CASE("CPU derivative filters check their arguments", "[cpu][derivatives]") {
    const HostArray a = test::random(Shape{5, 6}, DType::float32, 1);
    CHECK_THROWS_AS(cpu::sobel(a, 2), InvalidArgument);
    CHECK_THROWS_AS(cpu::prewitt(a, -3), InvalidArgument);
    CHECK_THROWS_AS(cpu::difference_of_gaussians(a, 2.0, 1.0), InvalidArgument);
    CHECK_THROWS_AS(cpu::gaussian_filter(a, {0, 1, 1}, NdMode::reflect, 0, 4, {0, 0, 4}), InvalidArgument);
    // axis -1 is the last.
    test::require_close(cpu::sobel(a, -1), cpu::sobel(a, 1), 0);
}
