// cpu::measure against scipy.ndimage's per-label functions (fixtures from
// tests/data/make_astro.py) and against hand-computed cases for the rules
// SciPy leaves open: NaN pixels, absent labels, ties.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/reference/measure.hpp"
#include "measure_fixture.hpp"

using kiln::DType;
using kiln::HostArray;
using kiln::Shape;
using kiln::LabelStats;

namespace {

using Expected = kiln::test::MeasureExpected;
using kiln::test::MeasureCase;
using kiln::test::measure_cases;
using kiln::test::from_values;

// The one-pass variance differs from SciPy's two-pass formula in the last
// bits; the sums and centroids are summed in the same order as SciPy's.
void check_close(double got, double want) {
    if (std::isnan(want)) {
        CHECK(std::isnan(got));
        return;
    }
    CHECK(got == Approx(want).epsilon(1e-12));
}

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("measure matches scipy.ndimage per-label statistics", "[cpu][measure]") {
    for (const MeasureCase& c : measure_cases) {
        INFO(c.name);
        const HostArray image = from_values(c.shape, kiln::parse_dtype(c.image_dtype), c.image);
        const HostArray labels = from_values(c.shape, kiln::parse_dtype(c.label_dtype), c.labels);
        const auto stats = kiln::cpu::measure(image, labels, c.index);
        REQUIRE(stats.size() == c.expected.size());
        for (size_t k = 0; k < stats.size(); ++k) {
            const LabelStats& s = stats[k];
            const Expected& e = c.expected[k];
            INFO("label " << e.label);
            CHECK(s.label == e.label);
            CHECK(s.count == e.count);
            check_close(s.sum, e.sum);
            check_close(s.mean, e.mean);
            check_close(s.variance, e.variance);
            check_close(s.std, e.std);
            CHECK(s.min == e.min);
            CHECK(s.max == e.max);
            CHECK(s.min_pos == e.min_pos);
            CHECK(s.max_pos == e.max_pos);
            for (int d = 0; d < 3; ++d) check_close(s.center_of_mass[d], e.center_of_mass[d]);
            CHECK(s.bbox_start == e.bbox_start);
            CHECK(s.bbox_stop == e.bbox_stop);
        }
    }
}

TEST_CASE("measure skips NaN pixels as if unlabelled", "[cpu][measure]") {
    const double n = nan_v;
    const auto image = HostArray::from(Shape{3, 4}, std::vector<float>{1, 2, float(n), 0,  //
                                                                       4, 8, 0, 0,         //
                                                                       float(n), 0, 0, 0});
    const auto labels = HostArray::from(Shape{3, 4}, std::vector<int32_t>{1, 1, 1, 0,  //
                                                                          1, 1, 0, 0,  //
                                                                          1, 0, 0, 2});
    const auto stats = kiln::cpu::measure(image, labels);
    REQUIRE(stats.size() == 2);
    const LabelStats& s = stats[0];
    CHECK(s.count == 4);
    CHECK(s.sum == 15);
    CHECK(s.mean == 3.75);
    // values 1, 2, 4, 8: squared deviations 7.5625 + 3.0625 + 0.0625 + 18.0625
    CHECK(s.variance == Approx(28.75 / 4).epsilon(1e-15));
    CHECK(s.std == Approx(std::sqrt(28.75 / 4)).epsilon(1e-15));
    CHECK(s.min == 1);
    CHECK(s.max == 8);
    CHECK(s.min_pos == std::array<int64_t, 3>{0, 0, 0});
    CHECK(s.max_pos == std::array<int64_t, 3>{0, 1, 1});
    // sum(v * y) = 4 + 8 = 12, sum(v * x) = 2 + 8 = 10
    CHECK(s.center_of_mass[0] == 0);
    CHECK(s.center_of_mass[1] == Approx(12.0 / 15));
    CHECK(s.center_of_mass[2] == Approx(10.0 / 15));
    // The NaN pixels at (0, 2) and (2, 0) do not widen the box.
    CHECK(s.bbox_start == std::array<int64_t, 3>{0, 0, 0});
    CHECK(s.bbox_stop == std::array<int64_t, 3>{1, 2, 2});
    CHECK(stats[1].count == 1);
    CHECK(stats[1].sum == 0);
    CHECK(stats[1].bbox_start == std::array<int64_t, 3>{0, 2, 3});
}

TEST_CASE("measure gives empty statistics for labels without pixels", "[cpu][measure]") {
    const auto image = HostArray::from(Shape{2, 3}, std::vector<double>{5, 6, nan_v, 7, 8, 9});
    const auto labels = HostArray::from(Shape{2, 3}, std::vector<uint8_t>{1, 1, 4, 3, 3, 0});
    const auto check_empty = [](const LabelStats& s) {
        CHECK(s.count == 0);
        CHECK(s.sum == 0);
        for (double v : {s.mean, s.variance, s.std, s.min, s.max, s.center_of_mass[0], s.center_of_mass[1],
                         s.center_of_mass[2]})
            CHECK(std::isnan(v));
        CHECK(s.min_pos == std::array<int64_t, 3>{});
        CHECK(s.bbox_start == std::array<int64_t, 3>{});
        CHECK(s.bbox_stop == std::array<int64_t, 3>{});
    };
    SECTION("all labels 1..max, with gaps and a label whose pixels are all NaN") {
        const auto stats = kiln::cpu::measure(image, labels);
        REQUIRE(stats.size() == 4);
        for (int32_t k = 0; k < 4; ++k) CHECK(stats[size_t(k)].label == k + 1);
        CHECK(stats[0].count == 2);
        check_empty(stats[1]);
        CHECK(stats[2].sum == 15);
        check_empty(stats[3]);
    }
    SECTION("an index naming absent labels, duplicates and the background") {
        const std::vector<int32_t> index{3, 99, -5, 3, 0};
        const auto stats = kiln::cpu::measure(image, labels, index);
        REQUIRE(stats.size() == 5);
        for (size_t k = 0; k < index.size(); ++k) CHECK(stats[k].label == index[k]);
        CHECK(stats[0].count == 2);
        CHECK(stats[0].mean == 7.5);
        check_empty(stats[1]);
        check_empty(stats[2]);
        CHECK(stats[3].count == 2);
        CHECK(stats[3].max_pos == stats[0].max_pos);
        CHECK(stats[4].count == 1);
        CHECK(stats[4].sum == 9);
        CHECK(stats[4].min_pos == std::array<int64_t, 3>{0, 1, 2});
    }
    SECTION("no labelled pixel at all gives no entries") {
        const HostArray none(Shape{2, 3}, DType::int32);
        CHECK(kiln::cpu::measure(image, none).empty());
    }
}

TEST_CASE("measure breaks ties at the first pixel in raster order", "[cpu][measure]") {
    const auto image = HostArray::from(Shape{2, 2, 3}, std::vector<int16_t>{3, 1, 9, 1, 9, 3,  //
                                                                            9, 1, 3, 3, 1, 9});
    const HostArray labels = [] {
        HostArray l(Shape{2, 2, 3}, DType::int32);
        for (auto& v : l.as<int32_t>()) v = 7;
        return l;
    }();
    const auto stats = kiln::cpu::measure(image, labels, std::vector<int32_t>{7});
    REQUIRE(stats.size() == 1);
    CHECK(stats[0].min_pos == std::array<int64_t, 3>{0, 0, 1});
    CHECK(stats[0].max_pos == std::array<int64_t, 3>{0, 0, 2});
    CHECK(stats[0].bbox_stop == std::array<int64_t, 3>{2, 2, 3});
}

TEST_CASE("measure rejects labels it cannot use", "[cpu][measure]") {
    const HostArray image(Shape{4, 5}, DType::float32);
    CHECK_THROWS_WITH(kiln::cpu::measure(image, HostArray(Shape{5, 4}, DType::int32)),
                      Catch::Contains("(4, 5)") && Catch::Contains("(5, 4)"));
    CHECK_THROWS_WITH(kiln::cpu::measure(image, HostArray(Shape{4, 5}, DType::float32)),
                      Catch::Contains("integer"));
    HostArray huge(Shape{4, 5}, DType::uint32);
    huge.as<uint32_t>()[3] = 3000000000u;
    CHECK_THROWS_WITH(kiln::cpu::measure(image, huge), Catch::Contains("3000000000"));
    huge.as<uint32_t>()[3] = 2000000000u;
    CHECK_THROWS_WITH(kiln::cpu::measure(image, huge), Catch::Contains("pass an index"));
    const auto one = kiln::cpu::measure(image, huge, std::vector<int32_t>{2000000000});
    REQUIRE(one.size() == 1);
    CHECK(one[0].count == 1);
    CHECK(one[0].min_pos == std::array<int64_t, 3>{0, 0, 3});
}

TEST_CASE("stats_to_csv writes a header and exact numbers", "[cpu][measure]") {
    const auto image = HostArray::from(Shape{2, 3}, std::vector<double>{0.1, 0.2, 0, 0, 0.7, 0});
    const auto labels = HostArray::from(Shape{2, 3}, std::vector<int32_t>{1, 1, 0, 0, 1, 0});
    const auto stats = kiln::cpu::measure(image, labels, std::vector<int32_t>{1, 2});
    const std::string csv = kiln::stats_to_csv(stats, 2);
    std::istringstream lines(csv);
    std::string header, first, second, extra;
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    CHECK_FALSE(std::getline(lines, extra));
    CHECK(header ==
          "label,count,sum,mean,variance,std,min,max,min_pos_y,min_pos_x,max_pos_y,"
          "max_pos_x,center_of_mass_y,center_of_mass_x,bbox_start_y,bbox_start_x,"
          "bbox_stop_y,bbox_stop_x");
    std::vector<std::string> cells;
    std::istringstream row(first);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    REQUIRE(cells.size() == 18);
    CHECK(cells[0] == "1");
    CHECK(cells[1] == "3");
    // Shortest round-trip form: reading the text back gives the double exactly.
    CHECK(std::strtod(cells[2].c_str(), nullptr) == stats[0].sum);
    CHECK(std::strtod(cells[3].c_str(), nullptr) == stats[0].mean);
    CHECK(std::strtod(cells[12].c_str(), nullptr) == stats[0].center_of_mass[1]);
    CHECK(cells[6] == "0.1");
    CHECK(cells[7] == "0.7");
    CHECK(std::vector<std::string>(cells.begin() + 8, cells.begin() + 12) ==
          std::vector<std::string>{"0", "0", "1", "1"});
    CHECK(std::vector<std::string>(cells.begin() + 14, cells.end()) ==
          std::vector<std::string>{"0", "0", "2", "2"});
    CHECK(second == "2,0,0,nan,nan,nan,nan,nan,0,0,0,0,nan,nan,0,0,0,0");

    CHECK(kiln::stats_to_csv({}, 3).rfind("label,count", 0) == 0);
    CHECK(kiln::stats_to_csv({}, 1).find("min_pos_x,max_pos_x") != std::string::npos);
    CHECK_THROWS_AS(kiln::stats_to_csv(stats, 4), kiln::InvalidArgument);
    CHECK_THROWS_AS(kiln::stats_to_csv(stats, 0), kiln::InvalidArgument);
}
