#version 450
#extension GL_GOOGLE_include_directive : require
// Pixel counts per label l > 0 for the label tools (background, 0, and
// negative values are not counted: most pixels of a label image are
// background, and counting them would pile every atomic onto one word).
// Each invocation walks RUN consecutive pixels and adds each stretch of one
// label with a single atomicAdd, so blobs cost an atomic per row segment.
#include "grid.glsl"

const uint RUN = 16;

layout(std430, binding = 0) readonly buffer L { int labels[]; };
layout(std430, binding = 1) buffer C { uint counts[]; };
layout(push_constant) uniform Push { uint n; } p;

void main() {
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x * RUN;
    for (uint base = gl_GlobalInvocationID.x * RUN; base < p.n; base += stride) {
        const uint end = min(base + RUN, p.n);
        int current = labels[base];
        uint length = 1;
        for (uint i = base + 1; i < end; ++i) {
            const int l = labels[i];
            if (l == current) {
                ++length;
                continue;
            }
            if (current > 0) atomicAdd(counts[current], length);
            current = l;
            length = 1;
        }
        if (current > 0) atomicAdd(counts[current], length);
    }
}
