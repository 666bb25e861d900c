#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
// The CUDA lessons' primes kernel: one invocation per number n tests it by
// trial division by 2, 3, ... up to floor(sqrt(n)) and writes a uint8 flag.
#include "grid.glsl"

layout(std430, binding = 0) writeonly buffer Flags { uint8_t flags[]; };
// flags[i] is the flag of number base + i, i < count.
layout(push_constant) uniform P { uint base; uint count; } p;

void main() {
    FOR_EACH_ELEMENT(i, p.count) {
        const uint n = p.base + i;
        bool prime = n >= 2;
        // d <= n / d rather than d * d <= n, which overflows near 2^32.
        for (uint d = 2; d <= n / d; ++d)
            if (n % d == 0) {
                prime = false;
                break;
            }
        flags[i] = uint8_t(prime ? 1 : 0);
    }
}
