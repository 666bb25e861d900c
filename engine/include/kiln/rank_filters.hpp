#pragma once
// Rank and box filters on the GPU with scipy.ndimage's semantics: median,
// percentile and rank filters over any footprint, and the box mean
// (uniform_filter). The minimum and maximum filters are morphology's
// (kiln/morphology.hpp).
#include <cstdint>
#include <vector>

#include "kiln/array.hpp"
#include "kiln/conv_types.hpp"
#include "kiln/footprint.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// scipy.ndimage.rank_filter(input, rank, footprint=..., mode, cval, origin)
/// of a 1-, 2- or 3-D array of any dtype: each output is the
/// element of sorted index `rank` among the input's elements under the
/// footprint (its origin applied; a footprint of fewer dimensions than the
/// array applies to its last axes), positions outside the array as `mode`
/// says. A negative rank counts from the end (-1: the largest). cval is
/// converted to the dtype first (floats rounded; integers truncated and
/// clamped to its range, where SciPy would compare the double and convert
/// the result): the same for any cval the dtype holds. The result has the
/// input's dtype and equals SciPy's exactly for NaN-free input. Floats are
/// ordered -inf < finite < +inf with -0.0 before +0.0 (SciPy takes the two
/// zeros as equal, so a window holding both may give the other zero's
/// sign), NaN after +inf (-NaN before -inf). Throws InvalidArgument for a null
/// input, a rank outside [-n, n) for a footprint of n elements, or a
/// footprint that does not fit the array (Footprint::offsets); Unsupported
/// for float64 on a device without shaderInt64 (its 64-bit keys), or for a
/// footprint box needing more shared memory than the device has.
Array rank_filter(const Array& input, int64_t rank, const Footprint& footprint,
                  NdMode mode = NdMode::reflect, double cval = 0);

/// scipy.ndimage.median_filter: rank_filter with rank n / 2 for a footprint
/// of n elements (the upper median when n is even).
Array median_filter(const Array& input, const Footprint& footprint, NdMode mode = NdMode::reflect,
                    double cval = 0);

/// scipy.ndimage.percentile_filter: rank_filter with the rank
/// percentile_rank(percentile, n) gives. Throws InvalidArgument for a
/// percentile outside [-100, 100].
Array percentile_filter(const Array& input, double percentile, const Footprint& footprint,
                        NdMode mode = NdMode::reflect, double cval = 0);

/// The rank scipy.ndimage.percentile_filter takes for a footprint of n
/// elements: a negative percentile counts from 100; 100 gives n - 1, any
/// other p gives int(n * p / 100). Throws InvalidArgument for a percentile
/// outside [-100, 100] or n = 0.
int64_t percentile_rank(double percentile, size_t n);
/// rank as an index into the n sorted elements (a negative one counts from
/// the end). Throws InvalidArgument (naming `op`) unless -n <= rank < n.
size_t resolve_rank(int64_t rank, size_t n, const char* op);

/// scipy.ndimage.uniform_filter(input, size, mode=mode, cval, origin) of a
/// 1-, 2- or 3-D array: the mean over a box, as a 1-D pass per axis (slowest
/// first) each rounding to the input's dtype, as SciPy's do (integers
/// truncated toward zero, as SciPy's C conversion truncates; their sums are
/// exact, and cval is converted to the integer dtype first, truncated and
/// clamped). sizes and
/// origins: one per axis in (z, y, x) order, or a single one for every axis;
/// origins empty means 0. An axis of size 1 (origin 0) is skipped. Each
/// output along an axis is the mean of input[i - size / 2 - origin ..
/// i - size / 2 - origin + size - 1]. Float results are within a few
/// float roundings of SciPy's (it sums in double). Throws InvalidArgument for
/// a null input, a size below 1 or above 2^20, a count of sizes or origins
/// that is neither 1 nor the array's dimensions, or an origin outside
/// [-(size / 2), (size - 1) / 2]; Unsupported for int32 and uint32 input on
/// a device without 64-bit integers in shaders, and for 16-bit integers
/// with a size above 32768 (their 32-bit sums could overflow).
Array uniform_filter(const Array& input, const std::vector<int64_t>& sizes,
                     NdMode mode = NdMode::reflect, double cval = 0,
                     const std::vector<int64_t>& origins = {});

/// scipy.ndimage.uniform_filter1d: uniform_filter along one axis (negative
/// axes count from the last). Throws InvalidArgument as uniform_filter
/// does, and for an axis outside [-ndim, ndim).
Array uniform_filter1d(const Array& input, int64_t size, int64_t axis = -1,
                       NdMode mode = NdMode::reflect, double cval = 0, int64_t origin = 0);

}  // namespace kiln
#pragma GCC visibility pop
