// The CPU Gaussian filter against scipy.ndimage (fixtures made by
// tests/data/make_conv.py), against weights worked out by hand, and against
// properties any blur must have.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/reference/gaussian.hpp"
#include "cpu_support.hpp"
#include "gaussian_fixture.hpp"
#include "host/gaussian_weights.hpp"

namespace {

using kiln::DType;
using kiln::HostArray;
using kiln::Shape;
using kiln::gaussian_kernel1d;
using kiln::parse_nd_mode;
using namespace kiln::cpu;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

using kiln::test::fixture::gaussian_cases;
using kiln::test::fixture::gaussian_inputs;
using kiln::test::fixture::gaussian_kernel_cases;
using kiln::test::fixture::GaussianCase;
using kiln::test::fixture::KernelCase;

std::vector<double> values_of(const HostArray& a) {
    std::vector<double> v;
    for (size_t i = 0; i < a.size(); ++i) v.push_back(a.at(i));
    return v;
}

}  // namespace

TEST_CASE("gaussian_kernel1d matches scipy.ndimage's weights", "[cpu][gaussian]") {
    for (const KernelCase& c : gaussian_kernel_cases) {
        INFO("sigma " << c.sigma << ", truncate " << c.truncate);
        const std::vector<double> w = gaussian_kernel1d(c.sigma, c.truncate);
        REQUIRE(w.size() == c.weights.size());
        for (size_t i = 0; i < w.size(); ++i) CHECK(w[i] == Approx(c.weights[i]).epsilon(1e-14));
    }
}

TEST_CASE("gaussian_kernel1d by hand", "[cpu][gaussian]") {
    // sigma 1, truncate 1: radius int(1.5) = 1, weights e^-1/2, 1, e^-1/2 normalized.
    const double e = std::exp(-0.5);
    const std::vector<double> w = gaussian_kernel1d(1.0, 1.0);
    REQUIRE(w.size() == 3);
    CHECK(w[0] == Approx(e / (1 + 2 * e)).epsilon(1e-15));
    CHECK(w[1] == Approx(1 / (1 + 2 * e)).epsilon(1e-15));
    CHECK(w[2] == w[0]);

    // radius = int(4 * 2.7 + 0.5) = 11; symmetric, summing to 1.
    const std::vector<double> v = gaussian_kernel1d(2.7);
    REQUIRE(v.size() == 23);
    double total = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        CHECK(v[i] == v[v.size() - 1 - i]);
        total += v[i];
    }
    CHECK(total == Approx(1.0).epsilon(1e-15));
    CHECK(gaussian_kernel1d(0.0) == std::vector<double>{1.0});
}

TEST_CASE("gaussian_filter matches scipy.ndimage.gaussian_filter", "[cpu][gaussian]") {
    for (const GaussianCase& c : gaussian_cases) {
        INFO(c.name);
        const HostArray got = gaussian_filter(to_host(gaussian_inputs[c.input]), c.sigma_zyx, parse_nd_mode(c.mode),
                                              c.cval, c.truncate);
        // float32 passes are rounded to float32 in between, as in SciPy; the
        // sums inside a pass may round differently in the last bit.
        if (got.dtype == DType::float32)
            require_close(got, c.expected, 1e-6, 1e-4);
        else
            require_close(got, c.expected, 1e-13, 1e-13);
    }
}

TEST_CASE("gaussian_filter sigma rules", "[cpu][gaussian]") {
    const HostArray img = to_host(gaussian_inputs[0]);  // 13 x 17 float64
    const HostArray base = gaussian_filter(img, {0.0, 1.5, 0.8});
    // A 2-D image ignores sigma_z.
    CHECK(values_of(gaussian_filter(img, {9.0, 1.5, 0.8})) == values_of(base));
    // Every sigma 0: a copy, integers promoted to float32.
    CHECK(values_of(gaussian_filter(img, {0.0, 0.0, 0.0})) == values_of(img));
    const HostArray u8 = HostArray::from(Shape{2, 2}, std::vector<uint8_t>{0, 7, 255, 3});
    const HostArray copy = gaussian_filter(u8, {0.0, 0.0, 0.0});
    CHECK(copy.dtype == DType::float32);
    CHECK(values_of(copy) == values_of(u8));

    // Blurring a constant image (reflect) keeps it constant; the weights sum to 1.
    const HostArray flat = HostArray::from(Shape{5, 7, 9}, std::vector<double>(315, 3.25));
    for (double v : values_of(gaussian_filter(flat, {1.0, 2.0, 5.0})))
        REQUIRE(v == Approx(3.25).epsilon(1e-14));

    // NaN spreads over the kernel's reach and no further.
    std::vector<double> line(21, 1.0);
    line[10] = nan_v;
    const std::vector<double> r = values_of(
        gaussian_filter(HostArray::from(Shape{21}, line), {0, 0, 1.0}, NdMode::reflect, 0, 2.0));  // radius 2
    for (size_t i = 0; i < r.size(); ++i) CHECK(std::isnan(r[i]) == (i >= 8 && i <= 12));
}

TEST_CASE("gaussian_filter rejects bad arguments", "[cpu][gaussian]") {
    const HostArray img = HostArray::from(Shape{3, 3}, std::vector<float>(9, 1.0f));
    REQUIRE_THROWS_AS(gaussian_filter(img, {0, -1.0, 1.0}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(gaussian_filter(img, {0, nan_v, 1.0}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(gaussian_filter(img, {0, 1.0, inf_v}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(gaussian_filter(img, {-1.0, 1.0, 1.0}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(gaussian_filter(img, {0, 1.0, 1.0}, NdMode::reflect, 0, -1.0), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(gaussian_filter(HostArray{}, {0, 1.0, 1.0}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(gaussian_kernel1d(-0.5), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(gaussian_kernel1d(1e7), kiln::InvalidArgument);
    REQUIRE_THROWS_WITH(gaussian_filter(img, {0, -1.0, 1.0}), Catch::Contains(">= 0"));
}
