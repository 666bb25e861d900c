#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// First pass of a whole-array argmin (OP 0), argmax (OP 1) or count_nonzero
// (OP 2): every workgroup writes one partial, the first extreme of its
// elements with its flat index, or its count. The first NaN beats every
// value, as in NumPy.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint OP = 0;

#include "widen.glsl"

const uint NONE = 0xffffffffu;  // index of a thread or group that saw no element

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 0) readonly buffer AV { VT av[]; };
layout(std430, binding = 1) writeonly buffer PV { W part_value[]; };
layout(std430, binding = 2) writeonly buffer PI { uvec2 part_index[]; };  // (lo, hi), or (count, 0)
// base: flat index of this piece's first element, (lo, hi).
layout(push_constant) uniform Push { uint n; uint part_base; uvec2 base; } p;

// Whether (v, i) comes before (w, j) in the search for the first minimum
// (OP 0) or maximum (OP 1).
#define EXTREME_MIN (OP == 0)
#include "extreme.glsl"

shared W sv[gl_WorkGroupSize.x];
shared uint si[gl_WorkGroupSize.x];

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint gid = gl_GlobalInvocationID.x;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    const uint nv = p.n / VW;
    const uint tail = nv * VW + gid;
    if (OP == 2) {
        uint count = 0;
        for (uint i = gid; i < nv; i += stride) {
            WV v = WV(av[i]);
            for (int c = 0; c < VW; ++c) count += v[c] != W(0) ? 1u : 0u;
        }
        if (tail < p.n && W(a[tail]) != W(0)) ++count;
        count = subgroupAdd(count);
        if (subgroupElect()) si[gl_SubgroupID] = count;
        barrier();
        if (lid == 0) {
            for (uint k = 1; k < gl_NumSubgroups; ++k) count += si[k];
            part_index[p.part_base + gl_WorkGroupID.x] = uvec2(count, 0u);
        }
        return;
    }
    W best = W(0);
    uint at = NONE;
    // Each thread sees its elements in increasing index order.
    for (uint i = gid; i < nv; i += stride) {
        WV v = WV(av[i]);
        for (int c = 0; c < VW; ++c)
            if (before(v[c], i * VW + c, best, at)) best = v[c], at = i * VW + c;
    }
    if (tail < p.n && before(W(a[tail]), tail, best, at)) best = W(a[tail]), at = tail;
    sv[lid] = best;
    si[lid] = at;
    for (uint cnt = gl_WorkGroupSize.x; cnt > 1;) {
        uint half_cnt = (cnt + 1) / 2;
        barrier();
        if (lid + half_cnt < cnt && before(sv[lid + half_cnt], si[lid + half_cnt], sv[lid], si[lid])) {
            sv[lid] = sv[lid + half_cnt];
            si[lid] = si[lid + half_cnt];
        }
        cnt = half_cnt;
    }
    if (lid != 0) return;
    uvec2 index = uvec2(NONE);
    if (si[0] != NONE) {
        index.x = p.base.x + si[0];
        index.y = p.base.y + (index.x < si[0] ? 1u : 0u);
    }
    part_value[p.part_base + gl_WorkGroupID.x] = sv[0];
    part_index[p.part_base + gl_WorkGroupID.x] = index;
}
