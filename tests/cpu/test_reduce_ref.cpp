// The CPU reductions against NumPy's results (fixtures made by
// tests/data/make_conv.py), small cases by hand, and sums whose exact values
// are known where a naive running sum would be visibly wrong.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cpu/reduce.hpp"
#include "cpu_support.hpp"
#include "host/pairwise.hpp"

namespace {

using kiln::DType;
using kiln::HostArray;
using kiln::Shape;
using kiln::test::close_rel;
using kiln::test::host;
namespace cpu = kiln::cpu;
using cpu::Axis;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

using Array = kiln::test::FixtureArray;
struct ReduceCase {
    int input;
    const char* fn;
    int axis;  // 99: the whole array
    int ddof;
    Array expected;
};

#include "../data/conv/reduce_cases.inc"

double whole(const std::string& fn, const HostArray& a, int ddof) {
    if (fn == "sum") return cpu::sum(a);
    if (fn == "mean") return cpu::mean(a);
    if (fn == "var") return cpu::var(a, ddof);
    if (fn == "std") return cpu::std(a, ddof);
    if (fn == "min") return cpu::min(a);
    if (fn == "max") return cpu::max(a);
    if (fn == "argmin") return static_cast<double>(cpu::argmin(a));
    if (fn == "argmax") return static_cast<double>(cpu::argmax(a));
    return static_cast<double>(cpu::count_nonzero(a));
}

HostArray along(const std::string& fn, const HostArray& a, Axis axis, int ddof) {
    if (fn == "sum") return cpu::sum(a, axis);
    if (fn == "mean") return cpu::mean(a, axis);
    if (fn == "var") return cpu::var(a, axis, ddof);
    if (fn == "std") return cpu::std(a, axis, ddof);
    if (fn == "min") return cpu::min(a, axis);
    if (fn == "max") return cpu::max(a, axis);
    if (fn == "argmin") return cpu::argmin(a, axis);
    if (fn == "argmax") return cpu::argmax(a, axis);
    return cpu::count_nonzero(a, axis);
}

std::vector<double> values_of(const HostArray& a) {
    std::vector<double> v;
    for (size_t i = 0; i < a.size(); ++i) v.push_back(a.at(i));
    return v;
}

}  // namespace

TEST_CASE("reductions match NumPy", "[cpu][reduce]") {
    for (const ReduceCase& c : reduce_cases) {
        const HostArray a = to_host(reduce_inputs[c.input]);
        const std::string fn = c.fn;
        INFO(fn << " of input " << c.input << " " << a.shape.str() << " " << kiln::dtype_name(a.dtype)
                << ", axis " << c.axis << ", ddof " << c.ddof);
        if (c.axis == 99) {
            // Whole-array sums follow NumPy's summation order, so they agree
            // to the last bit (the tolerance only allows for FMA contraction).
            CHECK(close_rel(whole(fn, a, c.ddof), c.expected.values[0], 1e-15));
            continue;
        }
        const HostArray got = along(fn, a, Axis{c.axis}, c.ddof);
        const bool index_like = fn == "argmin" || fn == "argmax" || fn == "count_nonzero";
        REQUIRE(got.dtype == (index_like ? DType::int32 : kiln::parse_dtype(c.expected.dtype)));
        REQUIRE(got.shape.str() == Shape::of(c.expected.shape.size(), c.expected.shape.data()).str());
        for (size_t i = 0; i < got.size(); ++i) {
            INFO("element " << i);
            CHECK(close_rel(got.at(i), c.expected.values[i], 1e-13));
        }
    }
}

TEST_CASE("reductions by hand", "[cpu][reduce]") {
    const HostArray a = host({4}, {1, 2, 3, 4});
    CHECK(cpu::sum(a) == 10);
    CHECK(cpu::mean(a) == 2.5);
    CHECK(cpu::var(a) == 1.25);
    CHECK(cpu::var(a, 1) == Approx(5.0 / 3.0).epsilon(1e-15));
    CHECK(cpu::std(a) == std::sqrt(1.25));
    CHECK(cpu::min(a) == 1);
    CHECK(cpu::max(a) == 4);
    CHECK(cpu::argmin(a) == 0);
    CHECK(cpu::argmax(a) == 3);
    CHECK(cpu::count_nonzero(a) == 4);
    // NumPy's ddof at or past the count: x / max(n - ddof, 0) = x / 0.
    CHECK(cpu::var(a, 4) == inf_v);
    CHECK(cpu::var(a, 5) == inf_v);
    CHECK(std::isnan(cpu::var(host({2}, {5, 5}), 2)));

    // Ties go to the first; the 2 x 3 array reduced along each axis.
    const HostArray t = host({2, 3}, {3, 1, 1, 0, 7, 1});
    CHECK(cpu::argmin(t) == 3);
    CHECK(cpu::argmax(t) == 4);
    CHECK(values_of(cpu::sum(t, Axis{0})) == std::vector<double>{3, 8, 2});
    CHECK(values_of(cpu::sum(t, Axis{-1})) == std::vector<double>{5, 8});
    CHECK(values_of(cpu::argmin(t, Axis{1})) == std::vector<double>{1, 0});
    CHECK(values_of(cpu::max(t, Axis{0})) == std::vector<double>{3, 7, 1});
    CHECK(values_of(cpu::count_nonzero(t, Axis{0})) == std::vector<double>{1, 2, 2});
    CHECK(cpu::mean(t, Axis{1}).shape == Shape{2});

    // kiln has no 0-d arrays: a 1-D array reduced along its axis has shape (1,).
    const HostArray s = cpu::sum(a, Axis{0});
    CHECK(s.shape == Shape{1});
    CHECK(s.at(0) == 10);

    const HostArray u8 = HostArray::from(Shape{3}, std::vector<uint8_t>{200, 100, 250});
    CHECK(cpu::sum(u8) == 550);  // no wrap-around: the sum is taken in double
    CHECK(cpu::min(u8, Axis{0}).dtype == DType::uint8);
}

TEST_CASE("reductions propagate NaN as NumPy does", "[cpu][reduce]") {
    const HostArray a = host({4}, {1, nan_v, -3, nan_v});
    CHECK(std::isnan(cpu::sum(a)));
    CHECK(std::isnan(cpu::mean(a)));
    CHECK(std::isnan(cpu::std(a)));
    CHECK(std::isnan(cpu::min(a)));
    CHECK(std::isnan(cpu::max(a)));
    CHECK(cpu::argmin(a) == 1);
    CHECK(cpu::argmax(a) == 1);
    CHECK(cpu::count_nonzero(host({4}, {0.0, -0.0, nan_v, 1})) == 2);
    CHECK(cpu::sum(host({2}, {1, inf_v})) == inf_v);
    CHECK(std::isnan(cpu::sum(host({2}, {-inf_v, inf_v}))));

    const HostArray m = host({2, 2}, {nan_v, 1, 2, 0});
    const std::vector<double> mins = values_of(cpu::min(m, Axis{0}));
    CHECK(std::isnan(mins[0]));
    CHECK(mins[1] == 0);
    CHECK(values_of(cpu::argmax(m, Axis{0})) == std::vector<double>{0, 0});
}

TEST_CASE("sums stay accurate over millions of elements", "[cpu][reduce]") {
    // 1 followed by 2^20 values of 2^-53: each is below half an ulp of 1, so
    // a running double sum stays at exactly 1; the true sum is 1 + 2^-33.
    std::vector<double> tiny(size_t{1} << 20, std::ldexp(1.0, -53));
    tiny.insert(tiny.begin(), 1.0);
    const double want = 1.0 + std::ldexp(1.0, -33);
    CHECK(std::abs(cpu::sum(host({tiny.size()}, tiny)) - want) <= 1e-14);
    CHECK(std::abs(kiln::pairwise_sum(tiny) - want) <= 1e-14);

    // The same along a strided axis of 2^16 + 1 rows.
    std::vector<double> rows(2 * ((size_t{1} << 16) + 1), std::ldexp(1.0, -53));
    rows[0] = rows[1] = 1.0;
    const HostArray col = cpu::sum(host({rows.size() / 2, 2}, rows), Axis{0});
    const double want_col = 1.0 + std::ldexp(1.0, -37);
    CHECK(std::abs(col.at(0) - want_col) <= 1e-15);
    CHECK(std::abs(col.at(1) - want_col) <= 1e-15);

    // 2^22 float32 values of 0.1f: a float32 accumulator would be far off;
    // every partial sum here is exact in double.
    const std::vector<float> tenth(size_t{1} << 22, 0.1f);
    const HostArray f = HostArray::from(Shape{tenth.size()}, tenth);
    CHECK(cpu::sum(f) == static_cast<double>(0.1f) * 4194304.0);
    CHECK(cpu::mean(f) == static_cast<double>(0.1f));
    CHECK(cpu::var(f) == 0.0);
}

TEST_CASE("whole-array sums equal NumPy's bit for bit", "[cpu][reduce]") {
    // long_sequence(20011) of make_conv.py: 20011 values spread over 40
    // binades, so the order of the additions shows in the last bits. A plain
    // pairwise sum without NumPy's 8192-element blocks gives 179210.71608250332.
    std::vector<double> x;
    for (uint64_t i = 0; i < 20011; ++i) {
        const uint64_t h = (i * 2654435761u) % (uint64_t{1} << 32);
        const auto m = static_cast<int64_t>(h >> 8) - (int64_t{1} << 23);
        x.push_back(std::ldexp(static_cast<double>(m), static_cast<int>(h % 40) - 44));
    }
    CHECK(cpu::sum(host({x.size()}, x)) == long_sum_f64);
    CHECK(kiln::pairwise_sum(x) == long_sum_f64);
    const std::vector<float> x32(x.begin(), x.end());
    CHECK(cpu::sum(HostArray::from(Shape{x32.size()}, x32)) == long_sum_f32);
    CHECK(cpu::mean(host({x.size()}, x)) == long_sum_f64 / 20011.0);
}

TEST_CASE("reductions reject bad arguments", "[cpu][reduce]") {
    const HostArray a = host({2, 3}, {1, 2, 3, 4, 5, 6});
    REQUIRE_THROWS_AS(cpu::sum(a, Axis{2}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(cpu::argmin(a, Axis{-3}), kiln::InvalidArgument);
    REQUIRE_THROWS_WITH(cpu::mean(a, Axis{5}), Catch::Contains("-2 .. 1"));
    REQUIRE_THROWS_AS(cpu::sum(HostArray{}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(cpu::max(HostArray{}), kiln::InvalidArgument);
    REQUIRE_THROWS_AS(cpu::count_nonzero(HostArray{}, Axis{0}), kiln::InvalidArgument);
}
