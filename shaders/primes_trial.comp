#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
// The CUDA lessons' primes kernel: one invocation per number n tests it by
// trial division and writes a uint8 flag. After 2, only odd divisors up to
// floor(sqrt(n)) are tried, and that bound is computed once: an integer
// division costs a GPU some twenty instructions, and the lesson's loop
// (d * d <= n, or d <= n / d to stay clear of overflow near 2^32) pays one
// or two per divisor on top of the n % d it needs.
#include "grid.glsl"

layout(std430, binding = 0) writeonly buffer Flags { uint8_t flags[]; };
// flags[i] is the flag of number base + i, i < count.
layout(push_constant) uniform P { uint base; uint count; } p;

// floor(sqrt(n)) exactly: the float estimate is within one of it, and
// limits of 65535 keep the squares within 32 bits.
uint isqrt(uint n) {
    uint r = min(uint(sqrt(float(n))), 65535u);
    while (r * r > n) --r;
    while (r < 65535u && (r + 1) * (r + 1) <= n) ++r;
    return r;
}

void main() {
    FOR_EACH_ELEMENT(i, p.count) {
        const uint n = p.base + i;
        bool prime = n == 2 || (n >= 3 && (n & 1u) == 1u);
        if (prime && n >= 9) {
            const uint limit = isqrt(n);
            for (uint d = 3; d <= limit; d += 2)
                if (n % d == 0) {
                    prime = false;
                    break;
                }
        }
        flags[i] = uint8_t(prime ? 1 : 0);
    }
}
