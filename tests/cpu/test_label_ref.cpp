// cpu::label against scipy.ndimage.label (fixtures from tests/data/make_astro.py)
// and against exact properties of worst-case masks.
#include <catch2/catch.hpp>

#include <cmath>  // NAN in the fixtures
#include <string>
#include <vector>

#include "kiln/reference/label.hpp"
#include "label_fixture.hpp"

using kiln::DType;
using kiln::HostArray;
using kiln::Shape;

namespace {

using kiln::test::fixture::label_cases;
using kiln::test::fixture::LabelCase;

HostArray from_doubles(const std::vector<size_t>& dims, DType dtype, const std::vector<double>& values) {
    HostArray a(Shape::of(dims.size(), dims.data()), dtype);
    kiln::visit_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        auto out = a.as<T>();
        for (size_t i = 0; i < values.size(); ++i) out[i] = T(values[i]);
    });
    return a;
}

HostArray mask_from_rows(const std::vector<std::string>& rows) {
    std::vector<uint8_t> v;
    for (const auto& r : rows)
        for (char c : r) v.push_back(c == '#');
    return HostArray::from(Shape{rows.size(), rows[0].size()}, v);
}

}  // namespace

TEST_CASE("label matches scipy.ndimage.label element for element", "[cpu][label]") {
    for (const LabelCase& c : label_cases) {
        INFO(c.name);
        const HostArray mask = from_doubles(c.shape, kiln::parse_dtype(c.dtype), c.mask);
        const auto result = kiln::cpu::label(mask, c.connectivity);
        REQUIRE(result.labels.dtype == DType::int32);
        REQUIRE(result.labels.shape == mask.shape);
        CHECK(result.count == c.count);
        const auto got = result.labels.as<int32_t>();
        REQUIRE(std::vector<int32_t>(got.begin(), got.end()) == c.labels);
    }
}

TEST_CASE("label numbers components by their first pixel in raster order", "[cpu][label]") {
    // (1, 0) is scanned after (0, 3) but joins the component that starts at
    // (0, 1): it must take label 1, not a number in scan order.
    const HostArray mask = mask_from_rows({".#.#", "##..", "...#"});
    const auto r = kiln::cpu::label(mask);
    CHECK(r.count == 3);
    const auto l = r.labels.as<int32_t>();
    CHECK(std::vector<int32_t>(l.begin(), l.end()) ==
          std::vector<int32_t>{0, 1, 0, 2, 1, 1, 0, 0, 0, 0, 0, 3});
}

TEST_CASE("label defaults to face connectivity in every rank", "[cpu][label]") {
    const HostArray diagonal = mask_from_rows({"#.", ".#"});
    CHECK(kiln::cpu::label(diagonal).count == 2);
    CHECK(kiln::cpu::label(diagonal, 4).count == 2);
    CHECK(kiln::cpu::label(diagonal, 8).count == 1);

    std::vector<uint8_t> corner(8, 0);
    corner[0] = corner[7] = 1;  // (0,0,0) and (1,1,1): corners touch only with 26
    const auto cube = HostArray::from(Shape{2, 2, 2}, corner);
    CHECK(kiln::cpu::label(cube).count == 2);
    CHECK(kiln::cpu::label(cube, 18).count == 2);
    CHECK(kiln::cpu::label(cube, 26).count == 1);

    corner[7] = 0;
    corner[3] = 1;  // (0,1,1): shares an edge with (0,0,0)
    const auto edge = HostArray::from(Shape{2, 2, 2}, corner);
    CHECK(kiln::cpu::label(edge, 6).count == 2);
    CHECK(kiln::cpu::label(edge, 18).count == 1);

    const auto line = HostArray::from(Shape{5}, std::vector<uint8_t>{1, 1, 0, 1, 0});
    CHECK(kiln::cpu::label(line).count == 2);
    CHECK(kiln::cpu::label(line, 2).count == 2);
}

TEST_CASE("label rejects connectivities the rank does not have", "[cpu][label]") {
    const HostArray flat(Shape{3, 4}, DType::uint8);
    const HostArray cube(Shape{2, 3, 4}, DType::uint8);
    const HostArray line(Shape{4}, DType::uint8);
    CHECK_THROWS_WITH(kiln::cpu::label(flat, 6), Catch::Contains("accepted: 4, 8"));
    CHECK_THROWS_WITH(kiln::cpu::label(cube, 8), Catch::Contains("accepted: 6, 18, 26"));
    CHECK_THROWS_AS(kiln::cpu::label(line, 4), kiln::InvalidArgument);
    CHECK_THROWS_AS(kiln::cpu::label(flat, -4), kiln::InvalidArgument);
    CHECK_THROWS_AS(kiln::cpu::label(HostArray{}), kiln::InvalidArgument);
}

TEST_CASE("label worst cases at a larger size", "[cpu][label]") {
    const size_t n = 127, m = 129;
    SECTION("all ones is one component, all zeros none") {
        HostArray ones(Shape{n, m}, DType::uint8);
        for (auto& v : ones.as<uint8_t>()) v = 1;
        for (int conn : {4, 8}) {
            const auto r = kiln::cpu::label(ones, conn);
            CHECK(r.count == 1);
            for (int32_t v : r.labels.as<int32_t>()) REQUIRE(v == 1);
        }
        const auto none = kiln::cpu::label(HostArray(Shape{n, m}, DType::float32));
        CHECK(none.count == 0);
        for (int32_t v : none.labels.as<int32_t>()) REQUIRE(v == 0);
    }
    SECTION("checkerboard: every cell alone with 4, one component with 8") {
        HostArray board(Shape{n, m}, DType::int32);
        auto b = board.as<int32_t>();
        int32_t ones = 0;
        for (size_t y = 0; y < n; ++y)
            for (size_t x = 0; x < m; ++x) ones += b[y * m + x] = (x + y) % 2;
        const auto four = kiln::cpu::label(board, 4);
        CHECK(four.count == ones);
        // Each isolated cell gets the next number in raster order.
        int32_t expected = 0;
        const auto l = four.labels.as<int32_t>();
        for (size_t i = 0; i < l.size(); ++i) REQUIRE(l[i] == (b[i] ? ++expected : 0));
        CHECK(kiln::cpu::label(board, 8).count == 1);
    }
    SECTION("a serpentine joined at alternate ends is one component") {
        // Rows of ones linked at alternating ends: every merge happens one
        // row after the pieces were first seen, the worst case for a scan.
        HostArray snake(Shape{n, m}, DType::uint8);
        auto s = snake.as<uint8_t>();
        for (size_t y = 0; y < n; ++y)
            for (size_t x = 0; x < m; ++x) {
                const bool link = (y % 4 == 1 && x == m - 1) || (y % 4 == 3 && x == 0);
                s[y * m + x] = y % 2 == 0 || link;
            }
        const auto r = kiln::cpu::label(snake, 4);
        CHECK(r.count == 1);
    }
}
