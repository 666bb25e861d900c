#pragma once
// Smoothing filters on the GPU with scipy.ndimage's semantics.
#include <array>

#include "kiln/array.hpp"
#include "kiln/conv_types.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// scipy.ndimage.gaussian_filter(input, sigma, mode=mode, cval, truncate) of
/// a 1-, 2- or 3-D array, order=order_zyx. sigma_zyx holds one sigma per
/// axis in (z, y, x) order: a 2-D image uses sigma_zyx[1] for y and
/// sigma_zyx[2] for x, a 1-D array sigma_zyx[2] alone; order_zyx likewise
/// the derivative order (0 .. 3) of each axis. Each axis with sigma > 1e-15
/// gets a 1-D pass (slowest axis first; an axis it skips takes no
/// derivative either, as in SciPy) with the weights of scipy's
/// _gaussian_kernel1d: radius r = int(truncate * sigma + 0.5), w[i] =
/// exp(-x^2 / (2 sigma^2)) for x = -r .. r, normalized to sum 1, times the
/// order's polynomial (SciPy's q(x)). Each pass rounds to the result dtype, as
/// SciPy's do; the y and x passes of an image run in one dispatch (up to 64
/// weights each). The result has the input's dtype for float32 and float64
/// input and is float32 for integer input (SciPy's default would keep the
/// integer dtype). With every sigma at most 1e-15 the result is a copy.
/// Throws InvalidArgument for a null input, for any sigma (used or not) or
/// truncate that is negative or not finite, or whose radius exceeds 2^20,
/// and for any order outside 0 .. 3.
Array gaussian_filter(const Array& input, std::array<double, 3> sigma_zyx,
                      NdMode mode = NdMode::reflect, double cval = 0, double truncate = 4.0,
                      std::array<int, 3> order_zyx = {0, 0, 0});

/// scipy.ndimage.gaussian_filter1d(input, sigma, axis, order, mode=mode,
/// cval, truncate): gaussian_filter along one axis (-ndim .. ndim - 1) of a
/// 1-, 2- or 3-D array, with its dtypes and checks. A sigma at most 1e-15
/// gives a copy (as float32 for integer input), where SciPy's weights for
/// sigma 0 are NaN. Throws InvalidArgument as gaussian_filter does, and for
/// an axis out of range.
Array gaussian_filter1d(const Array& input, double sigma, int axis = -1, int order = 0,
                        NdMode mode = NdMode::reflect, double cval = 0, double truncate = 4.0);

/// Gaussian blur in pyclesperanto's argument order (x, y, z), with
/// gaussian_filter's semantics (mode reflect, truncate 4). sigma_y = -1 means
/// sigma_x; sigma_z = -1 means sigma_x for a 3-D image. sigma_z is not used
/// for 1-D and 2-D images, sigma_y not for 1-D ones (both are still checked).
/// Throws InvalidArgument for a null image, a sigma_x that is not finite and
/// > 0, and a sigma_y or sigma_z that is neither -1 nor finite and > 0 (to
/// leave an axis alone, give gaussian_filter a sigma of 0 there).
Array gaussian_blur(const Array& image, double sigma_x, double sigma_y = -1, double sigma_z = -1);

}  // namespace kiln
#pragma GCC visibility pop
