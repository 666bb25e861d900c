#pragma once
// Histograms on the GPU, as numpy.histogram and numpy.bincount count: equal
// width bins, workgroup-private sub-histograms in shared memory merged with
// atomics (global atomics when the bins do not fit in shared memory).
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// What histogram() returns: the counts on the device, the edges on the host.
struct Histogram {
    /// uint32 array of `bins` counts. Lazy like every op result: pull it, or
    /// pass it to further ops, without waiting here.
    Array counts;
    /// The bins + 1 edges as numpy.histogram returns them: computed in double
    /// and rounded to float32 for float32 input (NumPy's edge dtype), then
    /// widened back to double here. That is NumPy 1.x's rule; NumPy 2 (NEP
    /// 50) computes a float32 array's own extent (no range given) in float32
    /// arithmetic, which can differ in an edge's last bit and so move a value
    /// lying on it; with a range given, NumPy 2 agrees.
    std::vector<double> edges;

    /// Pulls the counts, widened to int64 as NumPy returns them.
    std::vector<int64_t> host_counts() const;
};

/// numpy.histogram(a, bins, range) over all elements of a (the shape is
/// ignored), bit for bit: the bin of a value is computed in the array's float
/// type (float32 for float32 input, double for every other dtype) from the
/// scaled offset with NumPy's one-step correction against the edges, so a
/// value lying on an edge lands where NumPy puts it. Values equal to the upper
/// edge count in the last bin; values outside the range, infinities and NaN
/// are dropped.
///
/// Without a range, the range is the finite minimum and maximum, found by a
/// reduction on the GPU (widened by 0.5 on each side when they are equal).
/// The edges are host values, so in that case
/// histogram() waits for those two numbers before it records the counting
/// pass; with a range it records everything and returns at once.
///
/// Integer input needs no float64 on the device: its bins are looked up in a
/// table (or by thresholds) computed on the host with NumPy's rule.
///
/// Inside a Graph capture only what needs nothing from the host can be
/// recorded: integer input with a range whose bins are one integer wide (as
/// range (0, 256) with 256 bins); other cases upload edges or read the range
/// back and throw InvalidArgument there.
///
/// Throws InvalidArgument for a null array, bins <= 0, a range with min >= max
/// or that is not finite, and, without a range, for an array with no finite
/// value (as NumPy: "autodetected range ... is not finite"); Unsupported for arrays of 2^32 or more elements.
Histogram histogram(const Array& a, int bins, std::optional<std::pair<double, double>> range = {});

/// numpy.bincount(a, minlength): a uint32 array of max(max(a) + 1, minlength)
/// counts of each value 0, 1, ... of an integer array. The maximum is found on
/// the GPU and read back (the result's length depends on it), so bincount
/// waits for that reduction. Throws InvalidArgument for a float array or a
/// negative value, naming the first negative value and its index, as NumPy and
/// cpu::bincount do; the context stays usable.
Array bincount(const Array& a, size_t minlength = 0);

} // namespace kiln
#pragma GCC visibility pop
