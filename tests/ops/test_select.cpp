// GPU median and percentiles (radix selection) against the CPU reference
// (engine/cpu/select): every dtype, odd and even counts, ties, NaN and
// infinities, float64 keys that differ only in their low word, batches of
// many percentiles, large arrays (the fine-histogram path and its
// fallbacks), bad input.
#include <cmath>
#include <limits>

#include "cpu/select.hpp"
#include "kiln/statistics.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

HostArray data(Shape s, DType t, uint64_t seed) {
    if (dtype_is_float(t)) return test::random(s, t, seed, -1000, 1000);
    return test::random(s, t, seed, -1e10, 1e10);  // the whole range of each integer type
}

// Exact: both sides are the same order statistics, interpolated identically.
using test::check_same;

void put(HostArray& h, size_t i, double v) {
    visit_dtype(h.dtype, [&](auto z) { h.as<decltype(z)>()[i] = static_cast<decltype(z)>(v); });
}

} // namespace

namespace {

void check_dtypes(std::initializer_list<DType> dtypes) {
    Context ctx = test::context();
    const double qs[] = {0, 2.5, 25, 50, 66.6, 95, 100};
    for (DType t : dtypes)
        for (Shape s : {Shape{13}, Shape{127, 129}, Shape{2, 5, 7}, Shape{1}}) {
            INFO(dtype_name(t) << " " << s.str());
            HostArray h = data(s, t, 1);
            Array a = Array::from_host(ctx, h);
            check_same(median(a), cpu::median(h));
            const auto got = percentiles(a, qs);
            const auto want = cpu::percentiles(h, qs);
            for (size_t i = 0; i < std::size(qs); ++i) {
                INFO("q " << qs[i]);
                check_same(got[i], want[i]);
            }
        }
}

} // namespace

TEST_CASE("median and percentiles equal the CPU reference (float32, float64, int8, uint8)", "[ops][select]") {
    check_dtypes({DType::float32, DType::float64, DType::int8, DType::uint8});
}

TEST_CASE("median and percentiles equal the CPU reference (16- and 32-bit integers)", "[ops][select]") {
    check_dtypes({DType::int16, DType::uint16, DType::int32, DType::uint32});
}

TEST_CASE("selection with many ties, signed zeros and narrow ranges", "[ops][select]") {
    Context ctx = test::context();
    for (DType t : all_dtypes) {
        INFO(dtype_name(t));
        // Few distinct values: ranks fall inside long runs of equal keys.
        HostArray h = test::random(Shape{1030}, t, 2, 0, 3);
        Array a = Array::from_host(ctx, h);
        check_same(median(a), cpu::median(h));
        check_same(percentile(a, 99.9), cpu::percentile(h, 99.9));
        check_same(percentile(a, 0.1), cpu::percentile(h, 0.1));
    }
    HostArray z = HostArray::from(Shape{6}, std::vector<float>{-0.0f, 0.0f, -0.0f, 1.0f, -1.0f, 0.0f});
    check_same(median(Array::from_host(ctx, z)), cpu::median(z));
    // float64 values that differ only in the low word of their keys.
    std::vector<double> close(1001);
    for (size_t i = 0; i < close.size(); ++i) close[i] = 1.0 + static_cast<double>((i * 7919) % 1001) * 0x1p-52;
    HostArray c = HostArray::from(Shape{close.size()}, close);
    Array ca = Array::from_host(ctx, c);
    check_same(median(ca), cpu::median(c));
    check_same(percentile(ca, 12.5), cpu::percentile(c, 12.5));
}

TEST_CASE("selection follows NumPy with NaN and infinities", "[ops][select]") {
    Context ctx = test::context();
    for (DType t : {DType::float32, DType::float64}) {
        INFO(dtype_name(t));
        HostArray h = data(Shape{127}, t, 3);
        put(h, 5, inf_v);
        put(h, 6, -inf_v);
        put(h, 7, inf_v);
        Array a = Array::from_host(ctx, h);
        check_same(median(a), cpu::median(h));
        for (double q : {0.0, 0.5, 99.5, 100.0}) check_same(percentile(a, q), cpu::percentile(h, q));
        put(h, 100, nan_v);
        Array b = Array::from_host(ctx, h);
        CHECK(std::isnan(median(b)));
        for (double v : percentiles(b, std::vector<double>{0, 50, 100})) CHECK(std::isnan(v));
    }
    // NumPy's interpolation yields NaN here (inf * 0), and so must we.
    Array two = Array::from(ctx, Shape{2}, std::vector<double>{1.0, inf_v});
    check_same(percentile(two, 0), cpu::percentile(HostArray::from(Shape{2}, std::vector<double>{1.0, inf_v}), 0));
    Array nans = Array::full(ctx, Shape{5}, nan_v);
    CHECK(std::isnan(median(nans)));
}

TEST_CASE("many percentiles at once are selected in batches", "[ops][select]") {
    Context ctx = test::context();
    HostArray h = data(Shape{3, 1031}, DType::float32, 4);
    Array a = Array::from_host(ctx, h);
    std::vector<double> qs;
    for (int i = 0; i <= 20; ++i) qs.push_back(i * 4.9);
    qs.push_back(50);
    qs.push_back(50);
    const auto got = percentiles(a, qs);
    const auto want = cpu::percentiles(h, qs);
    REQUIRE(got.size() == qs.size());
    for (size_t i = 0; i < qs.size(); ++i) {
        INFO("q " << qs[i]);
        check_same(got[i], want[i]);
    }
    CHECK(percentiles(a, std::vector<double>{}).empty());
}

TEST_CASE("median of a million float32 values", "[ops][select][large]") {
    Context ctx = test::context();
    HostArray h = test::random(Shape{1u << 20}, DType::float32, 5, -1, 1);
    Array a = Array::from_host(ctx, h);
    check_same(median(a), cpu::median(h));
    HostArray odd = test::random(Shape{(1u << 20) + 1}, DType::float32, 6, 100, 101);
    check_same(median(Array::from_host(ctx, odd)), cpu::median(odd));
}

// Arrays of 2^20 elements take the path where pass 1 also counts the last
// two digits of the elements under the targets' shared prefix (a fine
// histogram) and pass 2 does nothing; these cover it and its fallbacks.
TEST_CASE("large selections: fine histogram, split prefixes, ties, NaN", "[ops][select][large]") {
    Context ctx = test::context();
    const size_t n = 1u << 20;
    auto check_float = [&](const std::vector<float>& v, const char* what) {
        INFO(what);
        HostArray h = HostArray::from(Shape{v.size()}, v);
        Array a = Array::from_host(ctx, h);
        check_same(median(a), cpu::median(h));
        const double qs[] = {37.5};
        check_same(percentiles(a, qs)[0], cpu::percentiles(h, qs)[0]);
    };
    HostArray u = test::random(Shape{n}, DType::float32, 7, 0, 1);
    std::vector<float> v(u.as<float>().begin(), u.as<float>().end());
    check_float(v, "uniform in [0, 1), as W14");
    // The two middle values lie under different prefixes: no fine histogram.
    std::vector<float> split = v;
    for (size_t i = 0; i < n; ++i) split[i] = i % 2 ? 0.5f + split[i] / 2 : 2.0f + 2 * split[i];
    check_float(split, "halves in [0.5, 1) and [2, 4)");
    // 10% of the values equal the median: many equal counts in the fine histogram.
    std::vector<float> ties = v;
    for (size_t i = 0; i < n; ++i) ties[i] = i % 20 < 2 ? 0.5f : (i % 2 ? v[i] / 2 : 0.5f + v[i] / 2);
    check_float(ties, "10% ties at the median");
    // Most values equal: too many under the prefix for the fine histogram.
    std::vector<float> flat = v;
    for (size_t i = 0; i < n; ++i) flat[i] = i % 3 ? 0.25f : v[i];
    check_float(flat, "two thirds equal");
    std::vector<float> with_nan = v;
    with_nan[n / 3] = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(median(Array::from(ctx, Shape{n}, with_nan))));
    for (DType t : {DType::int32, DType::uint32}) {
        INFO(dtype_name(t));
        HostArray h = data(Shape{n + 1}, t, 8);
        Array a = Array::from_host(ctx, h);
        check_same(median(a), cpu::median(h));
        check_same(percentile(a, 90), cpu::percentile(h, 90));
    }
}

TEST_CASE("selection refuses bad input clearly and the context stays usable", "[ops][select]") {
    Context ctx = test::context();
    Array null;
    CHECK_THROWS_WITH(median(null), Catch::Contains("median") && Catch::Contains("null"));
    Array a = Array::from(ctx, Shape{3}, std::vector<float>{3, 1, 2});
    CHECK_THROWS_WITH(percentile(a, 101), Catch::Contains("101") && Catch::Contains("[0, 100]"));
    CHECK_THROWS_AS(percentile(a, -0.5), InvalidArgument);
    CHECK_THROWS_AS(percentiles(a, std::vector<double>{50, nan_v}), InvalidArgument);
    CHECK(median(a) == 2.0);

    ContextOptions o;
    o.max_binding_range = 64 << 10;  // as if maxStorageBufferRange were 64 KiB
    Context small = test::context(o);
    Array big = Array::zeros(small, Shape{20000});
    CHECK_THROWS_WITH(median(big), Catch::Contains("maxStorageBufferRange"));
    CHECK(median(Array::full(small, Shape{1024}, 4.0)) == 4.0);
}

TEST_CASE("selections in a row reuse the context's zeroed histogram", "[ops][select]") {
    // The context keeps the histogram each pass leaves zeroed (select.cpp):
    // small and large selections of several dtypes interleaved, twice over,
    // so that each one starts from what the one before left.
    Context ctx = test::context();
    const std::vector<std::pair<Shape, DType>> cases{{Shape{1031}, DType::int16},
                                                     {Shape{1u << 20}, DType::float32},
                                                     {Shape{33, 65}, DType::float64},
                                                     {Shape{1u << 20}, DType::uint32}};
    const double qs[] = {1, 50, 99};
    for (int round = 0; round < 2; ++round)
        for (size_t k = 0; k < cases.size(); ++k) {
            INFO("round " << round << " case " << k);
            const HostArray h = data(cases[k].first, cases[k].second, 10 + k);
            const Array a = Array::from_host(ctx, h);
            check_same(median(a), cpu::median(h));
            const auto got = percentiles(a, qs);
            const auto want = cpu::percentiles(h, qs);
            for (size_t i = 0; i < std::size(qs); ++i) check_same(got[i], want[i]);
        }
}
