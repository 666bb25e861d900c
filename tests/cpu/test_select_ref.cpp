// The CPU median and percentiles against numpy.median / numpy.percentile
// (fixtures made by tests/data/make_conv.py) and small cases by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

#include "cpu/select.hpp"
#include "cpu_support.hpp"

namespace {

using kiln::DType;
using kiln::HostArray;
using kiln::Shape;
using kiln::test::host;
namespace cpu = kiln::cpu;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

using Array = kiln::test::FixtureArray;
struct SelectCase {
    int input;
    double median;
    std::vector<double> percentiles;  // at select_qs
};

#include "../data/conv/select_cases.inc"

// The same IEEE operations as NumPy, so equal; the tolerance only allows for
// a compiler contracting a + b * t into one fused multiply-add.
bool same(double got, double want) {
    return kiln::test::close_rel(got, want, 1e-15);
}

}  // namespace

TEST_CASE("median and percentile match NumPy", "[cpu][select]") {
    const std::vector<double> qs(std::begin(select_qs), std::end(select_qs));
    for (const SelectCase& c : select_cases) {
        const HostArray a = to_host(select_inputs[c.input]);
        INFO("input " << c.input << " " << a.shape.str() << " " << kiln::dtype_name(a.dtype));
        CHECK(same(cpu::median(a), c.median));
        // One q at a time (selection) and all at once (sorted once).
        const std::vector<double> all = cpu::percentiles(a, qs);
        REQUIRE(all.size() == qs.size());
        for (size_t i = 0; i < qs.size(); ++i) {
            INFO("q = " << qs[i]);
            CHECK(same(cpu::percentile(a, qs[i]), c.percentiles[i]));
            CHECK(same(all[i], c.percentiles[i]));
        }
        // A few q, in no order, through the selection path.
        const std::vector<double> few = cpu::percentiles(a, std::vector<double>{qs[7], qs[1], qs[5]});
        CHECK(same(few[0], c.percentiles[7]));
        CHECK(same(few[1], c.percentiles[1]));
        CHECK(same(few[2], c.percentiles[5]));
    }
}

TEST_CASE("median and percentile by hand", "[cpu][select]") {
    CHECK(cpu::median(host({3, 1, 2})) == 2);
    CHECK(cpu::median(host({4, 1, 3, 2})) == 2.5);
    const HostArray a = host({4, 2, 3, 1});
    CHECK(cpu::percentile(a, 0) == 1);
    CHECK(cpu::percentile(a, 25) == 1.75);  // index 0.75 between 1 and 2
    CHECK(cpu::percentile(a, 50) == 2.5);
    CHECK(cpu::percentile(a, 100) == 4);
    CHECK(cpu::median(HostArray::from(Shape{2, 2}, std::vector<uint16_t>{9, 1, 65535, 3})) == 6);

    CHECK(std::isnan(cpu::median(host({1, nan_v, 3}))));
    CHECK(std::isnan(cpu::percentile(host({1, 2, nan_v}), 0)));
    CHECK(cpu::median(host({1, inf_v})) == inf_v);
}

TEST_CASE("percentile rejects bad arguments", "[cpu][select]") {
    const HostArray a = host({1, 2, 3});
    REQUIRE_THROWS_AS(cpu::percentile(a, -0.5), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(cpu::percentile(a, 100.5), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(cpu::percentile(a, nan_v), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(cpu::percentiles(a, std::vector<double>{10, 200}), kiln::InvalidArgument);
    REQUIRE_THROWS_WITH(cpu::percentile(a, 101), Catch::Contains("[0, 100]"));
    REQUIRE_THROWS_AS(cpu::median(HostArray{}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(cpu::percentile(HostArray{}, 50), kiln::InvalidArgument);
}
