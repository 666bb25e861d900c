#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// out = uint8(a > factor * scalars[index]), the threshold taken from a
// float64 array on the device (a statistic nothing has read back yet). The
// comparison is in float64, exact for every element type; NaN gives 0.
#include "dtype.glsl"
#extension GL_EXT_shader_8bit_storage : require
#include "grid.glsl"

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) readonly buffer S { double scalars[]; };
layout(std430, binding = 2) writeonly buffer M { uint8_t mask[]; };
layout(push_constant) uniform Push { uint n, index; uvec2 factor_bits; } p;

void main() {
    precise double t = packDouble2x32(p.factor_bits) * scalars[p.index];
    FOR_EACH_ELEMENT(i, p.n) {
#if defined(T_INT)
        const double x = double(int(a[i]));
#elif defined(T_UINT)
        const double x = double(uint(a[i]));
#else
        const double x = double(a[i]);
#endif
        mask[i] = uint8_t(x > t ? 1u : 0u);
    }
}
