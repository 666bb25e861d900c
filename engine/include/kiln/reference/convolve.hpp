#pragma once
// CPU references for convolution: scipy.signal.convolve2d, numpy.convolve and
// scipy.ndimage.convolve1d, with their index conventions and boundary rules
// reproduced exactly. Products are summed in double and rounded once to the
// result dtype (SciPy sums float32 data in float32, so kiln's float32 results
// are the more accurate ones; compare within float32 rounding).
//
// Integer inputs are promoted to float32 (float64 when the other operand is
// float64): SciPy and NumPy keep integer dtypes and wrap on overflow, kiln's
// GPU kernels work in floating point. In convolve2d and convolve values are
// first converted to the result dtype, so an int32 beyond 2^24 is rounded as
// astype(float32) would.
#include <span>

#include "kiln/conv_types.hpp"
#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

// The selectors are kiln's own (kiln/conv_types.hpp), shared with the GPU ops.
using kiln::Boundary;
using kiln::ConvMode;
using kiln::NdMode;

/// scipy.signal.convolve2d(image, kernel, mode, boundary, fillvalue): true 2-D
/// convolution, out[m, n] = sum_jk kernel[j, k] * image[m + r - j, n + c - k]
/// with (r, c) = (0, 0) for full (output (H + KH - 1, W + KW - 1)),
/// ((KH - 1) / 2, (KW - 1) / 2) rounded down for same (output (H, W), also for
/// even or larger kernels), and (KH - 1, KW - 1) for valid (output
/// (H - KH + 1, W - KW + 1)). Reads outside the image follow the boundary;
/// fillvalue is first converted to the result dtype. In valid mode a kernel at
/// least as large as the image in both dimensions swaps roles with it, as
/// SciPy does. Throws InvalidArgument unless both arrays are 2-D, and in valid
/// mode when neither array is at least as large as the other in every
/// dimension (SciPy's ValueError).
HostArray convolve2d(const HostArray& image, const HostArray& kernel, ConvMode mode = ConvMode::full,
                     Boundary boundary = Boundary::fill, double fillvalue = 0);

/// numpy.convolve(a, v, mode) of two 1-D arrays (lengths M and N): full gives
/// M + N - 1 values, same max(M, N) values starting at full index
/// (min(M, N) - 1) / 2 rounded down, valid max(M, N) - min(M, N) + 1 values.
/// As in NumPy the longer array plays the signal, so either may be longer.
/// Throws InvalidArgument unless both arrays are 1-D.
HostArray convolve(const HostArray& a, const HostArray& v, ConvMode mode = ConvMode::full);

/// scipy.ndimage.convolve1d(input, weights, axis, mode=mode, cval, origin):
/// along one axis of a 1-, 2- or 3-D array, out[i] = sum_k weights[k] *
/// in[i - k + size / 2 + origin] (size = weights.size(), integer division),
/// positions outside the array taken as mode says. The result has the input's
/// dtype for float32 and float64 input and is float32 for integer input, whose
/// values enter exactly, as ndimage.convolve1d(..., output=numpy.float32)
/// (SciPy's default would keep the integer dtype). Throws InvalidArgument
/// for no weights, an axis outside -ndim .. ndim-1, or an origin outside
/// -(size / 2) .. (size - 1) / 2 (where SciPy says "invalid origin").
HostArray convolve1d(const HostArray& input, std::span<const double> weights, int axis = -1,
                     NdMode mode = NdMode::reflect, double cval = 0, int origin = 0);

}  // namespace kiln::cpu
#pragma GCC visibility pop
