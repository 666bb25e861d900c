#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// The input of the spline prefilter: converted to R (float64 for float64,
// else float32) and padded by pad[s] elements on both sides of slot s
// (z, y, x) with the edge value (edge != 0) or cval, as numpy.pad's 'edge'
// and 'constant' in scipy.ndimage's _prepad_for_spline_filter.
#include "dtype.glsl"
#include "grid.glsl"
#include "real.glsl"


layout(std430, binding = 0) readonly buffer In { T src[]; };
layout(std430, binding = 1) writeonly buffer Out { R dst[]; };
layout(push_constant) uniform P {
    ivec4 n;    // input extents (z, y, x)
    ivec4 pad;  // per slot
    uvec2 cval; // double bits
    uint edge;
    uint count; // outputs
} p;

void main() {
    const R cval = R(packDouble2x32(p.cval));
    FOR_EACH_ELEMENT(i, p.count) {
        uint rest = i, src_index = 0, stride = 1;
        bool inside = true;
        for (int s = 2; s >= 0; --s) {
            const uint padded = uint(p.n[s] + 2 * p.pad[s]);
            int q = int(rest % padded) - p.pad[s];
            rest /= padded;
            inside = inside && q >= 0 && q < p.n[s];
            src_index += uint(clamp(q, 0, p.n[s] - 1)) * stride;
            stride *= uint(p.n[s]);
        }
        dst[i] = (inside || p.edge != 0) ? R(src[src_index]) : cval;
    }
}
