#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
// The list of primes from their uint8 flags, in increasing order, in three
// passes over tiles of LOCAL * 16 flags:
//   PASS 0: each workgroup counts the flags of its tile;
//   PASS 1: one workgroup turns the tile counts into exclusive offsets and
//           writes the total;
//   PASS 2: each workgroup writes its tile's numbers from its offset on.
#include "grid.glsl"

layout(constant_id = 3) const uint PASS = 0;
const uint PER = 16;  // flags (or tile counts in PASS 1) per invocation
const uint LOCAL = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;

layout(std430, binding = 0) readonly buffer Flags { uint8_t flags[]; };
layout(std430, binding = 1) buffer Tiles { uint tiles[]; };
layout(std430, binding = 2) writeonly buffer Primes { uint primes[]; };
layout(std430, binding = 3) writeonly buffer Total { uint total[]; };
// n flags in this piece, numbered from number_base, in tiles from tile_base;
// tile_count tiles in all (PASS 1).
layout(push_constant) uniform P { uint n; uint tile_base; uint number_base; uint tile_count; } p;

shared uint s[LOCAL];
shared uint s_sum;

// Exclusive prefix sum of v over the workgroup; the sum goes to s_sum.
uint scan(uint v) {
    const uint lid = gl_LocalInvocationIndex;
    s[lid] = v;
    barrier();
    for (uint d = 1; d < LOCAL; d <<= 1) {
        const uint t = lid >= d ? s[lid - d] : 0u;
        barrier();
        s[lid] += t;
        barrier();
    }
    const uint inclusive = s[lid];
    if (lid == LOCAL - 1) s_sum = inclusive;
    barrier();
    return inclusive - v;
}

void main() {
    const uint lid = gl_LocalInvocationIndex;
    if (PASS == 1) {
        uint running = 0;
        for (uint chunk = 0; chunk < p.tile_count; chunk += LOCAL * PER) {
            const uint first = chunk + lid * PER;
            uint c[PER];
            uint sum = 0;
            for (uint j = 0; j < PER; ++j) {
                c[j] = first + j < p.tile_count ? tiles[first + j] : 0u;
                sum += c[j];
            }
            uint o = running + scan(sum);
            for (uint j = 0; j < PER; ++j)
                if (first + j < p.tile_count) {
                    tiles[first + j] = o;
                    o += c[j];
                }
            running += s_sum;
            barrier();
        }
        if (lid == 0) total[0] = running;
        return;
    }
    const uint first = (gl_WorkGroupID.x * LOCAL + lid) * PER;
    uint bits = 0;
    for (uint j = 0; j < PER; ++j)
        if (first + j < p.n && flags[first + j] != uint8_t(0)) bits |= 1u << j;
    if (PASS == 0) {
        scan(bitCount(bits));
        if (lid == 0) tiles[p.tile_base + gl_WorkGroupID.x] = s_sum;
        return;
    }
    uint o = tiles[p.tile_base + gl_WorkGroupID.x] + scan(bitCount(bits));
    for (uint j = 0; j < PER; ++j)
        if ((bits & (1u << j)) != 0u) primes[o++] = p.number_base + first + j;
}
