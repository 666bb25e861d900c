// GPU histogram and bincount against the CPU reference (engine/cpu/histogram,
// itself checked against NumPy) and against NumPy's own results from
// tests/data/hist: counts and edges equal bit for bit, every dtype, every
// counting mode (computed, table, search, direct), shared and global atomics,
// arrays split over several bindings, and the errors.
#include <bit>
#include <cmath>
#include <limits>

#include "hist_fixture.hpp"
#include "hist_support.hpp"
#include "kiln/histogram.hpp"
#include "kiln/reference/histogram.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

using test::check_histogram;
using test::fixture::bincount_cases;
using test::fixture::BincountCase;
using test::fixture::bits_of;
using test::fixture::hist_cases;
using test::fixture::hist_data;
using test::fixture::HistCase;
using test::fixture::HistData;
using test::fixture::to_array;

using Range = std::optional<std::pair<double, double>>;

// Values that put many elements on edges: small integers, halves.
HostArray edgy(Shape s, DType t, uint64_t seed) {
    HostArray h = test::random(s, t, seed, -40, 40);
    if (dtype_is_float(t))
        visit_dtype(t, [&](auto z) {
            using T = decltype(z);
            if constexpr (std::is_floating_point_v<T>) {
                auto v = h.as<T>();
                for (size_t i = 0; i < v.size(); i += 2) v[i] = std::round(v[i] * 2) / 2;
            }
        });
    return h;
}

const Shape shapes[] = {Shape{13}, Shape{127, 129}, Shape{3, 5, 7}};

} // namespace

namespace {

void check_dtypes(std::initializer_list<DType> dtypes) {
    Context ctx = test::context();
    for (DType t : dtypes) {
        HostArray h = edgy(Shape{127, 129}, t, 21);
        for (int bins : {7, 256}) {
            check_histogram(ctx, h, bins, {});
            check_histogram(ctx, h, bins, std::pair{-10.0, 30.0});
            check_histogram(ctx, h, bins, std::pair{-1000.5, 3.25});
        }
        for (Shape s : {Shape{13}, Shape{3, 5, 7}}) {
            check_histogram(ctx, edgy(s, t, 22), 1, {});
            check_histogram(ctx, edgy(s, t, 23), 7, std::pair{-10.0, 30.0});
        }
    }
}

} // namespace

TEST_CASE("histogram matches the CPU reference for float and 8-bit dtypes", "[ops][histogram]") {
    check_dtypes({DType::float32, DType::float64, DType::int8, DType::uint8});
}

TEST_CASE("histogram matches the CPU reference for 16- and 32-bit integers", "[ops][histogram]") {
    check_dtypes({DType::int16, DType::uint16, DType::int32, DType::uint32});
}

TEST_CASE("histogram equals numpy.histogram on the NumPy fixtures", "[ops][histogram]") {
    Context ctx = test::context();
    for (const HistCase& c : hist_cases) {
        INFO(c.name);
        const HostArray h = to_array(hist_data[c.data]);
        if (h.shape.empty()) continue;  // an Array is never empty
        Range range;
        if (c.has_range) range = std::pair{std::bit_cast<double>(c.lo_bits), std::bit_cast<double>(c.hi_bits)};
        const Histogram got = histogram(Array::from_host(ctx, h), c.bins, range);
        CHECK(got.host_counts() == c.counts);
        CHECK(bits_of(got.edges) == c.edge_bits);
    }
}

TEST_CASE("histogram drops NaN and infinities and keeps the upper edge", "[ops][histogram]") {
    Context ctx = test::context();
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    HostArray h = HostArray::from(Shape{9}, std::vector<float>{nan, 1, inf, 3, -inf, 2, 4, 0, 1.5f});
    check_histogram(ctx, h, 2, {});
    check_histogram(ctx, h, 4, std::pair{0.0, 4.0});
    Histogram e = histogram(Array::from_host(ctx, h), 4, std::pair{0.0, 4.0});
    CHECK(e.host_counts() == std::vector<int64_t>{1, 2, 1, 2});
    // No finite value and no range: refused as NumPy refuses it (it used to
    // count nothing over (0, 1)); with a range, nothing to count.
    for (const std::vector<double>& values :
         {std::vector<double>{std::nan(""), INFINITY, std::nan("")}, std::vector<double>{INFINITY, -INFINITY}}) {
        for (DType t : {DType::float32, DType::float64}) {
            HostArray none = test::from_values({values.size()}, t, values);
            CHECK_THROWS_WITH(histogram(Array::from_host(ctx, none), 2),
                              Catch::Contains("none of the " + std::to_string(values.size()) + " values is finite") &&
                                  Catch::Contains("give a range"));
            CHECK_THROWS_AS(cpu::histogram(none, 2), InvalidArgument);
            CHECK(histogram(Array::from_host(ctx, none), 2, std::pair{0.0, 1.0}).host_counts() ==
                  std::vector<int64_t>{0, 0});
        }
    }
    // One distinct value: widened by 0.5.
    check_histogram(ctx, HostArray::from(Shape{5}, std::vector<int16_t>{-7, -7, -7, -7, -7}), 3, {});
}

TEST_CASE("integer histograms in every counting mode", "[ops][histogram]") {
    Context ctx = test::context();
    // Direct: unit bins over [0, 256).
    HostArray bytes = test::random(Shape{127, 129}, DType::int32, 31, 0, 255);
    check_histogram(ctx, bytes, 256, std::pair{0.0, 256.0});
    check_histogram(ctx, bytes, 100, std::pair{-50.0, 50.0});  // direct with values outside
    // Table: a range of a few thousand integers.
    HostArray small = test::random(Shape{1031}, DType::int16, 32, -3000, 3000);
    check_histogram(ctx, small, 37, {});
    check_histogram(ctx, small, 5000, std::pair{-2500.0, 2500.0});
    // Search: wide ranges, thresholds per bin.
    HostArray wide = test::random(Shape{3, 5, 77}, DType::int32, 33, -2e9, 2e9);
    check_histogram(ctx, wide, 1000, {});
    check_histogram(ctx, wide, 3, std::pair{-1e12, 1e12});
    HostArray uwide = test::random(Shape{1031}, DType::uint32, 34, 0, 4294967295.0);
    uwide.as<uint32_t>()[0] = 0, uwide.as<uint32_t>()[1] = 4294967295u;
    check_histogram(ctx, uwide, 999, {});
    check_histogram(ctx, uwide, 64, std::pair{-1.0, 4294967296.0});
    // A range no value of the dtype can reach.
    check_histogram(ctx, test::random(Shape{13}, DType::uint8, 35, 0, 255), 4, std::pair{-9.0, -1.0});
}

TEST_CASE("histogram with bins beyond shared memory uses global atomics", "[ops][histogram]") {
    Context ctx = test::context();
    // 20000 uint32 counters are more than any device's shared memory per
    // workgroup (lavapipe 32 KiB, the H200 48 KiB); 3000 fit once; 256 fit 8 times.
    for (DType t : {DType::float32, DType::int32, DType::uint16}) {
        HostArray h = test::random(Shape{127, 129}, t, 41, -30000, 30000);
        for (int bins : {20000, 3000, 256}) {
            check_histogram(ctx, h, bins, {});
            check_histogram(ctx, h, bins, std::pair{-20000.0, 25000.0});
        }
    }
}

TEST_CASE("histogram and bincount of arrays split over several bindings", "[ops][histogram][large]") {
    ContextOptions o;
    o.max_binding_range = 4096;  // as if maxStorageBufferRange were 4 KiB
    Context ctx = test::context(o);
    for (DType t : {DType::float32, DType::float64, DType::uint8, DType::int32}) {
        HostArray h = test::random(Shape{7, 1031}, t, 51, 0, 200);
        check_histogram(ctx, h, 256, {});
        check_histogram(ctx, h, 50, std::pair{10.0, 60.0});
        if (!dtype_is_float(t)) {
            std::vector<uint32_t> got = bincount(Array::from_host(ctx, h)).to_vector<uint32_t>();
            std::vector<int64_t> want = cpu::bincount(h);
            CHECK(std::vector<int64_t>(got.begin(), got.end()) == want);
        }
    }
    // The first negative value is found in a later piece.
    HostArray neg = test::random(Shape{7, 1031}, DType::int32, 52, 0, 200);
    neg.as<int32_t>()[5000] = -3;
    neg.as<int32_t>()[6000] = -4;
    CHECK_THROWS_WITH(bincount(Array::from_host(ctx, neg)), Catch::Contains("value -3 at index 5000"));
}

TEST_CASE("bincount matches the CPU reference and NumPy", "[ops][histogram][bincount]") {
    Context ctx = test::context();
    for (DType t : all_dtypes) {
        if (dtype_is_float(t)) continue;
        for (Shape s : shapes) {
            INFO(dtype_name(t) << " " << s.str());
            HostArray h = test::random(s, t, 61, 0, 300);
            Array a = Array::from_host(ctx, h);
            for (size_t minlength : {size_t(0), size_t(5), size_t(1000)}) {
                std::vector<uint32_t> got = bincount(a, minlength).to_vector<uint32_t>();
                CHECK(std::vector<int64_t>(got.begin(), got.end()) == cpu::bincount(h, minlength));
            }
        }
    }
    for (const BincountCase& c : bincount_cases) {
        const HostArray h = to_array(hist_data[c.data]);
        if (h.shape.empty()) continue;
        INFO("data " << c.data << " minlength " << c.minlength);
        std::vector<uint32_t> got = bincount(Array::from_host(ctx, h), c.minlength).to_vector<uint32_t>();
        CHECK(std::vector<int64_t>(got.begin(), got.end()) == c.counts);
    }
}

TEST_CASE("histogram and bincount refuse bad input clearly", "[ops][histogram][errors]") {
    Context ctx = test::context();
    Array a = Array::from(ctx, Shape{4}, std::vector<float>{1, 2, 3, 4});
    CHECK_THROWS_WITH(histogram(a, 0), Catch::Contains("bins = 0") && Catch::Contains(">= 1"));
    CHECK_THROWS_AS(histogram(a, -3), InvalidArgument);
    CHECK_THROWS_WITH(histogram(a, 4, std::pair{2.0, 2.0}), Catch::Contains("min < max"));
    CHECK_THROWS_WITH(histogram(a, 4, std::pair{3.0, 1.0}), Catch::Contains("min < max"));
    CHECK_THROWS_WITH(histogram(a, 4, std::pair{0.0, INFINITY}), Catch::Contains("not finite"));
    CHECK_THROWS_AS(histogram(Array(), 4), InvalidArgument);
    CHECK_THROWS_WITH(bincount(a), Catch::Contains("float32") && Catch::Contains("integers"));
    Array neg = Array::from(ctx, Shape{5}, std::vector<int8_t>{1, 2, -4, 0, -1});
    CHECK_THROWS_AS(bincount(neg), InvalidArgument);
    CHECK_THROWS_WITH(bincount(neg), Catch::Contains("value -4 at index 2") && Catch::Contains(">= 0"));
    // The context is still usable.
    CHECK(histogram(a, 2).host_counts() == std::vector<int64_t>{2, 2});
    CHECK(bincount(Array::from(ctx, Shape{3}, std::vector<uint8_t>{2, 0, 2})).to_vector<uint32_t>() ==
          std::vector<uint32_t>{1, 0, 2});
}

TEST_CASE("histogram records lazily with a range and joins the graph", "[ops][histogram]") {
    Context ctx = test::context();
    HostArray h = test::random(Shape{1031}, DType::int32, 71, 0, 255);
    Array a = Array::from_host(ctx, h);
    Array counts;
    Graph g(ctx);
    {
        auto capture = g.capture();
        counts = histogram(a, 256, std::pair{0.0, 256.0}).counts;
    }
    for (int run = 0; run < 2; ++run) {
        g.run();
        std::vector<uint32_t> got = counts.to_vector<uint32_t>();
        CHECK(std::vector<int64_t>(got.begin(), got.end()) == cpu::histogram(h, 256, std::pair{0.0, 256.0}).counts);
    }
    // What needs data from the host cannot be captured, and says so.
    Graph other(ctx);
    auto capture = other.capture();
    CHECK_THROWS_WITH(histogram(a, 256), Catch::Contains("Graph capture") && Catch::Contains("give a range"));
    CHECK_THROWS_WITH(histogram(a, 10, std::pair{0.0, 256.0}), Catch::Contains("Graph capture"));
    CHECK_THROWS_WITH(bincount(a), Catch::Contains("Graph capture"));
}
