#version 450
#extension GL_GOOGLE_include_directive : require
// MODE 0: out[i] = table[labels[i]], the renumbering of the label tools
// (every label lies in the table: the host sized it from the maximum).
// MODE 1: out[i] = table[i + 1], label_sizes' counts without background.
#include "grid.glsl"

layout(constant_id = 3) const uint MODE = 0;

layout(std430, binding = 0) readonly buffer L { int labels[]; };
layout(std430, binding = 1) readonly buffer M { int table[]; };
layout(std430, binding = 2) writeonly buffer O { int outv[]; };
layout(push_constant) uniform Push { uint n; } p;

void main() {
    FOR_EACH_ELEMENT(i, p.n) outv[i] = MODE == 0 ? table[labels[i]] : table[i + 1];
}
