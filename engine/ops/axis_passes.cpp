#include "ops/axis_passes.hpp"

#include "ops/convolve_pass.hpp"

namespace kiln::ops {

namespace {

uint32_t extent(const Shape& s, size_t from, size_t to) {
    uint64_t n = 1;
    for (size_t i = from; i < to; ++i) n *= s[i];
    return static_cast<uint32_t>(n);
}

// One dispatch over the array viewed as (B, H, W): y taps along H, x taps
// along W (either may be empty).
Array pass(const Array& in, uint32_t b, uint32_t h, uint32_t w, const std::vector<double>& wy,
           const std::vector<double>& wx, NdMode mode, double cval) {
    conv::Separable s;
    s.in = in;
    s.out = Array::empty(in.context(), in.shape(), in.dtype());
    s.B = b, s.H = s.OH = h, s.W = s.OW = w;
    s.oy = static_cast<int>(wy.size() / 2), s.ox = static_cast<int>(wx.size() / 2);
    s.y.host = wy;
    s.x.host = wx;
    s.mode_y = s.mode_x = conv::ext_of(mode);
    s.cval = cval;
    s.nd = true;
    conv::record(s);
    return s.out;
}

// A pass along one axis alone: along H of (before, n, after), or along W
// for the last axis.
Array single_axis(const Array& in, size_t axis, const std::vector<double>& w, NdMode mode, double cval) {
    const Shape& s = in.shape();
    const size_t ndim = s.ndim();
    if (axis == ndim - 1) return pass(in, 1, extent(s, 0, axis), extent(s, axis, ndim), {}, w, mode, cval);
    return pass(in, extent(s, 0, axis), extent(s, axis, axis + 1), extent(s, axis + 1, ndim), w, {}, mode,
                cval);
}

}  // namespace

Array axis_passes(const Array& in, const AxisTaps& taps, std::span<const size_t> order, NdMode mode,
                  double cval) {
    const Shape& s = in.shape();
    const size_t ndim = s.ndim();
    Array current = in;
    size_t last = 0;
    bool ascending = true;
    for (size_t axis : order)
        if (!taps[axis].empty()) {
            ascending = ascending && axis >= last;
            last = axis;
        }
    if (mode == NdMode::constant && cval != 0 && !ascending) {
        for (size_t axis : order)
            if (!taps[axis].empty()) current = single_axis(current, axis, taps[axis], mode, cval);
        return current;
    }
    if (ndim == 1) return taps[0].empty() ? in : pass(in, 1, 1, extent(s, 0, 1), {}, taps[0], mode, cval);
    if (ndim == 3 && !taps[0].empty()) current = single_axis(current, 0, taps[0], mode, cval);
    const std::vector<double>&wy = taps[ndim - 2], &wx = taps[ndim - 1];
    if (wy.empty() && wx.empty()) return current;
    return pass(current, extent(s, 0, ndim - 2), extent(s, ndim - 2, ndim - 1), extent(s, ndim - 1, ndim), wy,
                wx, mode, cval);
}

}  // namespace kiln::ops
