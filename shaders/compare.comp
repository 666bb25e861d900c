#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// out = uint8(a (op) b), b an array or a scalar of a's type (the host turns a
// double scalar into an exact comparison against a value of T).
#include "dtype.glsl"
#extension GL_EXT_shader_8bit_storage : require
#include "grid.glsl"

layout(constant_id = 3) const uint OP = 0;      // ==, !=, <, <=, >, >=
layout(constant_id = 4) const uint SCALAR = 0;

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) readonly buffer B { T b[]; };
layout(std430, binding = 2) writeonly buffer C { uint8_t c[]; };
layout(push_constant) uniform P { uint n; uint pad; uvec2 scalar; } p;

bool cmp(T x, T y) {
    if (OP == 0) return x == y;
    if (OP == 1) return x != y;
    if (OP == 2) return x < y;
    if (OP == 3) return x <= y;
    if (OP == 4) return x > y;
    return x >= y;
}

void main() {
    T s = SCALAR_T(p.scalar);
    FOR_EACH_ELEMENT(i, p.n) {
        bool r = SCALAR == 0 ? cmp(a[i], b[i]) : cmp(a[i], s);
        c[i] = uint8_t(r ? 1 : 0);
    }
}
