#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// Kappa-sigma clipping, the sum tree over the sorted finite values v
// (sort_*.comp): a node of level 1 holds (sum of v - shift, sum of
// (v - shift)^2) over 256 consecutive values, a node of level l > 1 the sums
// of 256 nodes of level l - 1. shift is the median of the finite values, so
// the sums clip_loop takes of the middle of the distribution stay small.
// Values past the finite ones (the non-finite keys at the end) count 0.
// LEVEL1 reads the keys; otherwise nodes [in_offset, in_offset + items) of
// the tree itself. One subgroup sums one node.
#include "dtype.glsl"
#include "grid.glsl"
#include "sort_key.glsl"

layout(constant_id = 3) const uint LEVEL1 = 1;

layout(std430, binding = 0) readonly buffer Keys { KEY keys[]; };
#include "clip_shift.glsl"
layout(std430, binding = 1) readonly buffer State { uint finite; } st;
layout(std430, binding = 2) buffer Tree { dvec2 tree[]; };
layout(push_constant) uniform Push { uint items, in_offset, out_offset, nodes; } p;

void main() {
    const uint finite = st.finite;
    const double shift = LEVEL1 != 0u ? clip_shift(finite) : 0.0lf;
    const uint width = gl_SubgroupSize;
    for (uint node = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID; node < p.nodes;
         node += gl_NumWorkGroups.x * gl_NumSubgroups) {
        dvec2 s = dvec2(0.0lf);
        for (uint j = gl_SubgroupInvocationID; j < 256u; j += width) {
            const uint i = node * 256u + j;
            if (LEVEL1 != 0u) {
                if (i < finite) {
                    const double x = value_of_key(keys[i]) - shift;
                    s += dvec2(x, x * x);
                }
            } else if (i < p.items) {
                s += tree[p.in_offset + i];
            }
        }
        s = subgroupAdd(s);
        if (subgroupElect()) tree[p.out_offset + node] = s;
    }
}
