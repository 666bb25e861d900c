#pragma once
// Convolutions on the GPU with SciPy's and NumPy's semantics:
// scipy.signal.convolve2d, numpy.convolve and scipy.ndimage.convolve1d.
//
// Results are float32, or float64 when an input is float64; integer inputs
// are converted to that dtype first (SciPy and NumPy would keep integers and
// wrap on overflow). Sums are formed in the result dtype, so float32 results
// agree with a float64 computation rounded to float32 to a few units of
// float32 rounding (relative to the sum of |terms|). NaN and Inf propagate as
// in NumPy. Arrays larger than the device's maxStorageBufferRange are refused
// with kiln::Unsupported.
#include <span>

#include "kiln/array.hpp"
#include "kiln/conv_types.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// scipy.signal.convolve2d(image, kernel, mode, boundary, fillvalue): true 2-D
/// convolution (the kernel is flipped), out[m, n] = sum_jk kernel[j, k] *
/// image[m + r - j, n + c - k] with (r, c) = (0, 0) for full (output
/// (H + KH - 1, W + KW - 1)), ((KH - 1) / 2, (KW - 1) / 2) rounded down for same
/// (output (H, W)), and (KH - 1, KW - 1) for valid (output (H - KH + 1,
/// W - KW + 1)). Reads outside the image follow `boundary`; fillvalue is
/// converted to the result dtype first. Kernels of any size, even ones too.
/// In valid mode a kernel at least as large as the image in every dimension
/// swaps roles with it, as SciPy does.
///
/// A rank-one kernel (checked on the host: with the largest |k| at (p, q),
/// max |k - k[:, q] k[p, :] / k[p, q]| <= 1e-6 max |k|, 1e-14 for float64) runs
/// as two 1-D passes (one dispatch up to 64 taps each). The check reads the
/// kernel on the host; a kernel already read, and unchanged since, is not read
/// again. Inside a Graph capture the kernel cannot be read and the general
/// path runs; the HostArray overload below needs no read.
///
/// Any other kernel of at least 841 taps (29 x 29) with boundary fill and
/// fillvalue 0 runs through FFTs (fftconvolve), faster than the direct sum
/// there: its float32 rounding is then relative to the largest output rather
/// than to each sum, and a NaN or Inf in the image spreads over the whole
/// output (as scipy.signal.convolve's method 'fft'; a non-finite tap in a
/// kernel read on the host keeps the direct path).
///
/// Throws InvalidArgument for a null array, arrays that are not 2-D, arrays
/// of different contexts, and in valid mode when neither array is at least as
/// large as the other in every dimension (SciPy's ValueError).
Array convolve2d(const Array& image, const Array& kernel, ConvMode mode = ConvMode::full,
                 Boundary boundary = Boundary::fill, double fillvalue = 0);

/// convolve2d with the kernel in host memory: the same result, without a
/// read back of the kernel (its values travel with the commands).
Array convolve2d(const Array& image, const HostArray& kernel, ConvMode mode = ConvMode::full,
                 Boundary boundary = Boundary::fill, double fillvalue = 0);

/// numpy.convolve(a, v, mode) of two 1-D arrays of lengths M and N: full gives
/// M + N - 1 values, same max(M, N) values starting at full index
/// (min(M, N) - 1) / 2 rounded down, valid max(M, N) - min(M, N) + 1 values.
/// As in NumPy the longer array plays the signal, so either may be longer.
/// Throws InvalidArgument for a null array or arrays that are not 1-D.
Array convolve(const Array& a, const Array& v, ConvMode mode = ConvMode::full);

/// scipy.ndimage.convolve1d(input, weights, axis, mode=mode, cval, origin)
/// along one axis of a 1-, 2- or 3-D array: out[i] = sum_k weights[k] *
/// in[i - k + size / 2 + origin] (size = weights.size(), integer division),
/// positions outside the array taken as mode says. The result has the
/// input's dtype for float32 and float64 input and is float32 for integer
/// input (as ndimage.convolve1d(..., output=numpy.float32)). Weights are
/// used in the result dtype. Throws InvalidArgument for a null input, no
/// weights, an axis outside -ndim .. ndim-1, or an origin outside
/// -(size / 2) .. (size - 1) / 2.
Array convolve1d(const Array& input, std::span<const double> weights, int axis = -1,
                 NdMode mode = NdMode::reflect, double cval = 0, int origin = 0);

}  // namespace kiln
#pragma GCC visibility pop
