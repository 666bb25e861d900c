#pragma once
// Discrete Fourier transforms as numpy.fft (VkFFT inside: any length,
// Bluestein's algorithm for lengths with primes past 13), complex arrays'
// parts, and FFT convolution as scipy.signal.fftconvolve.
//
//   kiln::Array spectrum = kiln::rfft2(image);         // complex64, (ny, nx/2+1)
//   kiln::Array back = kiln::irfft2(spectrum, {ny, nx});
//
// The transforms take float32, float64, complex64 and complex128 arrays
// (float64/complex128 where the device has shaderFloat64) and transform the
// last axis (fft), the last two (fft2) or every axis (fftn); `n`/`s` pad
// with zeros or crop each transformed axis first (irfft's: the output
// length). Results are complex64 (complex128 from 64-bit input), real for
// irfft*. Plans are made once per shape and context (the first call of a
// shape compiles VkFFT's kernels: tens of milliseconds to seconds).
#include <cstdint>
#include <string_view>
#include <vector>

#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// numpy.fft's norm: which direction is scaled by 1/n (ortho: both by 1/sqrt(n)).
enum class FftNorm { backward, ortho, forward };
/// Parses "backward", "ortho" or "forward"; throws InvalidArgument otherwise.
FftNorm parse_fft_norm(std::string_view name);

/// One-dimensional transforms along the last axis; n <= 0: the axis' length
/// (irfft: 2 * (length - 1)).
Array fft(const Array& a, int64_t n = -1, FftNorm norm = FftNorm::backward);
Array ifft(const Array& a, int64_t n = -1, FftNorm norm = FftNorm::backward);
Array rfft(const Array& a, int64_t n = -1, FftNorm norm = FftNorm::backward);
Array irfft(const Array& a, int64_t n = -1, FftNorm norm = FftNorm::backward);
/// Over the last two axes; s: their lengths, empty for the input's.
Array fft2(const Array& a, const std::vector<int64_t>& s = {}, FftNorm norm = FftNorm::backward);
Array ifft2(const Array& a, const std::vector<int64_t>& s = {}, FftNorm norm = FftNorm::backward);
Array rfft2(const Array& a, const std::vector<int64_t>& s = {}, FftNorm norm = FftNorm::backward);
Array irfft2(const Array& a, const std::vector<int64_t>& s = {}, FftNorm norm = FftNorm::backward);
/// Over the last s.size() axes, or every axis when s is empty.
Array fftn(const Array& a, const std::vector<int64_t>& s = {}, FftNorm norm = FftNorm::backward);
Array ifftn(const Array& a, const std::vector<int64_t>& s = {}, FftNorm norm = FftNorm::backward);
Array rfftn(const Array& a, const std::vector<int64_t>& s = {}, FftNorm norm = FftNorm::backward);
Array irfftn(const Array& a, const std::vector<int64_t>& s = {}, FftNorm norm = FftNorm::backward);

/// The real part, imaginary part and magnitude of a complex array, as a
/// float array (float32 for complex64); of a float array: itself, zeros, |a|.
Array real(const Array& a);
Array imag(const Array& a);
Array abs(const Array& a);

/// scipy.signal.fftconvolve of two float32 (or float64) arrays of the same
/// number of dimensions, mode "full", "same" (in1's shape) or "valid" (in1
/// at least in2's extent on every axis), through real FFTs padded to lengths
/// of primes 2, 3, 5 and 7.
Array fftconvolve(const Array& in1, const Array& in2, std::string_view mode = "full");

/// scipy.ndimage.fourier_gaussian (axis -1): a spectrum times the transform
/// of a Gaussian of `sigma` (one, or one per axis), exp(-2 pi^2 sigma^2 f^2)
/// at each element's frequency f. n <= 0: the input is a full spectrum
/// (fft2/fftn's); n > 0: a real FFT's (rfft2/rfftn of a last axis of length
/// n, so n/2+1 bins there). Complex or float input; the result has its dtype.
Array fourier_gaussian(const Array& input, const std::vector<double>& sigma, int64_t n = -1);

/// The length at or past n that fftconvolve pads to: a product of 2, 3, 5
/// and 7, even unless n is 1.
uint64_t fft_fast_length(uint64_t n);

}  // namespace kiln
#pragma GCC visibility pop
