#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// out = cond ? a : b with cond uint8 (the host turns other conditions into
// cond != 0 first); a and b arrays or scalars (spec constants 3 and 4).
#include "dtype.glsl"
#extension GL_EXT_shader_8bit_storage : require
#include "grid.glsl"

layout(constant_id = 3) const uint A_SCALAR = 0;
layout(constant_id = 4) const uint B_SCALAR = 0;

layout(std430, binding = 0) readonly buffer Cond { uint8_t cond[]; };
layout(std430, binding = 1) readonly buffer A { T a[]; };
layout(std430, binding = 2) readonly buffer B { T b[]; };
layout(std430, binding = 3) writeonly buffer O { T o[]; };
layout(push_constant) uniform P { uint n; uint pad; uvec2 sa; uvec2 sb; } p;

void main() {
    T va = SCALAR_T(p.sa), vb = SCALAR_T(p.sb);
    FOR_EACH_ELEMENT(i, p.n) {
        bool c = cond[i] != uint8_t(0);
        o[i] = c ? (A_SCALAR == 1 ? va : a[i]) : (B_SCALAR == 1 ? vb : b[i]);
    }
}
