// The CPU convolutions against SciPy's and NumPy's results (fixtures made by
// tests/data/make_conv.py) and against small cases worked out by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "conv_fixture.hpp"
#include "cpu_support.hpp"
#include "kiln/reference/convolve.hpp"

namespace {

using kiln::DType;
using kiln::HostArray;
using kiln::Shape;
using kiln::test::host;
using kiln::parse_boundary;
using kiln::parse_conv_mode;
using kiln::parse_nd_mode;
using namespace kiln::cpu;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

using Array = kiln::test::FixtureArray;
using kiln::test::fixture::conv2d_cases;
using kiln::test::fixture::conv_inputs;
using kiln::test::fixture::nd_convolve1d_cases;
using kiln::test::fixture::np_convolve_cases;
using kiln::test::fixture::Conv2dCase;
using kiln::test::fixture::NdConvCase;
using kiln::test::fixture::NpConvCase;

std::vector<double> values_of(const HostArray& a) {
    std::vector<double> v;
    for (size_t i = 0; i < a.size(); ++i) v.push_back(a.at(i));
    return v;
}

}  // namespace

TEST_CASE("convolve2d matches scipy.signal.convolve2d", "[cpu][convolve]") {
    for (const Conv2dCase& c : conv2d_cases) {
        INFO(c.name);
        const DType t = kiln::parse_dtype(c.dtype);
        const HostArray got = convolve2d(to_host(conv_inputs[c.image], t), to_host(conv_inputs[c.kernel], t),
                                         parse_conv_mode(c.mode), parse_boundary(c.boundary), c.fillvalue);
        // float32: SciPy's float64 result rounded once, as kiln rounds its
        // double sums; one float32 rounding apart at most.
        if (got.dtype == DType::float32)
            require_close(got, c.expected, 2.4e-7, 1e-30);
        else
            require_close(got, c.expected, 1e-13, 1e-12);
    }
}

TEST_CASE("convolve2d small cases by hand", "[cpu][convolve]") {
    const HostArray img = host({2, 2}, {1, 2, 3, 4});
    CHECK(values_of(convolve2d(img, host({1, 2}, {1, 1}))) == std::vector<double>{1, 3, 2, 3, 7, 4});

    // True convolution: a centred impulse reproduces the kernel unflipped.
    const HostArray delta = host({3, 3}, {0, 0, 0, 0, 1, 0, 0, 0, 0});
    const HostArray k = host({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    CHECK(values_of(convolve2d(delta, k, ConvMode::same)) == values_of(k));

    // 'same' with an even kernel starts at full index (2 - 1) / 2 = 0.
    CHECK(values_of(convolve2d(host({1, 3}, {1, 2, 3}), host({1, 2}, {1, 10}), ConvMode::same)) ==
          std::vector<double>{1, 12, 23});

    const HostArray one = host({1, 1}, {2});
    const HostArray ones = host({3, 3}, std::vector<double>(9, 1.0));
    CHECK(values_of(convolve2d(one, ones, ConvMode::same, Boundary::symm)) == std::vector<double>{18});
    CHECK(values_of(convolve2d(one, ones, ConvMode::same, Boundary::wrap)) == std::vector<double>{18});
    CHECK(values_of(convolve2d(one, ones, ConvMode::same, Boundary::fill, 1.0)) == std::vector<double>{10});
}

TEST_CASE("convolve2d valid mode swaps or refuses as SciPy does", "[cpu][convolve]") {
    const HostArray a = to_host(conv_inputs[0], DType::float64);      // 13 x 17
    const HostArray gauss = to_host(conv_inputs[3], DType::float64);  // 15 x 15
    REQUIRE_THROWS_AS(convolve2d(a, gauss, ConvMode::valid), kiln::InvalidArgument);
    REQUIRE_THROWS_WITH(convolve2d(a, gauss, ConvMode::valid),
                        Catch::Contains("(13, 17)") && Catch::Contains("(15, 15)"));
    // Neither fits, but the other modes accept any sizes.
    CHECK(convolve2d(a, gauss, ConvMode::same).shape == Shape({13, 17}));

    const HostArray small = host({2, 3}, {1, 2, 3, 4, 5, 6});
    const HostArray big = host({3, 4}, {1, -1, 2, 0, 3, 1, -2, 5, 0, 4, 1, 1});
    CHECK(values_of(convolve2d(small, big, ConvMode::valid)) ==
          values_of(convolve2d(big, small, ConvMode::valid)));
}

TEST_CASE("convolve2d dtypes and bad input", "[cpu][convolve]") {
    const HostArray f32 = HostArray::from(Shape{2, 2}, std::vector<float>{1, 2, 3, 4});
    const HostArray i16 = HostArray::from(Shape{1, 2}, std::vector<int16_t>{1, -1});
    const HostArray f64 = host({1, 1}, {0.5});
    CHECK(convolve2d(f32, i16).dtype == DType::float32);
    CHECK(convolve2d(i16, i16).dtype == DType::float32);
    CHECK(convolve2d(f32, f64).dtype == DType::float64);
    CHECK(values_of(convolve2d(i16, i16)) == std::vector<double>{1, -2, 1});

    // The fill value is converted to the result dtype first, as in SciPy:
    // 1 + 2^-24 becomes 1.0f, and 2^-24 + 1 then rounds to 1.0f (it would
    // reach 1 + 2^-23 with the fill value unrounded).
    const float tiny = std::ldexp(1.0f, -24);
    const HostArray filled = convolve2d(HostArray::from(Shape{1, 1}, std::vector<float>{tiny}),
                                        HostArray::from(Shape{1, 2}, std::vector<float>{1, 1}),
                                        ConvMode::full, Boundary::fill, 1.0 + std::ldexp(1.0, -24));
    CHECK(values_of(filled) == std::vector<double>{1.0, 1.0});

    // NaN and inf propagate through the sums.
    const HostArray bad = host({1, 3}, {1, nan_v, inf_v});
    const HostArray r = convolve2d(bad, host({1, 1}, {2}));
    CHECK(r.at(0) == 2);
    CHECK(std::isnan(r.at(1)));
    CHECK(r.at(2) == inf_v);

    REQUIRE_THROWS_AS(convolve2d(host({3}, {1, 2, 3}), f64), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(convolve2d(HostArray{}, f64), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(convolve2d(f64, HostArray{}), kiln::InvalidArgument);
}

TEST_CASE("convolve matches numpy.convolve", "[cpu][convolve]") {
    for (const NpConvCase& c : np_convolve_cases) {
        INFO("lengths " << conv_inputs[c.a].values.size() << " and " << conv_inputs[c.v].values.size()
                        << ", mode " << c.mode);
        const HostArray got = convolve(to_host(conv_inputs[c.a], DType::float64),
                                       to_host(conv_inputs[c.v], DType::float64), parse_conv_mode(c.mode));
        require_close(got, c.expected, 1e-13, 1e-13);
    }
}

TEST_CASE("convolve small cases by hand", "[cpu][convolve]") {
    const HostArray a = host({3}, {1, 2, 3});
    const HostArray v = host({3}, {0, 1, 0.5});
    CHECK(values_of(convolve(a, v)) == std::vector<double>{0, 1, 2.5, 4, 1.5});
    CHECK(values_of(convolve(a, v, ConvMode::same)) == std::vector<double>{1, 2.5, 4});
    CHECK(values_of(convolve(a, v, ConvMode::valid)) == std::vector<double>{2.5});
    // The longer operand plays the signal whichever argument it is.
    const HostArray two = host({2}, {1, 10});
    CHECK(values_of(convolve(two, a, ConvMode::same)) == std::vector<double>{1, 12, 23});
    CHECK(values_of(convolve(two, a, ConvMode::valid)) == std::vector<double>{12, 23});

    CHECK(convolve(HostArray::from(Shape{2}, std::vector<uint8_t>{1, 2}),
                   HostArray::from(Shape{1}, std::vector<int32_t>{3}))
              .dtype == DType::float32);
    REQUIRE_THROWS_AS(convolve(host({1, 3}, {1, 2, 3}), v), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(convolve(a, HostArray{}), kiln::InvalidArgument);
}

TEST_CASE("convolve1d matches scipy.ndimage.convolve1d", "[cpu][convolve]") {
    for (const NdConvCase& c : nd_convolve1d_cases) {
        const Array& in = conv_inputs[c.input];
        const std::vector<double>& w = conv_inputs[c.weights].values;
        INFO("input " << c.input << " (" << c.dtype << "), " << w.size() << " weights, axis " << c.axis
                      << ", mode " << c.mode << ", origin " << c.origin);
        const HostArray got =
            convolve1d(to_host(in, kiln::parse_dtype(c.dtype)), w, c.axis, parse_nd_mode(c.mode), c.cval, c.origin);
        if (got.dtype == DType::float32)
            require_close(got, c.expected, 2.4e-7, 1e-9);
        else
            require_close(got, c.expected, 1e-13, 1e-12);
    }
}

TEST_CASE("convolve1d boundary modes by hand", "[cpu][convolve]") {
    // w = (1, 0, -1) centred: out[i] = x[i + 1] - x[i - 1].
    const HostArray x = host({4}, {1, 2, 4, 8});
    const std::vector<double> w{1, 0, -1};
    CHECK(values_of(convolve1d(x, w, 0, NdMode::reflect)) == std::vector<double>{1, 3, 6, 4});
    CHECK(values_of(convolve1d(x, w, 0, NdMode::constant)) == std::vector<double>{2, 3, 6, -4});
    CHECK(values_of(convolve1d(x, w, 0, NdMode::nearest)) == std::vector<double>{1, 3, 6, 4});
    CHECK(values_of(convolve1d(x, w, 0, NdMode::mirror)) == std::vector<double>{0, 3, 6, 0});
    CHECK(values_of(convolve1d(x, w, 0, NdMode::wrap)) == std::vector<double>{-6, 3, 6, -3});
    // origin shifts the window: origin -1 reads x[i] - x[i - 2].
    CHECK(values_of(convolve1d(x, w, 0, NdMode::constant, 0, -1)) == std::vector<double>{1, 2, 3, 6});

    const HostArray u8 = HostArray::from(Shape{3}, std::vector<uint8_t>{1, 2, 250});
    const HostArray r = convolve1d(u8, std::vector<double>{1, 1}, 0, NdMode::nearest);
    CHECK(r.dtype == DType::float32);
}

TEST_CASE("convolve1d rejects bad arguments", "[cpu][convolve]") {
    const HostArray x = host({2, 3}, {1, 2, 3, 4, 5, 6});
    const std::vector<double> w3{1, 2, 1}, w4{1, 2, 2, 1};
    REQUIRE_THROWS_AS(convolve1d(x, std::vector<double>{}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(convolve1d(x, w3, 2), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(convolve1d(x, w3, -3), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(convolve1d(HostArray{}, w3), kiln::InvalidArgument);
    // Origins SciPy accepts: -1..1 for three weights, -2..1 for four.
    REQUIRE_THROWS_AS(convolve1d(x, w3, -1, NdMode::reflect, 0, 2), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(convolve1d(x, w3, -1, NdMode::reflect, 0, -2), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(convolve1d(x, w4, -1, NdMode::reflect, 0, 2), kiln::InvalidArgument);
    REQUIRE_NOTHROW(convolve1d(x, w4, -1, NdMode::reflect, 0, -2));
    REQUIRE_NOTHROW(convolve1d(x, w4, -1, NdMode::reflect, 0, 1));
}

TEST_CASE("mode, boundary and ndimage mode names parse as SciPy spells them", "[cpu][convolve]") {
    CHECK(parse_conv_mode("same") == kiln::ConvMode::same);
    CHECK(parse_boundary("symm") == kiln::Boundary::symm);
    CHECK(parse_nd_mode("mirror") == kiln::NdMode::mirror);
    CHECK_THROWS_WITH(parse_conv_mode("Full"), Catch::Contains("accepted: full, same, valid"));
    CHECK_THROWS_WITH(parse_boundary("reflect"), Catch::Contains("accepted: fill, wrap, symm"));
    CHECK_THROWS_WITH(parse_nd_mode("grid-wrap"),
                      Catch::Contains("accepted: reflect, constant, nearest, mirror, wrap"));
}
