#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// Second pass of argmin (OP 0), argmax (OP 1), count_nonzero (OP 2): one
// workgroup combines the partials of reduce_extreme into the extreme value
// (in the array's dtype) and its 64-bit flat index, or the 64-bit count.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint OP = 0;

#include "widen.glsl"

const uvec2 NONE = uvec2(0xffffffffu);

layout(std430, binding = 0) readonly buffer PV { W part_value[]; };
layout(std430, binding = 1) readonly buffer PI { uvec2 part_index[]; };
layout(std430, binding = 2) writeonly buffer V { T value[]; };
layout(std430, binding = 3) writeonly buffer I { uvec2 index[]; };  // (lo, hi)
layout(push_constant) uniform Push { uint parts; } p;

bool less64(uvec2 i, uvec2 j) { return i.y < j.y || (i.y == j.y && i.x < j.x); }

#define EXTREME_MIN (OP == 0)
#define EXTREME_INDEX uvec2
#define EXTREME_INDEX_LESS(i, j) less64(i, j)
#include "extreme.glsl"

uvec2 add64(uvec2 a, uvec2 b) {
    uint lo = a.x + b.x;
    return uvec2(lo, a.y + b.y + (lo < a.x ? 1u : 0u));
}

shared W sv[gl_WorkGroupSize.x];
shared uvec2 si[gl_WorkGroupSize.x];

void main() {
    const uint lid = gl_LocalInvocationID.x;
    W best = W(0);
    // (A specialization-constant select between vectors is miscompiled by
    // lavapipe: a branch instead.)
    uvec2 at = NONE;
    if (OP == 2) at = uvec2(0u);
    for (uint i = lid; i < p.parts; i += gl_WorkGroupSize.x) {
        if (OP == 2) at = add64(at, part_index[i]);
        else if (before(part_value[i], part_index[i], best, at)) best = part_value[i], at = part_index[i];
    }
    sv[lid] = best;
    si[lid] = at;
    for (uint cnt = gl_WorkGroupSize.x; cnt > 1;) {
        uint half_cnt = (cnt + 1) / 2;
        barrier();
        if (lid + half_cnt < cnt) {
            if (OP == 2) {
                si[lid] = add64(si[lid], si[lid + half_cnt]);
            } else if (before(sv[lid + half_cnt], si[lid + half_cnt], sv[lid], si[lid])) {
                sv[lid] = sv[lid + half_cnt];
                si[lid] = si[lid + half_cnt];
            }
        }
        cnt = half_cnt;
    }
    if (lid != 0) return;
    if (OP != 2) value[0] = T(sv[0]);
    index[0] = si[0];
}
