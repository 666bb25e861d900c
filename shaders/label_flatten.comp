#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
// Connected components, pass 3: every foreground pixel points straight at
// its root, and each block of `block` consecutive pixels counts its roots
// (pixels that are their own parent: the first pixel of a component). The
// last workgroup to finish turns the counts into exclusive offsets in place
// and writes their total, the number of components.
// Each subgroup takes a contiguous share of a block, a subgroup-wide step at
// a time, so loads are coalesced.
#include "grid.glsl"

// No `coherent`: all unions are done, and a stale parent read here is still
// an ancestor (parents only ever move closer to the root). A parent index is
// never above its child's, and the root is the smallest index of the tree,
// so "closer to the root" is "smaller".
layout(std430, binding = 0) buffer Parent { uint parent[]; };
// Per-block root counts, then the count of workgroups done (zero on entry).
layout(std430, binding = 1) coherent buffer Blocks { uint block_roots[]; };
layout(std430, binding = 2) writeonly buffer Count { uint count; };
layout(push_constant) uniform Push { uint n, blocks, block; } p;

const uint BG = 0x7FFFFFFFu;
shared uint s_sum[gl_WorkGroupSize.x];
shared bool s_last;

// Path halving by atomicMin, never a plain store: the pixel's own
// invocation may already have pointed it at its root, and a plain store of
// the older ancestor c would undo that, leaving a pixel whose parent is not
// a root for label_relabel to misread (on a GPU running thousands of these
// finds at once, pixels of long serpentines came out labelled 0).
#define UF_PARENT parent
#define UF_ATOMIC_HALVING
#include "union_find.glsl"

// Exclusive prefix of x over the workgroup; `sum` gets the total.
#define SCAN_T uint
#define SCAN_LAST_SUMS s_sum
#include "workgroup_scan.glsl"

void scan_blocks() {
    const uint PER = 4;  // counts per invocation per round, their loads issued together
    uint carry = 0;
    for (uint base = 0; base < p.blocks; base += gl_WorkGroupSize.x * PER) {
        const uint start = base + gl_LocalInvocationID.x * PER;
        uint v[PER];
        [[unroll]] for (uint k = 0; k < PER; ++k)
            v[k] = start + k < p.blocks ? block_roots[start + k] : 0u;
        uint round_sum;
        uint run = carry + workgroup_exclusive(v[0] + v[1] + v[2] + v[3], round_sum);
        [[unroll]] for (uint k = 0; k < PER; ++k) {
            if (start + k < p.blocks) block_roots[start + k] = run;
            run += v[k];
        }
        carry += round_sum;
    }
    if (gl_LocalInvocationID.x == 0) count = carry;
}

void main() {
    const uint share = (p.block + gl_NumSubgroups - 1) / gl_NumSubgroups;
    for (uint b = gl_WorkGroupID.x; b < p.blocks; b += gl_NumWorkGroups.x) {
        const uint block_end = min((b + 1) * p.block, p.n);
        const uint start = b * p.block + gl_SubgroupID * share;
        const uint end = min(start + share, block_end);
        uint roots = 0;
        for (uint i = start + gl_SubgroupInvocationID; i < end; i += gl_SubgroupSize) {
            const uint v = parent[i];
            if (v == BG) continue;
            const uint r = find(i);
            if (r != v) parent[i] = r;  // the root: no atomicMin of an ancestor goes below it
            roots += r == i ? 1u : 0u;
        }
        const uint s = subgroupAdd(roots);
        if (subgroupElect()) s_sum[gl_SubgroupID] = s;
        barrier();
        if (gl_LocalInvocationID.x == 0) {
            uint total = 0;
            for (uint k = 0; k < gl_NumSubgroups; ++k) total += s_sum[k];
            block_roots[b] = total;
        }
        barrier();
    }
    // The last workgroup to finish scans the counts: no pass of its own.
    if (gl_LocalInvocationID.x == 0) {
        memoryBarrierBuffer();
        s_last = atomicAdd(block_roots[p.blocks], 1) == gl_NumWorkGroups.x - 1;
    }
    barrier();
    if (s_last) {
        memoryBarrierBuffer();
        scan_blocks();
    }
}
