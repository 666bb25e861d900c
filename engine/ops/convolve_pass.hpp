#pragma once
// The dispatches behind the convolutions and filters (kiln/convolve.hpp,
// kiln/filters.hpp): a separable pass (y then x) and a general 2-D pass over
// an array viewed as (B, H, W), with the kernel variant picked from the tap
// counts and the device's shared memory.
#include <cstdint>
#include <span>
#include <vector>

#include "kiln/array.hpp"
#include "kiln/conv_types.hpp"

namespace kiln::ops::conv {

/// How a shader reads outside the input (the MODE specialization constants).
enum class Ext : uint32_t { constant = 0, reflect = 1, nearest = 2, mirror = 3, wrap = 4 };
Ext ext_of(NdMode m);
Ext ext_of(Boundary b);

/// The taps of one axis: host weights, or a 1-D device array of the data's
/// dtype; neither is a single tap of weight 1.
struct Taps {
    std::vector<double> host;
    Array device;
    size_t size() const { return device ? device.size() : host.empty() ? 1 : host.size(); }
};

/// out[b, m, n] = sum_k x[k] * mid[b, m, n + ox - k],
/// mid[b, m, q] = sum_j y[j] * in[b, m + oy - j, q], in and out C-ordered
/// (B, H, W) and (B, OH, OW) arrays of one float dtype, positions outside
/// the input as mode_y / mode_x say. A column outside in constant mode gives
/// mid = cval when `nd` (scipy.ndimage's pass after pass), else cval * sum(y)
/// (a 2-D fill factorized).
struct Separable {
    Array in, out;
    uint32_t B = 1, H = 1, W = 1, OH = 1, OW = 1;
    int oy = 0, ox = 0;
    Taps y, x;
    Ext mode_y = Ext::constant, mode_x = Ext::constant;
    double cval = 0;
    bool nd = true;
};
void record(const Separable& s);

/// out[b, m, n] = sum_jk kernel[j, k] * in[b, m + oy - j, n + ox - k] with a
/// KH x KW device kernel of the data's dtype.
struct General {
    Array in, kernel, out;
    uint32_t B = 1, H = 1, W = 1, OH = 1, OW = 1, KH = 1, KW = 1;
    int oy = 0, ox = 0;
    Ext mode_y = Ext::constant, mode_x = Ext::constant;
    double cval = 0;
};
void record(const General& g);

/// A 1-D device array of dtype t holding w: pushed through staging, or,
/// inside a graph capture (where pushes are refused), written by a kernel.
Array upload_weights(const Context& ctx, std::span<const double> w, DType t);

}  // namespace kiln::ops::conv
