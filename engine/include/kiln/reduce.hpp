#pragma once
// Reductions on the GPU over a whole array or along one axis: sum, mean,
// var, std, min, max, argmin, argmax, count_nonzero, with NumPy's semantics
// on the array taken as float64 (the CPU references in engine/cpu/reduce.hpp
// state them and the tests hold these functions to them).
//
// Sums are accumulated in float64 where the device has shaderFloat64, else
// in compensated float32 (pairs hi + lo, about 44 significant bits, float32's
// range), in a different order than NumPy's pairwise scheme: results agree
// with NumPy's float64 ones to rounding, not bit for bit. var and std take
// two passes (mean first), as NumPy does.
//
// NaN propagates as in NumPy: sum, mean, var, std, min and max of a set that
// holds a NaN are NaN; argmin and argmax give the index of the first NaN;
// count_nonzero counts NaN (and not -0.0). Every function throws
// InvalidArgument for a null Array.
//
// Three forms of each:
//  - `double sum(a)`: a host value; records the work, submits and waits.
//  - `Array sum_array(a)`: the same as a 1-element device array, recorded
//    lazily so pipelines need not wait (also inside a Graph capture).
//  - `Array sum(a, Axis{k})`: along axis k, the array with that axis removed
//    (reducing a 1-D array gives shape (1,)).
// Whole-array forms work on arrays of any size (pieces beyond the device's
// maxStorageBufferRange are reduced separately); axis forms throw
// kiln::Unsupported for arrays larger than one binding.
#include <cstdint>

#include "kiln/array.hpp"
#include "kiln/op_types.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// One axis in NumPy order (0 is the slowest varying); negative values count
/// from the end (-1 is the last axis). Valid: -ndim .. ndim-1.
struct Axis {
    int index;
};

// Accumulation (kiln/op_types.hpp) applies to sum, mean, var and std;
// float64 arrays always accumulate in float64.

/// numpy.sum(a, dtype=float64).
double sum(const Array& a, Accumulation acc = Accumulation::automatic);
/// numpy.mean(a, dtype=float64).
double mean(const Array& a, Accumulation acc = Accumulation::automatic);
/// numpy.var(a, ddof=ddof, dtype=float64): the mean first, then the squared
/// deviations, divided by max(n - ddof, 0) (0 gives inf, or NaN for 0/0).
double var(const Array& a, int ddof = 0, Accumulation acc = Accumulation::automatic);
/// numpy.std(a, ddof=ddof, dtype=float64) = sqrt(var(a, ddof)).
double std(const Array& a, int ddof = 0, Accumulation acc = Accumulation::automatic);
/// numpy.min(a), exact for every dtype; NaN if any element is NaN.
double min(const Array& a);
/// numpy.max(a), exact for every dtype; NaN if any element is NaN.
double max(const Array& a);
/// numpy.argmin(a): flat C-order index of the first minimum (or first NaN).
int64_t argmin(const Array& a);
/// numpy.argmax(a): flat C-order index of the first maximum (or first NaN).
int64_t argmax(const Array& a);
/// numpy.count_nonzero(a).
int64_t count_nonzero(const Array& a);

/// sum(a) as a shape-(1,) float64 array; float32 (the rounded pair) when the
/// accumulation is compensated (asked for, or automatic without float64).
Array sum_array(const Array& a, Accumulation acc = Accumulation::automatic);
/// mean(a) as a shape-(1,) array, dtype as sum_array.
Array mean_array(const Array& a, Accumulation acc = Accumulation::automatic);
/// var(a, ddof) as a shape-(1,) array, dtype as sum_array.
Array var_array(const Array& a, int ddof = 0, Accumulation acc = Accumulation::automatic);
/// std(a, ddof) as a shape-(1,) array, dtype as sum_array.
Array std_array(const Array& a, int ddof = 0, Accumulation acc = Accumulation::automatic);
/// min(a) as a shape-(1,) array of a's dtype.
Array min_array(const Array& a);
/// max(a) as a shape-(1,) array of a's dtype.
Array max_array(const Array& a);
/// argmin(a) as a shape-(1,) int32 array; throws Unsupported for arrays of
/// 2^31 elements or more (use argmin(a)).
Array argmin_array(const Array& a);
/// argmax(a) as a shape-(1,) int32 array; limits as argmin_array.
Array argmax_array(const Array& a);
/// count_nonzero(a) as a shape-(1,) int32 array; limits as argmin_array.
Array count_nonzero_array(const Array& a);

/// numpy.sum(a, axis, dtype=float64) as float64 (float32 with compensated accumulation).
Array sum(const Array& a, Axis axis, Accumulation acc = Accumulation::automatic);
/// numpy.mean(a, axis, dtype=float64), dtype as the axis sum.
Array mean(const Array& a, Axis axis, Accumulation acc = Accumulation::automatic);
/// numpy.var(a, axis, ddof=ddof, dtype=float64), dtype as the axis sum.
Array var(const Array& a, Axis axis, int ddof = 0, Accumulation acc = Accumulation::automatic);
/// numpy.std(a, axis, ddof=ddof, dtype=float64), dtype as the axis sum.
Array std(const Array& a, Axis axis, int ddof = 0, Accumulation acc = Accumulation::automatic);
/// numpy.min(a, axis), in a's dtype.
Array min(const Array& a, Axis axis);
/// numpy.max(a, axis), in a's dtype.
Array max(const Array& a, Axis axis);
/// numpy.argmin(a, axis): indices along the axis, int32.
Array argmin(const Array& a, Axis axis);
/// numpy.argmax(a, axis): indices along the axis, int32.
Array argmax(const Array& a, Axis axis);
/// numpy.count_nonzero(a, axis), int32.
Array count_nonzero(const Array& a, Axis axis);

} // namespace kiln
#pragma GCC visibility pop
