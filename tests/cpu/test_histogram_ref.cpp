// The CPU histogram and bincount against NumPy's results (fixtures made by
// tests/data/make_hist.py) and against small cases worked out by hand.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hist_fixture.hpp"
#include "kiln/reference/histogram.hpp"

namespace {

using kiln::test::fixture::bincount_cases;
using kiln::test::fixture::hist_cases;
using kiln::test::fixture::hist_data;
using kiln::test::fixture::BincountCase;
using kiln::test::fixture::HistCase;
using kiln::test::fixture::HistData;
using kiln::test::fixture::bits_of;
using kiln::test::fixture::to_array;

} // namespace

TEST_CASE("histogram matches numpy.histogram exactly", "[cpu][histogram]") {
    for (const HistCase& c : hist_cases) {
        INFO(c.name);
        const kiln::HostArray a = to_array(hist_data[c.data]);
        std::optional<std::pair<double, double>> range;
        if (c.has_range)
            range = std::pair{std::bit_cast<double>(c.lo_bits), std::bit_cast<double>(c.hi_bits)};
        const kiln::cpu::Histogram h = kiln::cpu::histogram(a, c.bins, range);
        CHECK(h.counts == c.counts);
        // Edges compared bit for bit: float32 input must give float32-rounded edges.
        CHECK(bits_of(h.edges) == c.edge_bits);
    }
}

TEST_CASE("bincount matches numpy.bincount", "[cpu][histogram][bincount]") {
    for (const BincountCase& c : bincount_cases) {
        INFO("data " << c.data << " minlength " << c.minlength);
        CHECK(kiln::cpu::bincount(to_array(hist_data[c.data]), c.minlength) == c.counts);
    }
}

TEST_CASE("histogram small cases by hand", "[cpu][histogram]") {
    using kiln::HostArray;
    using kiln::Shape;
    using kiln::cpu::histogram;

    SECTION("upper edge goes into the last bin, values outside are dropped") {
        auto a = HostArray::from(Shape{7}, std::vector<double>{-1, 0, 1, 2, 3, 4, 4.5});
        auto h = histogram(a, 4, std::pair{0.0, 4.0});
        CHECK(h.counts == std::vector<int64_t>{1, 1, 1, 2});
        CHECK(h.edges == std::vector<double>{0, 1, 2, 3, 4});
    }
    SECTION("automatic range is min..max; a single value is widened by 0.5") {
        auto a = HostArray::from(Shape{2, 3}, std::vector<int32_t>{2, 4, 6, 8, 10, 10});
        auto h = histogram(a, 4);
        CHECK(h.counts == std::vector<int64_t>{1, 1, 1, 3});
        CHECK(h.edges == std::vector<double>{2, 4, 6, 8, 10});
        auto one = histogram(HostArray::from(Shape{3}, std::vector<uint8_t>{5, 5, 5}), 2);
        CHECK(one.counts == std::vector<int64_t>{0, 3});
        CHECK(one.edges == std::vector<double>{4.5, 5, 5.5});
    }
    SECTION("NaN and infinities are dropped, also with an automatic range") {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        auto a = HostArray::from(Shape{6}, std::vector<float>{nan, 1, inf, 3, -inf, 2});
        auto h = histogram(a, 2);
        CHECK(h.counts == std::vector<int64_t>{1, 2});
        CHECK(h.edges == std::vector<double>{1, 2, 3});
        // No finite value: no range to find, refused as NumPy refuses it
        // (it used to count nothing over (0, 1)).
        auto all_nan = HostArray::from(Shape{2}, std::vector<float>{nan, nan});
        CHECK_THROWS_WITH(histogram(all_nan, 2), Catch::Contains("none of the 2 values is finite"));
        CHECK_THROWS_AS(histogram(HostArray::from(Shape{2}, std::vector<double>{inf, -inf}), 2), kiln::InvalidArgument);
        auto e = histogram(all_nan, 2, std::pair{0.0, 1.0});
        CHECK(e.counts == std::vector<int64_t>{0, 0});
    }
    SECTION("counts add up to the number of values inside the range") {
        std::vector<float> v;
        for (int i = 0; i < 1031; ++i) v.push_back(static_cast<float>((i * 7919) % 1000) * 0.01f);
        auto h = histogram(HostArray::from(Shape{1031}, v), 13, std::pair{1.0, 7.5});
        int64_t inside = 0, total = 0;
        for (float x : v) inside += (x >= 1.0f && x <= 7.5f);
        for (int64_t c : h.counts) total += c;
        CHECK(total == inside);
    }
}

TEST_CASE("histogram rejects bad arguments", "[cpu][histogram][errors]") {
    using kiln::InvalidArgument;
    auto a = kiln::HostArray::from(kiln::Shape{3}, std::vector<float>{1, 2, 3});
    CHECK_THROWS_AS(kiln::cpu::histogram(a, 0), InvalidArgument);
    CHECK_THROWS_AS(kiln::cpu::histogram(a, -3), InvalidArgument);
    CHECK_THROWS_WITH(kiln::cpu::histogram(a, 4, std::pair{2.0, 2.0}),
                      Catch::Contains("min < max"));
    CHECK_THROWS_AS(kiln::cpu::histogram(a, 4, std::pair{3.0, 1.0}), InvalidArgument);
    const double inf = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(kiln::cpu::histogram(a, 4, std::pair{0.0, inf}),
                      Catch::Contains("not finite"));
    CHECK_THROWS_AS(kiln::cpu::histogram(a, 4, std::pair{std::nan(""), 1.0}), InvalidArgument);
}

TEST_CASE("bincount by hand and its errors", "[cpu][histogram][bincount]") {
    using kiln::HostArray;
    using kiln::Shape;
    auto a = HostArray::from(Shape{6}, std::vector<uint16_t>{0, 3, 3, 1, 3, 0});
    CHECK(kiln::cpu::bincount(a) == std::vector<int64_t>{2, 1, 0, 3});
    CHECK(kiln::cpu::bincount(a, 6) == std::vector<int64_t>{2, 1, 0, 3, 0, 0});
    CHECK(kiln::cpu::bincount(a, 2) == std::vector<int64_t>{2, 1, 0, 3});
    HostArray empty;
    empty.dtype = kiln::DType::int32;
    CHECK(kiln::cpu::bincount(empty, 3) == std::vector<int64_t>{0, 0, 0});

    auto neg = HostArray::from(Shape{5}, std::vector<int8_t>{1, 2, -4, 0, -1});
    CHECK_THROWS_AS(kiln::cpu::bincount(neg), kiln::InvalidArgument);
    CHECK_THROWS_WITH(kiln::cpu::bincount(neg), Catch::Contains("value -4 at index 2"));
    auto f = HostArray::from(Shape{2}, std::vector<float>{1, 2});
    CHECK_THROWS_WITH(kiln::cpu::bincount(f), Catch::Contains("float32"));
}

TEST_CASE("histogram of integers 0 to 255 with 256 unit bins equals bincount",
          "[cpu][histogram][bincount]") {
    std::vector<int32_t> v(1031);
    uint32_t s = 12345;
    for (int32_t& x : v) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<int32_t>(s >> 24);
    }
    auto a = kiln::HostArray::from(kiln::Shape{1031}, v);
    CHECK(kiln::cpu::histogram(a, 256, std::pair{0.0, 256.0}).counts ==
          kiln::cpu::bincount(a, 256));
}
