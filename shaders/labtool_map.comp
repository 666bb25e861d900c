#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// The renumbering table of the label tools, in one workgroup: label l of
// 1..m is kept when lo <= counts[l] <= hi and (without flags, or) flags[l]
// is 0; kept labels get 1, 2, ... in increasing order of l, the others 0.
// Each invocation takes a contiguous chunk of labels; one exclusive scan
// of the chunks' kept counts places them. total[0] = the number kept.
#include "grid.glsl"

layout(constant_id = 3) const uint USE_FLAGS = 0;

layout(std430, binding = 0) readonly buffer C { uint counts[]; };
layout(std430, binding = 1) readonly buffer F { uint flags[]; };
layout(std430, binding = 2) writeonly buffer M { int map[]; };
layout(std430, binding = 3) writeonly buffer T { int total[]; };
layout(push_constant) uniform Push { uint entries, lo, hi; } p;

shared uint s_sums[gl_WorkGroupSize.x];
#define SCAN_ELECT_SUMS s_sums
#include "workgroup_scan.glsl"

bool kept(uint l) {
    if (l == 0) return false;
    const uint c = counts[l];
    return c >= p.lo && c <= p.hi && (USE_FLAGS == 0 || flags[l] == 0);
}

void main() {
    const uint chunk = (p.entries + gl_WorkGroupSize.x - 1) / gl_WorkGroupSize.x;
    const uint begin = min(gl_LocalInvocationID.x * chunk, p.entries);
    const uint end = min(begin + chunk, p.entries);
    uint mine = 0;
    for (uint l = begin; l < end; ++l) mine += kept(l) ? 1u : 0u;
    uint all_kept;
    uint next = exclusive_scan(mine, all_kept) + 1;
    for (uint l = begin; l < end; ++l) map[l] = kept(l) ? int(next++) : 0;
    if (gl_LocalInvocationID.x == 0) total[0] = int(all_kept);
}
