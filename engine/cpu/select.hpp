#pragma once
// CPU references for exact order statistics: numpy.median and
// numpy.percentile with the default 'linear' method, over all elements of an
// array of any dtype. Values are taken as float64 (exact for every kiln
// dtype), so the results equal NumPy's on a.astype(numpy.float64); NumPy on a
// float32 array may work, and round, in float32 (its median does). The GPU selection kernels
// are checked against these.
//
// NaN: as in NumPy, any NaN in the array makes every result NaN. Infinities
// take part in the ordering; NumPy's interpolation formulas are reproduced
// exactly, so e.g. percentile([1, inf], 0) is NaN (inf * 0) as in NumPy.
#include <span>
#include <vector>

#include "kiln/host_array.hpp"

namespace kiln::cpu {

/// numpy.median: the middle value, or for an even count the mean (a + b) / 2
/// of the two middle values. Throws InvalidArgument for an empty array.
double median(const HostArray& a);

/// numpy.percentile(a, q), q in [0, 100], method 'linear': with n values in
/// sorted order v, index i = (n - 1) * (q / 100), lower = floor(i), weight
/// g = i - lower, result = v[lower] + (v[lower+1] - v[lower]) * g, or
/// v[lower+1] - (v[lower+1] - v[lower]) * (1 - g) when g >= 0.5 (NumPy's
/// _lerp; at the top index both neighbours are the largest value).
/// Throws InvalidArgument for q outside [0, 100] (or NaN) and an empty array.
double percentile(const HostArray& a, double q);

/// percentile() for several q at once, in the order given, from one copy of
/// the data (selected per q for a few q, sorted once for more than 8).
std::vector<double> percentiles(const HostArray& a, std::span<const double> qs);

}  // namespace kiln::cpu
