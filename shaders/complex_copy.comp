#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64
// A copy between real and complex (interleaved) buffers of T that pads,
// crops and scales: FFT work buffers filled from arrays and arrays from
// them, and real/imag/abs of complex arrays. Both sides are (z, y, x) boxes
// of rows `pitch` elements apart; a destination element is the source
// element at its position plus the source origin, zero outside the source.
#include "dtype.glsl"
#include "grid.glsl"

layout(std430, binding = 0) readonly buffer S { T s[]; };
layout(std430, binding = 1) writeonly buffer D { T d[]; };
layout(push_constant) uniform P {
    uvec3 dst;       // x, y, z extents of the destination
    uint dst_pitch;  // elements between destination rows
    uvec3 src;       // x, y, z extents of the source
    uint src_pitch;
    uvec3 origin;    // source position (x, y, z) of destination (0, 0, 0)
    uint flags;      // 1: source complex, 2: destination complex, 4: take imag, 8: take abs
    uvec2 scale;     // raw bits of the scale (float for float32, double for float64)
} p;

void main() {
#if defined(KILN_DTYPE_float64)
    const T scale = packDouble2x32(p.scale);
#else
    const T scale = uintBitsToFloat(p.scale.x);
#endif
    const bool src_complex = (p.flags & 1u) != 0u, dst_complex = (p.flags & 2u) != 0u;
    const uint rows = p.dst.z * p.dst.y;
    for (uint r = gl_GlobalInvocationID.y; r < rows; r += gl_NumWorkGroups.y * gl_WorkGroupSize.y) {
        const uint z = r / p.dst.y, y = r - z * p.dst.y;
        const uint sz = z + p.origin.z, sy = y + p.origin.y;
        const bool row_in = sz < p.src.z && sy < p.src.y;
        const uint src_row = (sz * p.src.y + sy) * p.src_pitch, dst_row = r * p.dst_pitch;
        for (uint x = gl_GlobalInvocationID.x; x < p.dst.x; x += gl_NumWorkGroups.x * gl_WorkGroupSize.x) {
            const uint sx = x + p.origin.x;
            T re = T(0), im = T(0);
            if (row_in && sx < p.src.x) {
                if (src_complex) {
                    re = s[2u * (src_row + sx)];
                    im = s[2u * (src_row + sx) + 1u];
                } else {
                    re = s[src_row + sx];
                }
            }
            if ((p.flags & 4u) != 0u) {
                re = im;
                im = T(0);
            } else if ((p.flags & 8u) != 0u) {
                // Scaled first: no overflow where the magnitude is representable.
                const T m = max(abs(re), abs(im));
                re = m == T(0) ? T(0) : m * sqrt((re / m) * (re / m) + (im / m) * (im / m));
                im = T(0);
            }
            if (dst_complex) {
                d[2u * (dst_row + x)] = re * scale;
                d[2u * (dst_row + x) + 1u] = im * scale;
            } else {
                d[dst_row + x] = re * scale;
            }
        }
    }
}
