#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64
// Exact EDT, a later pass: along one axis, d2'(i) = min over k of
// (s k)^2 + d2(i + k), the lower envelope of the parabolas the previous
// passes left. Each invocation searches outward and stops once (s k)^2
// reaches its best so far: the search is no longer than the element's
// distance along the earlier axes, and every candidate past it costs more.
// Neighbouring invocations read neighbouring addresses on every axis.
#include "dtype.glsl"
#include "grid.glsl"
#define D T
#if defined(KILN_DTYPE_float64)
#define EDT_DOUBLE 1
#endif
#include "edt_common.glsl"

layout(std430, binding = 0) readonly buffer In { D src[]; };
layout(std430, binding = 1) writeonly buffer Out { D dst[]; };

void main() {
    const uint stride = stride_of(p.axis), len = p.dims[p.axis];
    FOR_EACH_ELEMENT(i, p.n) {
        const uint l = (i / stride) % len;
        const uint reach = max(l, len - 1 - l);
        D best = src[i];
        for (uint k = 1; k <= reach; ++k) {
            const D c = offset_sq(p.axis, k);
            if (c >= best) break;
            if (k <= l) best = min(best, c + src[i - k * stride]);
            if (l + k < len) best = min(best, c + src[i + k * stride]);
        }
        dst[i] = p.final_ != 0 ? finish(i, best) : best;
    }
}
