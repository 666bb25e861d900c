// The manifest entries of the FFT family (kiln/fft.hpp): numpy.fft's names
// and keywords (n, s, norm), scipy.signal.fftconvolve's mode and
// scipy.ndimage.fourier_gaussian's sigma and n.
#include <string>
#include <vector>

#include "kiln/fft.hpp"
#include "kiln/manifest.hpp"

namespace kiln {
namespace {

using Transform1 = Array (*)(const Array&, int64_t, FftNorm);
using TransformN = Array (*)(const Array&, const std::vector<int64_t>&, FftNorm);

const std::vector<std::string> norm_names{"backward", "ortho", "forward"};

ArgSpec input_spec() {
    return {"a", ArgKind::array, "Input array file (.npy: float32, float64, complex64 or complex128)"};
}
ArgSpec norm_spec() {
    return {"norm", ArgKind::choice, "Which direction is scaled by 1/n (ortho: both by 1/sqrt(n)), as numpy.fft",
            "backward", false, norm_names};
}

OpEntry one_axis(const char* name, const char* what, Transform1 f) {
    return {name,
            std::string(what) + " along the last axis as numpy.fft." + name,
            {input_spec(),
             {"n", ArgKind::integer, "Transform length (pads with zeros or crops the input; irfft: the output's)",
              "-1", false, {}, -1},
             norm_spec()},
            ResultKind::array, {}, {},
            [f](const OpArgs& x) { return f(x.array("a"), x.integer("n"), parse_fft_norm(x.text("norm"))); }};
}

OpEntry some_axes(const char* name, const char* what, const char* axes, TransformN f) {
    return {name,
            std::string(what) + " over " + axes + " as numpy.fft." + name,
            {input_spec(),
             {"s", ArgKind::integers,
              "Lengths of the transformed axes (pad or crop; irfft*: the output's): --s 256 256", "", true, {}, 1},
             norm_spec()},
            ResultKind::array, {}, {},
            [f](const OpArgs& x) {
                const std::vector<int64_t> s = x.has("s") ? x.integers("s") : std::vector<int64_t>{};
                return f(x.array("a"), s, parse_fft_norm(x.text("norm")));
            }};
}

OpEntry part(const char* name, const char* what, Array (*f)(const Array&)) {
    return {name, what, {input_spec()}, ResultKind::array, {}, {}, [f](const OpArgs& x) { return f(x.array("a")); }};
}

const OpFamily fft_family(
    "fft",
    {
        one_axis("fft", "Discrete Fourier transform", fft),
        one_axis("ifft", "Inverse discrete Fourier transform", ifft),
        one_axis("rfft", "Real-input Fourier transform (n/2+1 bins)", rfft),
        one_axis("irfft", "Inverse of rfft (real output)", irfft),
        some_axes("fft2", "2-D Fourier transform", "the last two axes", fft2),
        some_axes("ifft2", "2-D inverse Fourier transform", "the last two axes", ifft2),
        some_axes("rfft2", "2-D real-input Fourier transform", "the last two axes", rfft2),
        some_axes("irfft2", "Inverse of rfft2 (real output)", "the last two axes", irfft2),
        some_axes("fftn", "N-D Fourier transform", "every axis (or the last len(s))", fftn),
        some_axes("ifftn", "N-D inverse Fourier transform", "every axis (or the last len(s))", ifftn),
        some_axes("rfftn", "N-D real-input Fourier transform", "every axis (or the last len(s))", rfftn),
        some_axes("irfftn", "Inverse of rfftn (real output)", "every axis (or the last len(s))", irfftn),
        part("real", "Real part of a complex array (float32 for complex64)", real),
        part("imag", "Imaginary part of a complex array (float32 for complex64)", imag),
        part("abs", "Magnitude of a complex array, |a| of a real one", abs),
        {"fftconvolve",
         "Convolution through FFTs as scipy.signal.fftconvolve; float32 out, float64 when an input is float64",
         {{"in1", ArgKind::array, "First array file (float32 or float64)"},
          {"in2", ArgKind::array, "Second array file, as many dimensions as IN1"},
          {"mode", ArgKind::choice, "Output extent: full, same (IN1's shape) or valid", "full", false,
           {"full", "same", "valid"}}},
         ResultKind::array, {}, {},
         [](const OpArgs& x) { return fftconvolve(x.array("in1"), x.array("in2"), x.text("mode")); }},
        {"fourier_gaussian",
         "A spectrum times a Gaussian's transform as scipy.ndimage.fourier_gaussian (axis -1); the input's dtype out",
         {{"input", ArgKind::array, "Spectrum file: complex (fft2/fftn's, or rfft2/rfftn's with --n) or float"},
          {"sigma", ArgKind::numbers, "Gaussian sigma in pixels, one or one per axis: --sigma 2 or --sigma 2,3"},
          {"n", ArgKind::integer, "-1: a full spectrum; else the real FFT's length along the last axis", "-1", false,
           {}, -1}},
         ResultKind::array, {}, {},
         [](const OpArgs& x) { return fourier_gaussian(x.array("input"), x.numbers("sigma"), x.integer("n")); }},
    });

}  // namespace
}  // namespace kiln
