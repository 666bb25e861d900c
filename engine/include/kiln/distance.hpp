#pragma once
// Distance transforms on the GPU (scipy.ndimage.distance_transform_edt).
#include <vector>

#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// scipy.ndimage.distance_transform_edt(input, sampling) of a 1-, 2- or 3-D
/// array: the exact Euclidean distance of every nonzero element (NaN
/// included, as in SciPy) to the nearest zero element, 0 on the zeros.
/// sampling: the spacing along each axis in (z, y, x) order; empty means 1,
/// one value applies to every axis, else one per axis, each finite and > 0.
/// An array with no zero at all gets SciPy's answer: the distance to index -1
/// of the first axis (sqrt((s0 (i0 + 1))^2 + (s1 i1)^2 + ...)), not inf.
/// result: float32 (default) or float64 (SciPy's dtype). With unit sampling
/// squared distances are whole numbers, exact in float32 below 2^24 (any
/// image up to 2896 pixels a side, any volume up to 2364), so the float32
/// result is float32(sqrt(d2)) exactly; with other sampling the float32
/// passes round each sum (a few ulps relative). float32 results take their
/// square roots through float64.
/// Algorithm: one pass per axis. The first searches each element's line for
/// its nearest zero (hopping over runs of 32 elements without one); each
/// later one takes the lower envelope min_k (s k)^2 + d2(i + k) of its line
/// in shared memory (per-band Meijster stacks merged in log rounds), O(1)
/// work per element on average for any mask, for lines up to 2048 elements
/// (float32 result) or 1024 (float64); longer lines search outward from each
/// element, work proportional to its distance.
/// Throws InvalidArgument for a null input, a rank outside 1-3, a bad
/// sampling or result dtype; Unsupported for 2^31 elements or more, or
/// a device without shaderFloat64.
Array distance_transform_edt(const Array& input, const std::vector<double>& sampling = {},
                             DType result = DType::float32);

}  // namespace kiln
#pragma GCC visibility pop
