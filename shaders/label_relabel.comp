#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// Connected components, passes 4 and 5, in place on the parent array.
// MODE 0: each block numbers its roots in raster order, starting after the
// roots of the blocks before it (the scanned counts), and stores the label
// with the HI bit set so it cannot be taken for a pixel index. A block is
// shared out among the subgroups as in label_flatten.
// MODE 1: every pixel takes its root's label; background becomes 0.
#include "grid.glsl"

layout(constant_id = 3) const uint MODE = 0;

// No `coherent`: in MODE 0 no invocation reads what another writes, and in
// MODE 1 a root's entry is read tagged or untagged, both of which give its label.
layout(std430, binding = 0) buffer Parent { uint parent[]; };
layout(std430, binding = 1) readonly buffer Offsets { uint block_offsets[]; };
layout(push_constant) uniform Push { uint n, blocks, block; } p;

const uint BG = 0x7FFFFFFFu;
const uint HI = 0x80000000u;
shared uint s_sum[gl_WorkGroupSize.x];

void number_roots() {
    const uint share = (p.block + gl_NumSubgroups - 1) / gl_NumSubgroups;
    const uint lane = gl_SubgroupInvocationID;
    for (uint b = gl_WorkGroupID.x; b < p.blocks; b += gl_NumWorkGroups.x) {
        const uint block_end = min((b + 1) * p.block, p.n);
        const uint start = b * p.block + gl_SubgroupID * share;
        const uint end = min(start + share, block_end);
        uint roots = 0;
        for (uint i = start + lane; i < end; i += gl_SubgroupSize)
            roots += parent[i] == i ? 1u : 0u;
        const uint s = subgroupAdd(roots);
        if (subgroupElect()) s_sum[gl_SubgroupID] = s;
        barrier();
        uint label = block_offsets[b];
        for (uint k = 0; k < gl_SubgroupID; ++k) label += s_sum[k];
        // Subgroup-wide steps in raster order: ranks from ballots.
        for (uint step = start; step < end; step += gl_SubgroupSize) {
            const uint i = step + lane;
            const bool root = i < end && parent[i] == i;
            const uvec4 ballot = subgroupBallot(root);
            if (root) parent[i] = (label + subgroupBallotExclusiveBitCount(ballot) + 1) | HI;
            label += subgroupBallotBitCount(ballot);
        }
        barrier();
    }
}

void resolve() {
    FOR_EACH_ELEMENT(i, p.n) {
        const uint v = parent[i];
        uint label;
        if (v == BG) label = 0;
        else if ((v & HI) != 0) label = v & ~HI;
        else label = parent[v] & ~HI;  // v is a root, already numbered
        parent[i] = label;
    }
}

void main() {
    if (MODE == 0) number_roots();
    else resolve();
}
