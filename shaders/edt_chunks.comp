#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// Exact EDT, before the first pass: for every run of EDT_CHUNK elements
// along the first axis, the offsets of its first and last zero (first | last
// << 16), or NONE. edt_first hops over these runs instead of walking lines
// with no zero nearby. Laid out as the array with the axis cut to chunks,
// so neighbouring invocations read and write neighbouring addresses.
#include "dtype.glsl"
#include "grid.glsl"
#include "edt_chunk.glsl"

layout(std430, binding = 0) readonly buffer In { T mask[]; };
layout(std430, binding = 1) writeonly buffer Out { uint summary[]; };
layout(push_constant) uniform Push { uint n, len, inner, chunks; } p;

void main() {
    const uint m = p.n / p.len * p.chunks;
    FOR_EACH_ELEMENT(j, m) {
        const uint r = j % p.inner, c = (j / p.inner) % p.chunks, o = j / (p.inner * p.chunks);
        const uint l0 = c * EDT_CHUNK, l1 = min(l0 + EDT_CHUNK, p.len);
        const uint base = o * p.len * p.inner + r;
        uint first = NONE, last = 0;
        for (uint l = l0; l < l1; ++l)
            if (mask[base + l * p.inner] == T(0)) {
                first = min(first, l - l0);
                last = l - l0;
            }
        summary[j] = first == NONE ? NONE : first | last << 16;
    }
}
