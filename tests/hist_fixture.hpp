#pragma once
// numpy.histogram and numpy.bincount results of tests/data/make_hist.py,
// shared by the CPU reference test and the GPU test of the histograms.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kiln/dtype.hpp"
#include "kiln/host_array.hpp"
#include "kiln/shape.hpp"

namespace kiln::test::fixture {

/// Input data: floats as IEEE bit patterns (exact), integers as values.
struct HistData {
    DType dtype;
    std::vector<uint64_t> bits; // float dtypes: IEEE bit patterns
    std::vector<int64_t> ints;  // integer dtypes: the values
};

/// A numpy.histogram case: data by index into hist_data, range and edges as
/// float64 bit patterns.
struct HistCase {
    const char* name;
    int data;
    int bins;
    bool has_range;
    uint64_t lo_bits, hi_bits;
    std::vector<int64_t> counts;
    std::vector<uint64_t> edge_bits;
};

/// A numpy.bincount case: data by index into hist_data.
struct BincountCase {
    int data;
    size_t minlength;
    std::vector<int64_t> counts;
};

// The generated tables (hist_data, hist_cases, bincount_cases) are const, so
// each test file gets its own copy.
#include "data/hist/hist_cases.inc"

/// The data as a 1-D array of its dtype (an empty one for no values).
inline HostArray to_array(const HistData& d) {
    return visit_dtype(d.dtype, [&](auto t) {
        using T = decltype(t);
        std::vector<T> v;
        if constexpr (std::is_same_v<T, float>)
            for (uint64_t b : d.bits) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
        else if constexpr (std::is_same_v<T, double>)
            for (uint64_t b : d.bits) v.push_back(std::bit_cast<double>(b));
        else
            for (int64_t x : d.ints) v.push_back(static_cast<T>(x));
        return v.empty() ? HostArray() : HostArray::from(Shape{v.size()}, v);
    });
}

/// The IEEE bit patterns of the values, to compare edges exactly.
inline std::vector<uint64_t> bits_of(const std::vector<double>& v) {
    std::vector<uint64_t> b;
    for (double x : v) b.push_back(std::bit_cast<uint64_t>(x));
    return b;
}

} // namespace kiln::test::fixture
