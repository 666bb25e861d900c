#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
// Segmented sieve of Eratosthenes: each workgroup strikes the multiples of
// the base primes (every prime <= sqrt(upper - 1), listed by primes_compact)
// out of a bitmap of SEGMENT numbers in shared memory, then writes their
// uint8 flags. Small primes, with many multiples per segment, are struck by
// the whole workgroup together; large ones by one invocation each.
#include "grid.glsl"

layout(constant_id = 3) const uint SEGMENT_WORDS = 4096;  // bitmap words: 32 numbers each
const uint SEGMENT = SEGMENT_WORDS * 32;
const uint LOCAL = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;

layout(std430, binding = 0) readonly buffer Primes { uint primes[]; };
layout(std430, binding = 1) readonly buffer Count { uint prime_count[]; };
layout(std430, binding = 2) writeonly buffer Flags { uint8_t flags[]; };
// flags[i] is the flag of number base + i, i < count.
layout(push_constant) uniform P { uint base; uint count; } p;

shared uint composite[SEGMENT_WORDS];

// Strikes the multiples of q from the segment [lo, lo + len), starting at
// invocation `first` and going `step` multiples at a time.
void strike(uint q, uint lo, uint len, uint first, uint step) {
    // The first multiple of q that is >= lo and >= q * q, as an offset from lo.
    uint start = (q - lo % q) % q;
    const uint square = q * q;  // q <= 65535
    if (square > lo) start = max(start, square - lo);
    for (uint o = start + first * q; o < len; o += step * q) atomicOr(composite[o >> 5], 1u << (o & 31u));
}

void main() {
    const uint lid = gl_LocalInvocationIndex;
    const uint offset = gl_WorkGroupID.x * SEGMENT;
    if (offset >= p.count) return;  // uniform: whole workgroups only
    const uint lo = p.base + offset;
    const uint len = min(SEGMENT, p.count - offset);
    for (uint w = lid; w < SEGMENT_WORDS; w += LOCAL) composite[w] = 0;
    barrier();

    const uint count = prime_count[0];
    // Primes with at least LOCAL multiples in a segment: all invocations together.
    uint i = 0;
    for (; i < count; ++i) {
        const uint q = primes[i];
        if (q > SEGMENT / LOCAL) break;
        strike(q, lo, len, lid, LOCAL);
    }
    for (uint k = i + lid; k < count; k += LOCAL) {
        const uint q = primes[k];
        if (q > (lo + len - 1) / q) break;  // q * q beyond the segment, and so are later primes
        strike(q, lo, len, 0, 1);
    }
    barrier();
    for (uint o = lid; o < len; o += LOCAL) {
        const bool prime = lo + o >= 2 && (composite[o >> 5] & (1u << (o & 31u))) == 0;
        flags[offset + o] = uint8_t(prime ? 1 : 0);
    }
}
