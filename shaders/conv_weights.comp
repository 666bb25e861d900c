#version 450
#extension GL_GOOGLE_include_directive : require
// Writes up to 30 words from push constants into a buffer. While a graph is
// captured, a push from the host is refused; this is how host weights reach
// the GPU then.
#include "grid.glsl"

layout(std430, binding = 0) writeonly buffer Out { uint dst[]; };
layout(push_constant) uniform P { uint offset; uint count; uint w[30]; } p;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.count) dst[p.offset + i] = p.w[i];
}
