#version 450
#extension GL_GOOGLE_include_directive : require
//! variants2: float32 float64 int8 uint8 int16 uint16 int32 uint32 x float32 float64
// Exact EDT, first pass: along the array's first axis, the squared distance
// (s k)^2 to the nearest zero of the line, +inf when the line has none. Each
// invocation searches outward from its element and stops at the first zero,
// so its cost is that distance; neighbouring invocations read neighbouring
// addresses (the axis is never the innermost unless the array is 1-D).
#include "dtype.glsl"
#include "grid.glsl"
#define D U
#if defined(U_FLOAT) && defined(KILN_DTYPE2_float64)
#define EDT_DOUBLE 1
#endif
#include "edt_common.glsl"

layout(std430, binding = 0) readonly buffer In { T mask[]; };
layout(std430, binding = 1) writeonly buffer Out { D dist[]; };

bool is_zero(uint i) { return mask[i] == T(0); }  // NaN is not: foreground, as SciPy

void main() {
    const uint stride = stride_of(p.axis), len = p.dims[p.axis];
    FOR_EACH_ELEMENT(i, p.n) {
        D d2 = D(0);
        if (!is_zero(i)) {
            d2 = D_INF;
            const uint l = (i / stride) % len;
            const uint reach = max(l, len - 1 - l);
            for (uint k = 1; k <= reach; ++k) {
                if ((k <= l && is_zero(i - k * stride)) || (l + k < len && is_zero(i + k * stride))) {
                    d2 = offset_sq(p.axis, k);
                    break;
                }
            }
        }
        dist[i] = p.final_ != 0 ? finish(i, d2) : d2;
    }
}
