#pragma once
// CPU references for reductions over a whole array or along one axis: sum,
// mean, var, std, min, max, argmin, argmax, count_nonzero, as NumPy computes
// them on the array converted to float64. Sums are taken in double by NumPy's
// own pairwise scheme, so whole-array results equal NumPy's float64 results
// bit for bit and stay accurate for arrays of hundreds of millions of
// elements; the GPU reductions are checked against these.
//
// NaN propagates as in NumPy: sum, mean, var, std, min and max of a set that
// holds a NaN are NaN, argmin and argmax give the index of the first NaN,
// count_nonzero counts NaN as nonzero. Every function throws InvalidArgument
// for an empty (default-constructed) array.
//
// Axis variants return the array with that axis removed (kiln has no 0-d
// arrays, so reducing a 1-D array along its axis gives shape (1,)). Their
// dtypes: float64 for sum, mean, var and std (also for integer input, where
// NumPy would keep an integer sum); the input dtype for min and max; int32 for
// argmin, argmax and count_nonzero (NumPy gives int64; kiln has no int64 and
// an axis is never that long, which is checked).
#include <cstdint>

#include "kiln/host_array.hpp"

namespace kiln::cpu {

/// One axis of an array in NumPy order (0 is the slowest varying); negative
/// values count from the end as in NumPy (-1 is the last axis). Valid range:
/// -ndim .. ndim-1, else the reductions throw InvalidArgument.
struct Axis {
    int index;
};

/// numpy.sum(a, dtype=float64) over all elements.
double sum(const HostArray& a);
/// numpy.sum(a, axis, dtype=float64), as float64.
HostArray sum(const HostArray& a, Axis axis);

/// numpy.mean(a, dtype=float64): the sum divided by the element count.
double mean(const HostArray& a);
/// numpy.mean(a, axis, dtype=float64), as float64.
HostArray mean(const HostArray& a, Axis axis);

/// numpy.var(a, ddof=ddof, dtype=float64): mean first, then the sum of squared
/// deviations divided by max(n - ddof, 0). As in NumPy a divisor of 0 gives
/// inf (or NaN when every deviation is 0) rather than an error; negative ddof
/// is accepted as NumPy does.
double var(const HostArray& a, int ddof = 0);
/// numpy.var(a, axis, ddof=ddof, dtype=float64), as float64.
HostArray var(const HostArray& a, Axis axis, int ddof = 0);

/// numpy.std(a, ddof=ddof, dtype=float64): the square root of var(a, ddof).
double std(const HostArray& a, int ddof = 0);
/// numpy.std(a, axis, ddof=ddof, dtype=float64), as float64.
HostArray std(const HostArray& a, Axis axis, int ddof = 0);

/// numpy.min(a) as a double (exact for every kiln dtype); NaN if any is NaN.
double min(const HostArray& a);
/// numpy.min(a, axis), in a's dtype.
HostArray min(const HostArray& a, Axis axis);

/// numpy.max(a) as a double (exact for every kiln dtype); NaN if any is NaN.
double max(const HostArray& a);
/// numpy.max(a, axis), in a's dtype.
HostArray max(const HostArray& a, Axis axis);

/// numpy.argmin(a): flat C-order index of the first minimum, or of the first
/// NaN if there is one.
int64_t argmin(const HostArray& a);
/// numpy.argmin(a, axis): index along the axis, as int32.
HostArray argmin(const HostArray& a, Axis axis);

/// numpy.argmax(a): flat C-order index of the first maximum, or of the first
/// NaN if there is one.
int64_t argmax(const HostArray& a);
/// numpy.argmax(a, axis): index along the axis, as int32.
HostArray argmax(const HostArray& a, Axis axis);

/// numpy.count_nonzero(a): elements != 0 (NaN counts; -0.0 does not).
int64_t count_nonzero(const HostArray& a);
/// numpy.count_nonzero(a, axis), as int32.
HostArray count_nonzero(const HostArray& a, Axis axis);

}  // namespace kiln::cpu
