#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// LSD radix sort, step 2 of a pass: workgroup d (< 256) turns digit d's row
// of per-tile counts (sort_count) into exclusive prefix sums over the tiles
// and writes the row's total to counts[256 * tiles + d]; sort_scatter adds
// the totals of the smaller digits. With FIRST, workgroup 256 sums the
// non-finite counts of pass 0, writes the number of finite elements to
// state[0] and clears sort_scatter's error flag state[1].
#include "grid.glsl"

layout(constant_id = 3) const uint FIRST = 0;

layout(std430, binding = 0) buffer Counts { uint counts[]; };
layout(std430, binding = 1) buffer State { uint state[]; };
layout(push_constant) uniform Push { uint n, tiles; } p;

shared uint sg_sums[gl_WorkGroupSize.x];

const uint BATCH = 4;  // loads in flight per invocation

void main() {
    const uint L = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    const uint row = gl_WorkGroupID.x;
    const uint base = row < 256u ? row * p.tiles : 256u * p.tiles + 256u;
    // Each invocation scans a contiguous chunk of the row.
    const uint per = (p.tiles + L - 1u) / L;
    const uint first = min(lid * per, p.tiles), last = min(first + per, p.tiles);
    uint mine = 0u;
    for (uint t = first; t < last; t += BATCH) {
        uint v[BATCH];
        for (uint b = 0u; b < BATCH; ++b) v[b] = t + b < last ? counts[base + t + b] : 0u;
        for (uint b = 0u; b < BATCH; ++b) mine += v[b];
    }
    const uint incl = subgroupInclusiveAdd(mine), sub_total = subgroupAdd(mine);
    if (subgroupElect()) sg_sums[gl_SubgroupID] = sub_total;
    barrier();
    uint before = incl - mine, total = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) {
        if (s < gl_SubgroupID) before += sg_sums[s];
        total += sg_sums[s];
    }
    if (row == 256u) {
        if (FIRST != 0u && lid == 0u) {
            state[0] = p.n - total;
            state[1] = 0u;
        }
        return;
    }
    for (uint t = first; t < last; t += BATCH) {
        uint v[BATCH];
        for (uint b = 0u; b < BATCH; ++b) v[b] = t + b < last ? counts[base + t + b] : 0u;
        for (uint b = 0u; b < BATCH && t + b < last; ++b) {
            counts[base + t + b] = before;
            before += v[b];
        }
    }
    if (lid == 0u) counts[256u * p.tiles + row] = total;
}
