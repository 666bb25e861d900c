#pragma once
// scipy.ndimage's filters made of 1-D passes along the axes (gaussian_filter
// with its orders, sobel, prewitt, the Gaussian derivatives), run through
// the separable kernel: the y and x passes of an image in one dispatch.
#include <array>
#include <span>
#include <vector>

#include "kiln/array.hpp"
#include "kiln/conv_types.hpp"

namespace kiln::ops {

/// Convolution weights per array axis (index 0 .. ndim - 1); an empty set
/// leaves its axis alone. Each set has an odd size 2r + 1 and is centred:
/// out[i] = sum_k w[k] * in[i + r - k], scipy.ndimage.convolve1d's (and
/// correlate1d's with the weights reversed).
using AxisTaps = std::array<std::vector<double>, 3>;

/// The passes of `taps` over a float32 or float64 array, one after the
/// other in `order` (array axes) as SciPy runs them, each rounding to the
/// array's dtype: z first, then y and x in one dispatch. The order only
/// changes the result in constant mode with a nonzero cval (a later pass
/// sees cval where an earlier one saw the input's edge values): there, an
/// order other than ascending runs its passes one by one. Returns `in`
/// itself when no axis has taps.
Array axis_passes(const Array& in, const AxisTaps& taps, std::span<const size_t> order, NdMode mode,
                  double cval);

}  // namespace kiln::ops
