#pragma once
// CPU reference for the Gaussian filter with scipy.ndimage.gaussian_filter's
// semantics: a separable 1-D pass per axis (slowest axis first), each as
// convolve1d with a normalized, truncated Gaussian.
#include <array>

#include "kiln/host_array.hpp"
#include "kiln/reference/convolve.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// scipy.ndimage.gaussian_filter(input, sigma, mode=mode, cval, truncate) on a
/// 1-, 2- or 3-D array. sigma_zyx holds one sigma per axis in (z, y, x) order:
/// a 2-D image uses sigma_zyx[1] for y and sigma_zyx[2] for x and ignores
/// sigma_zyx[0]; a 1-D array uses sigma_zyx[2] alone. An axis whose sigma is
/// at most 1e-15 (0 included) is skipped, as SciPy skips it; with every axis
/// skipped the result is a copy. Each pass sums in double and rounds to the
/// result dtype before the next, as SciPy does: the input's dtype for float32
/// and float64, float32 for integer input (SciPy with output=numpy.float32;
/// its default would keep the integer dtype). order_zyx: the derivative
/// order (0 .. 3) per axis in (z, y, x) order, gaussian_kernel1d's weights of
/// that order on the axes not skipped. Throws InvalidArgument for an empty
/// input, any sigma (used or not) or truncate that is negative or not
/// finite, and any order outside 0 .. 3.
HostArray gaussian_filter(const HostArray& input, std::array<double, 3> sigma_zyx,
                          NdMode mode = NdMode::reflect, double cval = 0, double truncate = 4.0,
                          std::array<int, 3> order_zyx = {0, 0, 0});

}  // namespace kiln::cpu
#pragma GCC visibility pop
