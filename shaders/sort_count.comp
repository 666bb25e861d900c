#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// LSD radix sort, step 1 of a pass: the histogram of digit PASS over each
// tile of PER_LANE * workgroup size consecutive elements, written
// digit-major (counts[digit * tiles + tile]) for sort_scan. Pass 0 reads the
// input elements and makes their keys (sort_key.glsl); it also counts each
// tile's non-finite elements (counts[256 * tiles + 256 + tile]). Later
// passes read the keys the previous sort_scatter wrote.
#include "dtype.glsl"
#include "grid.glsl"
#include "sort_key.glsl"

layout(constant_id = 3) const uint PASS = 0;
layout(constant_id = 4) const uint PER_LANE = 16;  // elements per invocation and tile
const uint TILE = PER_LANE * gl_WorkGroupSize.x;

layout(std430, binding = 0) readonly buffer Raw { RAW_T raw[]; };
layout(std430, binding = 1) readonly buffer Keys { KEY keys[]; };
layout(std430, binding = 2) writeonly buffer Counts { uint counts[]; };
layout(push_constant) uniform Push { uint n, tiles; } p;

shared uint hist[256];
shared uint nonfinite;

void main() {
    const uint L = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    for (uint tile = gl_WorkGroupID.x; tile < p.tiles; tile += gl_NumWorkGroups.x) {
        for (uint d = lid; d < 256u; d += L) hist[d] = 0u;
        if (lid == 0u) nonfinite = 0u;
        // All loads first, then the counting.
        const uint first = tile * TILE + lid;
        KEY k[PER_LANE];
        uint nf = 0u;
        for (uint j = 0u; j < PER_LANE; ++j) {
            const uint i = first + j * L;
            k[j] = KEY_ALL_ONES;
            if (i < p.n) {
                if (PASS == 0u) {
                    const RAW_T r = raw[i];
                    if (!raw_finite(r)) ++nf;
                    k[j] = key_of_raw(r);
                } else {
                    k[j] = keys[i];
                }
            }
        }
        barrier();
        for (uint j = 0u; j < PER_LANE; ++j) {
            const bool valid = first + j * L < p.n;
            // Plain shared atomics: on the H200 faster than aggregating
            // equal digits by ballots first, even for the top digit.
            if (valid) atomicAdd(hist[key_digit(k[j], PASS)], 1u);
        }
        if (PASS == 0u) {
            nf = subgroupAdd(nf);
            if (subgroupElect() && nf != 0u) atomicAdd(nonfinite, nf);
        }
        barrier();
        for (uint d = lid; d < 256u; d += L) counts[d * p.tiles + tile] = hist[d];
        if (PASS == 0u && lid == 0u) counts[256u * p.tiles + 256u + tile] = nonfinite;
        barrier();
    }
}
