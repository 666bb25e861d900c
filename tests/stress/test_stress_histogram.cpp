// Stress cases for histogram and bincount (workgroup sub-histograms in
// shared memory merged by atomics, or global atomics when the bins do not
// fit): values on every edge and one ulp either side, signed zeros and the
// smallest denormals (which a GPU may flush), all values in one bin, one
// bin, more bins than shared memory holds, integer inputs in every counting
// mode; counts and edges equal to kiln::cpu::histogram / cpu::bincount
// (themselves equal to NumPy's).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "hist_support.hpp"
#include "kiln/histogram.hpp"
#include "kiln/reference/histogram.hpp"
#include "stress/stress_support.hpp"

using namespace kiln;
using namespace kiln::test::stress;
using test::check_histogram;

namespace {

using Range = std::optional<std::pair<double, double>>;

// The elements of a case: enough for many workgroups of 256 invocations.
Shape elements() {
    return Shape{scaled(127), scaled(1031)};
}

// Values of float type T that test the binning: every edge of `bins` bins
// over `range` and its float neighbours, signed zeros, the smallest
// denormals (+-1e-45 in float32), the smallest normals, NaN, infinities and
// values just outside the range; about a third uniform inside the range.
template <typename T>
HostArray edge_values(Shape shape, int bins, std::pair<double, double> range, uint64_t seed) {
    const HostArray type_probe(Shape{1}, dtype_of_v<T>);
    const std::vector<double> edges = cpu::histogram(type_probe, bins, range).edges;
    constexpr T inf = std::numeric_limits<T>::infinity();
    std::vector<T> pool{T(0.0),
                        T(-0.0),
                        std::numeric_limits<T>::denorm_min(),
                        -std::numeric_limits<T>::denorm_min(),
                        T(1e-45),
                        T(-1e-45),
                        std::numeric_limits<T>::min(),
                        -std::numeric_limits<T>::min(),
                        std::numeric_limits<T>::quiet_NaN(),
                        inf,
                        -inf,
                        T(range.first - 1),
                        T(range.second + 1)};
    for (double e : edges) {
        const T t = T(e);
        pool.insert(pool.end(), {t, std::nextafter(t, -inf), std::nextafter(t, inf)});
    }
    const HostArray u = test::random(Shape{2 * shape.size()}, DType::float64, seed, 0, 1);
    const auto r = u.as<double>();
    std::vector<T> v(shape.size());
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = r[2 * i] < 0.35 ? T(range.first + r[2 * i + 1] * (range.second - range.first))
                               : pool[size_t(r[2 * i + 1] * double(pool.size())) % pool.size()];
    return HostArray::from(shape, v);
}

// Integer values of type T on and beside the edges of `bins` bins over
// `range` (floor and ceil of each edge, and one either side), clamped to T,
// mixed with uniform ones over the range.
template <typename T>
HostArray integer_edge_values(Shape shape, int bins, std::pair<double, double> range, uint64_t seed) {
    const HostArray type_probe(Shape{1}, dtype_of_v<T>);
    const double lo_t = double(std::numeric_limits<T>::min()), hi_t = double(std::numeric_limits<T>::max());
    std::vector<T> pool;
    for (double e : cpu::histogram(type_probe, bins, range).edges)
        for (double x : {std::floor(e) - 1, std::floor(e), std::ceil(e), std::ceil(e) + 1})
            pool.push_back(T(std::clamp(x, lo_t, hi_t)));
    const HostArray u = test::random(Shape{2 * shape.size()}, DType::float64, seed, 0, 1);
    const auto r = u.as<double>();
    const double lo = std::max(range.first, lo_t), hi = std::min(range.second, hi_t);
    std::vector<T> v(shape.size());
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = r[2 * i] < 0.35 ? T(std::floor(lo + r[2 * i + 1] * (hi - lo)))
                               : pool[size_t(r[2 * i + 1] * double(pool.size())) % pool.size()];
    return HostArray::from(shape, v);
}

// Ranges whose edges are exact, inexact, zero (where -0.0 and the
// denormals sit), float32 denormals themselves, and a few ulps apart.
const std::pair<int, std::pair<double, double>> float_ranges[] = {
    {10, {0.0, 1.0}},     {2, {-1.0, 1.0}},          {7, {-1.0, 1.0}},     {13, {-3.5, 7.25}},
    {5, {-1e-38, 1e-38}}, {3, {1.0, 1.0 + 0x1p-20}}, {256, {-40.0, 40.0}},
};

template <typename T>
void check_edges(const Context& ctx, uint64_t seed) {
    for (const auto& [bins, range] : float_ranges) {
        const HostArray h = edge_values<T>(elements(), bins, range, seed++);
        check_histogram(ctx, h, bins, range);
        check_histogram(ctx, h, bins, {});  // the range of the same values found on the GPU
    }
}

}  // namespace

TEST_CASE("stress histogram: values on the edges, their neighbours, signed zeros and denormals",
          "[stress][histogram]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        check_edges<float>(ctx, 100 + rep);
        check_edges<double>(ctx, 200 + rep);
    });
}

TEST_CASE("stress histogram: all values equal, one bin, more bins than shared memory holds",
          "[stress][histogram]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape s = elements();
        // Every element in one bin: all atomics on one counter. 2.5 lies on
        // the edge between the two bins of (0, 5).
        const std::vector<HostArray> equal{HostArray::from(s, std::vector<float>(s.size(), 2.5f)),
                                           HostArray::from(s, std::vector<double>(s.size(), -0.0)),
                                           HostArray::from(s, std::vector<int32_t>(s.size(), 7))};
        for (const HostArray& h : equal)
            for (int bins : {1, 2, 7, 256, 20000}) {
                check_histogram(ctx, h, bins, {});
                check_histogram(ctx, h, bins, std::pair{0.0, 5.0});
            }
        // 20000 counters are more than any device's shared memory per
        // workgroup (lavapipe 32 KiB, the H100 48 KiB): global atomics; 3000
        // fit once; 256 eight times.
        for (DType t : {DType::float32, DType::int32, DType::uint16}) {
            const HostArray h = test::random(s, t, 300 + rep, -30000, 30000);
            for (int bins : {1, 256, 3000, 20000}) {
                check_histogram(ctx, h, bins, {});
                check_histogram(ctx, h, bins, std::pair{-20000.0, 25000.0});
            }
        }
    });
}

TEST_CASE("stress histogram: integer inputs on the edges in every counting mode", "[stress][histogram]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape s = elements();
        const uint64_t seed = 400 + rep;
        // Direct: unit bins.
        check_histogram(ctx, integer_edge_values<uint8_t>(s, 256, {0.0, 256.0}, seed), 256,
                        std::pair{0.0, 256.0});
        check_histogram(ctx, integer_edge_values<int8_t>(s, 100, {-50.0, 50.0}, seed), 100,
                        std::pair{-50.0, 50.0});
        // Table: a range of a few thousand integers, bins not one integer wide.
        check_histogram(ctx, integer_edge_values<int16_t>(s, 37, {-3000.0, 3000.0}, seed), 37,
                        std::pair{-3000.0, 3000.0});
        check_histogram(ctx, integer_edge_values<uint16_t>(s, 5000, {0.0, 4000.0}, seed), 5000, {});
        // Search: wide ranges, thresholds per bin.
        check_histogram(ctx, integer_edge_values<int32_t>(s, 1000, {-2e9, 2e9}, seed), 1000,
                        std::pair{-2e9, 2e9});
        const HostArray wide = integer_edge_values<uint32_t>(s, 999, {0.0, 4294967295.0}, seed);
        check_histogram(ctx, wide, 999, {});
        check_histogram(ctx, wide, 64, std::pair{-1.0, 4294967296.0});
    });
}

TEST_CASE("stress bincount: one value everywhere, many values, more bins than shared memory holds",
          "[stress][histogram][bincount]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape s = elements();
        const std::vector<HostArray> inputs{HostArray::from(s, std::vector<uint8_t>(s.size(), 0)),
                                            HostArray::from(s, std::vector<int16_t>(s.size(), 12345)),
                                            test::random(s, DType::int8, 500 + rep, 0, 127),
                                            test::random(s, DType::int32, 600 + rep, 0, 300),
                                            test::random(s, DType::uint16, 700 + rep, 0, 40000),
                                            test::random(s, DType::uint32, 800 + rep, 0, 3)};
        for (const HostArray& h : inputs)
            for (size_t minlength : {size_t(0), size_t(1000), size_t(50000)}) {
                INFO(dtype_name(h.dtype) << " minlength " << minlength);
                const std::vector<uint32_t> got =
                    bincount(Array::from_host(ctx, h), minlength).to_vector<uint32_t>();
                CHECK(std::vector<int64_t>(got.begin(), got.end()) == cpu::bincount(h, minlength));
            }
    });
}
