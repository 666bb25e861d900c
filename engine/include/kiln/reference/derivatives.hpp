#pragma once
// CPU reference for the derivative filters (kiln/derivatives.hpp), written
// as SciPy writes them: 1-D passes of convolve1d, one after the other, and
// sums of passes, each rounding to the result dtype.
#include <array>

#include "kiln/host_array.hpp"
#include "kiln/reference/convolve.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// scipy.ndimage.sobel / prewitt(input, axis, mode=mode, cval) of a 1-, 2-
/// or 3-D array: correlate1d with [-1, 0, 1] along axis, then [1, 2, 1]
/// (prewitt: [1, 1, 1]) along the other axes in ascending order. float32
/// out for integer input (SciPy with output=numpy.float32). Throws
/// InvalidArgument for an empty input or an axis out of range.
HostArray sobel(const HostArray& input, int axis = -1, NdMode mode = NdMode::reflect, double cval = 0);
HostArray prewitt(const HostArray& input, int axis = -1, NdMode mode = NdMode::reflect, double cval = 0);

/// scipy.ndimage.laplace(input, mode=mode, cval): the sum over the axes
/// (ascending, added in the result dtype) of correlate1d with [1, -2, 1].
HostArray laplace(const HostArray& input, NdMode mode = NdMode::reflect, double cval = 0);

/// scipy.ndimage.gaussian_laplace and gaussian_gradient_magnitude(input,
/// sigma, mode=mode, cval, truncate): gaussian_filter with order 2 (1) along
/// each axis in turn, summed (squared, summed, square-rooted) in the result
/// dtype. sigma_zyx as gaussian_filter's.
HostArray gaussian_laplace(const HostArray& input, std::array<double, 3> sigma_zyx,
                           NdMode mode = NdMode::reflect, double cval = 0, double truncate = 4.0);
HostArray gaussian_gradient_magnitude(const HostArray& input, std::array<double, 3> sigma_zyx,
                                      NdMode mode = NdMode::reflect, double cval = 0, double truncate = 4.0);

/// skimage.filters.difference_of_gaussians(image, low_sigma, high_sigma,
/// mode=mode, cval, truncate) on float input (integer input as its float32
/// values, unscaled): gaussian_filter with low_sigma minus gaussian_filter
/// with high_sigma (-1: 1.6 * low_sigma) on every axis.
HostArray difference_of_gaussians(const HostArray& image, double low_sigma, double high_sigma = -1,
                                  NdMode mode = NdMode::nearest, double cval = 0, double truncate = 4.0);

}  // namespace kiln::cpu
#pragma GCC visibility pop
