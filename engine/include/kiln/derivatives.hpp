#pragma once
// Derivative and blob filters on the GPU with scipy.ndimage's semantics
// (SciPy 1.10), and skimage's difference of Gaussians. Every function takes
// a 1-, 2- or 3-D array; the result has the input's dtype for float32 and
// float64 input and is float32 for integer input (SciPy would keep the
// integer dtype, and wrap or truncate the derivatives in it).
#include <array>

#include "kiln/array.hpp"
#include "kiln/conv_types.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// scipy.ndimage.sobel(input, axis, mode=mode, cval): correlate1d with
/// [-1, 0, 1] along axis (-ndim .. ndim - 1), then [1, 2, 1] along each other
/// axis, in that order. An image takes one dispatch (y and x passes
/// together), a volume two. Throws InvalidArgument for a null input or an
/// axis out of range.
Array sobel(const Array& input, int axis = -1, NdMode mode = NdMode::reflect, double cval = 0);

/// scipy.ndimage.prewitt(input, axis, mode=mode, cval): as sobel with
/// [1, 1, 1] smoothing.
Array prewitt(const Array& input, int axis = -1, NdMode mode = NdMode::reflect, double cval = 0);

/// scipy.ndimage.laplace(input, mode=mode, cval): the sum over the axes of
/// correlate1d with [1, -2, 1] (each from the input), in one dispatch of
/// the whole stencil. Throws InvalidArgument for a null input.
Array laplace(const Array& input, NdMode mode = NdMode::reflect, double cval = 0);

/// scipy.ndimage.gaussian_laplace(input, sigma, mode=mode, cval, truncate):
/// the sum over the axes a of gaussian_filter(input, sigma, order 2 along a,
/// 0 along the others). sigma_zyx as gaussian_filter's (one per axis in
/// z, y, x order); an axis whose sigma is at most 1e-15 is skipped, its
/// derivative too, as in SciPy. Throws as gaussian_filter does.
Array gaussian_laplace(const Array& input, std::array<double, 3> sigma_zyx, NdMode mode = NdMode::reflect,
                       double cval = 0, double truncate = 4.0);

/// scipy.ndimage.gaussian_gradient_magnitude(input, sigma, mode=mode, cval,
/// truncate): sqrt of the sum over the axes a of gaussian_filter(input,
/// sigma, order 1 along a)^2, the squares and root in one element-wise
/// pass. Arguments and throws as gaussian_laplace's.
Array gaussian_gradient_magnitude(const Array& input, std::array<double, 3> sigma_zyx,
                                  NdMode mode = NdMode::reflect, double cval = 0, double truncate = 4.0);

/// skimage.filters.difference_of_gaussians(image, low_sigma, high_sigma,
/// mode=mode, cval, truncate): gaussian_filter(image, low_sigma) -
/// gaussian_filter(image, high_sigma), every axis with the same sigma, with
/// skimage's defaults: high_sigma = 1.6 * low_sigma when given as -1, mode
/// nearest, truncate 4. Integer input enters as its float32 values, where
/// skimage's img_as_float would first scale it into [0, 1] (or [-1, 1]):
/// divide the result by 255 for skimage's on uint8. Throws InvalidArgument
/// for a null image, a low_sigma negative or not finite, and a high_sigma
/// (other than -1) below low_sigma or not finite, as skimage's ValueError.
Array difference_of_gaussians(const Array& image, double low_sigma, double high_sigma = -1,
                              NdMode mode = NdMode::nearest, double cval = 0, double truncate = 4.0);

}  // namespace kiln
#pragma GCC visibility pop
