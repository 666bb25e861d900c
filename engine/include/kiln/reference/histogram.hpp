#pragma once
// CPU references for histogram and bincount, bit-for-bit as NumPy computes them,
// so the GPU kernels can be checked exactly rather than within a tolerance.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// Counts per bin and the bins + 1 edges, as numpy.histogram returns them.
/// Edges are rounded to float32 for float32 input (NumPy's edge dtype) and
/// widened back to double here.
struct Histogram {
    std::vector<int64_t> counts;
    std::vector<double> edges;
};

/// numpy.histogram(a, bins, range) with equal-width bins, any dtype, all
/// elements (the shape is ignored). The range defaults to the min and max of
/// the finite values, widened by 0.5 on each side when they are equal, and to
/// (0, 1) for an empty array. Values equal to the upper edge count
/// in the last bin; values outside the range, infinities and NaN are dropped.
/// Unlike NumPy, which raises on NaN when it has to find the range itself,
/// kiln drops NaN in both cases. Bin indices are computed as NumPy 1.24 does
/// (scaled offset, then one step of correction against the edges), so counts
/// match NumPy exactly, also for values lying on an edge.
/// Throws InvalidArgument for bins <= 0, a range with min >= max, a range
/// that is not finite, or no range when no value is finite (NumPy raises
/// "autodetected range of [nan, nan] is not finite" there).
Histogram histogram(const HostArray& a, int bins,
                    std::optional<std::pair<double, double>> range = {});

/// numpy.bincount(a, minlength): how often each value 0..max occurs, with at
/// least minlength entries. Integer dtypes only; throws InvalidArgument for a
/// float array or a negative value (naming the first one and its index).
std::vector<int64_t> bincount(const HostArray& a, size_t minlength = 0);

} // namespace kiln::cpu
#pragma GCC visibility pop
