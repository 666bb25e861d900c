#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// The largest label of a 32-bit label image, as int32 or (UNSIGNED) uint32:
// the number of result slots when every label is measured, and the check
// that uint32 labels fit int32.
#include "grid.glsl"

layout(constant_id = 3) const uint UNSIGNED = 0;

layout(std430, binding = 0) readonly buffer Labels { uint labels[]; };
layout(std430, binding = 1) buffer Out { int smax; uint umax; };
layout(push_constant) uniform Push { uint n; } p;

void main() {
    int s = -2147483647 - 1;
    uint u = 0;
    FOR_EACH_ELEMENT(i, p.n) {
        uint v = labels[i];
        s = max(s, int(v));
        u = max(u, v);
    }
    if (UNSIGNED == 1) {
        u = subgroupMax(u);
        if (subgroupElect()) atomicMax(umax, u);
    } else {
        s = subgroupMax(s);
        if (subgroupElect()) atomicMax(smax, s);
    }
}
