// The CPU kappa-sigma clipping against the documented loop run with NumPy
// (fixtures made by tests/data/make_conv.py) and against a case by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/reference/clip.hpp"

namespace {

using kiln::DType;
using kiln::HostArray;
using kiln::Shape;
using kiln::test::host;
using kiln::cpu::kappa_sigma_clip;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

using Array = kiln::test::FixtureArray;
struct ClipCase {
    int input;
    double kappa;
    int max_iters;
    double median, std, mean;
    size_t count;
    int iterations;
    const char* mask;  // '0'/'1' per element, C order
};

#include "../data/conv/clip_cases.inc"

bool close(double got, double want) {
    return kiln::test::close_rel(got, want, 1e-13);
}

}  // namespace

TEST_CASE("kappa_sigma_clip matches the NumPy loop", "[cpu][clip]") {
    for (const ClipCase& c : clip_cases) {
        const HostArray a = to_host(clip_inputs[c.input]);
        INFO("input " << c.input << " " << a.shape.str() << " " << kiln::dtype_name(a.dtype) << ", kappa "
                      << c.kappa << ", max_iters " << c.max_iters);
        const auto r = kappa_sigma_clip(a, c.kappa, c.max_iters, true);
        CHECK(r.count == c.count);
        CHECK(r.iterations == c.iterations);
        CHECK(close(r.median, c.median));
        CHECK(close(r.std, c.std));
        CHECK(close(r.mean, c.mean));
        REQUIRE(r.mask);
        REQUIRE(r.mask->dtype == DType::uint8);
        REQUIRE(r.mask->shape == a.shape);
        std::string mask;
        for (uint8_t m : r.mask->as<uint8_t>()) mask += static_cast<char>('0' + m);
        CHECK(mask == c.mask);
    }
}

TEST_CASE("kappa_sigma_clip by hand", "[cpu][clip]") {
    // Pass 1: median 2.5, std 42.44; 100 lies beyond 2.5 + 2 * 42.44 and goes.
    // Pass 2 on {1, 2, 3}: median 2, std sqrt(2/3), bounds 2 +- 1.63 keep all.
    const auto r = kappa_sigma_clip(host({1, 2, 3, 100}), 2.0);
    CHECK(r.count == 3);
    CHECK(r.iterations == 2);
    CHECK(r.median == 2);
    CHECK(r.mean == 2);
    CHECK(r.std == Approx(std::sqrt(2.0 / 3.0)).epsilon(1e-15));
    CHECK_FALSE(r.mask);

    // Stopping at max_iters keeps the result of the last pass.
    const auto one = kappa_sigma_clip(host({1, 2, 3, 100}), 2.0, 1);
    CHECK(one.count == 3);
    CHECK(one.iterations == 1);

    // NaN and inf are never kept, never counted.
    const auto f = kappa_sigma_clip(host({nan_v, 4, inf_v, 6, -inf_v, 5}), 3.0, 100, true);
    CHECK(f.count == 3);
    CHECK(f.iterations == 1);
    CHECK(f.median == 5);
    const auto m = f.mask->as<uint8_t>();
    CHECK(std::vector<uint8_t>(m.begin(), m.end()) == std::vector<uint8_t>{0, 1, 0, 1, 0, 1});

    // Equal values: std 0, nothing is an outlier; every value is kept, as
    // astropy's sigma_clip keeps them (it used to report count 0 and NaN).
    const auto e = kappa_sigma_clip(HostArray::from(Shape{3}, std::vector<int16_t>{7, 7, 7}), 3.0, 100, true);
    CHECK(e.count == 3);
    CHECK(e.iterations == 1);
    CHECK(e.median == 7);
    CHECK(e.std == 0);
    CHECK(e.mean == 7);
    const auto em = e.mask->as<uint8_t>();
    CHECK(std::vector<uint8_t>(em.begin(), em.end()) == std::vector<uint8_t>{1, 1, 1});
    // Clipped down to equal values: the pass over them keeps them.
    const auto d = kappa_sigma_clip(host({5, 5, 5, 5, 5, 5, 5, 5, 5, 1000}), 2.0, 100, true);
    CHECK(d.count == 9);
    CHECK(d.median == 5);
    CHECK(d.std == 0);
    CHECK(d.iterations == 2);
    CHECK(d.mask->as<uint8_t>()[9] == 0);
    CHECK(d.mask->as<uint8_t>()[0] == 1);
}

TEST_CASE("kappa_sigma_clip rejects bad arguments", "[cpu][clip]") {
    const HostArray a = host({1, 2, 3});
    REQUIRE_THROWS_AS(kappa_sigma_clip(a, 0.0), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(kappa_sigma_clip(a, -1.0), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(kappa_sigma_clip(a, nan_v), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(kappa_sigma_clip(a, inf_v), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(kappa_sigma_clip(a, 3.0, 0), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(kappa_sigma_clip(host({nan_v, inf_v}), 3.0), kiln::InvalidArgument);
    REQUIRE_THROWS_WITH(kappa_sigma_clip(host({nan_v}), 3.0), Catch::Contains("no finite value"));
    REQUIRE_THROWS_AS(kappa_sigma_clip(HostArray{}), kiln::InvalidArgument);
}
