#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// LSD radix sort, step 3 of a pass: every key goes to its place by digit
// PASS, stably (keys of one digit keep their order, which is what makes the
// passes sort). Each subgroup ranks a contiguous chunk of the tile (digit
// peers by ballots, a running count per digit in its own row of `table`);
// the rows are then turned into offsets per digit, the tile is sorted by
// digit in shared memory, and written out in runs, one per digit, at
//     the digit's start (totals of smaller digits, sort_scan)
//   + the tile's offset within the digit (sort_scan's prefix over tiles).
// SUBGROUPS rows must cover the workgroup's subgroups; a workgroup with more
// sets state[1] and writes nothing (clip_loop reports it).
#include "dtype.glsl"
#include "grid.glsl"
#include "sort_key.glsl"
#include "sort_peers.glsl"

layout(constant_id = 3) const uint PASS = 0;
layout(constant_id = 4) const uint PER_LANE = 16;   // as sort_count's
layout(constant_id = 5) const uint SUBGROUPS = 8;
const uint TILE = PER_LANE * gl_WorkGroupSize.x;

layout(std430, binding = 0) readonly buffer Raw { RAW_T raw[]; };
layout(std430, binding = 1) readonly buffer Keys { KEY keys[]; };
layout(std430, binding = 2) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 3) writeonly buffer Out { KEY out_keys[]; };
layout(std430, binding = 4) buffer State { uint state[]; };
layout(push_constant) uniform Push { uint n, tiles; } p;

shared uint table[SUBGROUPS * 256];  // per subgroup: digit counts, then offsets in the digit
shared uint digit_start[256];        // first place of each digit in the output
shared uint run_start[256];          // output place of the tile's first key of each digit, minus its tile place
shared uint scan[256];
shared uint sg_sums[gl_WorkGroupSize.x];
shared KEY stage[TILE];

// scan[] becomes its exclusive prefix sum.
void scan_exclusive() {
    const uint L = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    uint carry = 0u;
    for (uint d0 = 0u; d0 < 256u; d0 += L) {
        const uint d = d0 + lid;
        const uint v = d < 256u ? scan[d] : 0u;
        const uint incl = subgroupInclusiveAdd(v), sub_total = subgroupAdd(v);
        if (subgroupElect()) sg_sums[gl_SubgroupID] = sub_total;
        barrier();
        uint before = carry + incl - v;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) {
            if (s < gl_SubgroupID) before += sg_sums[s];
            carry += sg_sums[s];
        }
        if (d < 256u) scan[d] = before;
        barrier();
    }
}

void main() {
    const uint L = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID, width = gl_SubgroupSize;
    if (gl_NumSubgroups > SUBGROUPS) {
        if (lid == 0u) state[1] = 1u;
        return;
    }
    const uint row = sg * 256u;

    for (uint d = lid; d < 256u; d += L) scan[d] = counts[256u * p.tiles + d];
    barrier();
    scan_exclusive();
    for (uint d = lid; d < 256u; d += L) digit_start[d] = scan[d];

    for (uint tile = gl_WorkGroupID.x; tile < p.tiles; tile += gl_NumWorkGroups.x) {
        // This subgroup's chunk: PER_LANE steps of `width` consecutive keys.
        const uint chunk = sg * PER_LANE * width;
        const uint first = tile * TILE + chunk + lane;
        KEY k[PER_LANE];
        for (uint j = 0u; j < PER_LANE; ++j) {
            const uint i = first + j * width;
            k[j] = KEY_ALL_ONES;
            if (i < p.n) k[j] = PASS == 0u ? key_of_raw(raw[i]) : keys[i];
        }
        for (uint d = lane; d < 256u; d += width) table[row + d] = 0u;
        subgroupBarrier();

        // Rank of each key among the chunk's keys of its digit.
        uint rank[PER_LANE];
        for (uint j = 0u; j < PER_LANE; ++j) {
            const bool valid = first + j * width < p.n;
            const uint d = key_digit(k[j], PASS);
            const uvec4 peers = digit_peers(d, valid);
            const uint before = table[row + d];
            subgroupBarrier();
            if (valid && last_of_peers(peers)) table[row + d] = before + subgroupBallotBitCount(peers);
            subgroupBarrier();
            rank[j] = before + subgroupBallotExclusiveBitCount(peers);
        }
        barrier();

        // Per digit: the subgroups' offsets within the tile's keys of the
        // digit, and the tile's count of it.
        for (uint d = lid; d < 256u; d += L) {
            uint c = 0u;
            for (uint s = 0u; s < gl_NumSubgroups; ++s) {
                const uint count = table[s * 256u + d];
                table[s * 256u + d] = c;
                c += count;
            }
            scan[d] = c;
        }
        barrier();
        scan_exclusive();  // scan[d]: the digit's first place in the tile
        for (uint d = lid; d < 256u; d += L) run_start[d] = digit_start[d] + counts[d * p.tiles + tile] - scan[d];

        for (uint j = 0u; j < PER_LANE; ++j)
            if (first + j * width < p.n) {
                const uint d = key_digit(k[j], PASS);
                stage[scan[d] + table[row + d] + rank[j]] = k[j];
            }
        barrier();

        // Out in tile order: keys of one digit go to consecutive places.
        const uint size = min(TILE, p.n - tile * TILE);
        for (uint t = lid; t < size; t += L) {
            const KEY key = stage[t];
            out_keys[run_start[key_digit(key, PASS)] + t] = key;
        }
        barrier();
    }
}
