// numpy.convolve and scipy.ndimage.convolve1d on the GPU: one pass of the
// separable kernel along the axis (the direct kernel for long weights).
#include <string>

#include "host/op_rules.hpp"
#include "kiln/convolve.hpp"
#include "kiln/manifest.hpp"
#include "kiln/elementwise.hpp"
#include "ops/convolve_pass.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

Array as_dtype(const Array& a, DType t) {
    return a.dtype() == t ? a : cast(a, t);
}

}  // namespace

Array convolve(const Array& a, const Array& v, ConvMode mode) {
    if (!a || !v) throw InvalidArgument("convolve: a null Array was given");
    ops::check_same_context(a, v, "convolve");
    for (const Array* x : {&a, &v})
        if (x->ndim() != 1)
            throw InvalidArgument("convolve: " + std::string(x == &a ? "a" : "v") + " has shape " +
                                  x->shape().str() + "; 1-D arrays are needed (reshape first)");
    const DType r = convolution_dtype(a.dtype(), v.dtype());
    const Array& signal = v.size() > a.size() ? v : a;
    const Array& taps = v.size() > a.size() ? a : v;
    const uint32_t m = static_cast<uint32_t>(signal.size()), n = static_cast<uint32_t>(taps.size());
    uint32_t len = m + n - 1;
    int off = 0;
    if (mode == ConvMode::same) len = m, off = int(n - 1) / 2;
    if (mode == ConvMode::valid) len = m - n + 1, off = int(n) - 1;

    ops::conv::Separable s;
    s.in = as_dtype(signal, r);
    s.out = Array::empty(a.context(), Shape{len}, r);
    s.W = m, s.OW = len, s.ox = off;
    s.x.device = as_dtype(taps, r);
    s.mode_x = ops::conv::Ext::constant;
    ops::conv::record(s);
    return s.out;
}

Array convolve1d(const Array& input, std::span<const double> weights, int axis, NdMode mode,
                 double cval, int origin) {
    if (!input) throw InvalidArgument("convolve1d: the input is a null Array");
    if (weights.empty())
        throw InvalidArgument("convolve1d: no weights given; at least one is needed");
    const int ndim = static_cast<int>(input.ndim());
    if (axis < -ndim || axis >= ndim)
        throw InvalidArgument("convolve1d: axis " + std::to_string(axis) +
                              " is out of range for shape " + input.shape().str() + "; accepted: " +
                              std::to_string(-ndim) + " .. " + std::to_string(ndim - 1));
    const int size = static_cast<int>(weights.size());
    const int centre = size / 2 + origin;
    if (centre < 0 || centre >= size)
        throw InvalidArgument("convolve1d: origin " + std::to_string(origin) + " is invalid for " +
                              std::to_string(size) +
                              " weights; accepted: " + std::to_string(-(size / 2)) + " .. " +
                              std::to_string((size - 1) / 2));
    const size_t ax = static_cast<size_t>(axis < 0 ? axis + ndim : axis);
    uint64_t outer = 1, inner = 1;
    for (size_t i = 0; i < ax; ++i) outer *= input.shape()[i];
    for (size_t i = ax + 1; i < input.ndim(); ++i) inner *= input.shape()[i];
    const uint32_t n = static_cast<uint32_t>(input.shape()[ax]);

    const DType t = dtype_is_float(input.dtype()) ? input.dtype() : DType::float32;
    ops::conv::Separable s;
    s.in = as_dtype(input, t);
    s.out = Array::empty(input.context(), input.shape(), t);
    s.cval = cval;
    const ops::conv::Ext ext = ops::conv::ext_of(mode);
    if (inner == 1) {
        // Along contiguous rows: the x pass over (outer, n).
        s.H = s.OH = static_cast<uint32_t>(outer);
        s.W = s.OW = n;
        s.ox = centre;
        s.x.host.assign(weights.begin(), weights.end());
        s.mode_x = ext;
    } else {
        // Along a strided axis: the y pass over (outer) planes of (n, inner).
        s.B = static_cast<uint32_t>(outer);
        s.H = s.OH = n;
        s.W = s.OW = static_cast<uint32_t>(inner);
        s.oy = centre;
        s.y.host.assign(weights.begin(), weights.end());
        s.mode_y = ext;
    }
    ops::conv::record(s);
    return s.out;
}

}  // namespace kiln

// The manifest entries (kiln/manifest.hpp).
namespace kiln {
namespace {

const OpFamily convolve1d_family("convolve", {
    {"convolve", "1-D convolution as numpy.convolve (the longer array is the signal)",
     {{"a", ArgKind::array, "First 1-D array file"},
      {"v", ArgKind::array, "Second 1-D array file"},
      {"mode", ArgKind::choice, "full (M+N-1 values), same (max(M, N)) or valid (max - min + 1)", "full", false,
       conv_mode_names()}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) { return convolve(x.array("a"), x.array("v"), parse_conv_mode(x.text("mode"))); }},
    {"convolve1d", "Convolution along one axis as scipy.ndimage.convolve1d; float32 out for integer input",
     {{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"},
      {"weights", ArgKind::numbers, "Comma-separated weights, e.g. 1,2,1"},
      {"axis", ArgKind::integer, "Axis to convolve along (negative counts from the last)", "-1", false, {},
       INT32_MIN, INT32_MAX},
      {"mode", ArgKind::choice, "How the input extends beyond its edges (scipy.ndimage)", "reflect", false,
       nd_mode_names()},
      {"cval", ArgKind::number, "Value outside the input with --mode constant", "0"},
      {"origin", ArgKind::integer, "Shift of the window: -(size/2) .. (size-1)/2", "0", false, {}, INT32_MIN,
       INT32_MAX}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return convolve1d(x.array("input"), x.numbers("weights"), static_cast<int>(x.integer("axis")),
                           parse_nd_mode(x.text("mode")), x.number("cval"), static_cast<int>(x.integer("origin")));
     }},
});

}  // namespace
}  // namespace kiln
