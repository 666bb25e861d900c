#version 450
#extension GL_GOOGLE_include_directive : require
// binary.comp for float32 arrays whose length is a multiple of 4, four
// elements per invocation: 16-byte loads and stores reach the memory
// bandwidth that 4-byte ones do not.
#include "grid.glsl"

layout(constant_id = 3) const uint OP = 0;      // add, subtract, multiply, divide, minimum, maximum
layout(constant_id = 4) const uint SCALAR = 0;  // 0: a op b, 1: a op s, 2: s op a

layout(std430, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, binding = 1) readonly buffer B { vec4 b[]; };
layout(std430, binding = 2) writeonly buffer C { vec4 c[]; };
layout(push_constant) uniform P { uint n; uint pad; uvec2 scalar; } p;  // n counts vec4s

vec4 apply(vec4 x, vec4 y) {
    if (OP == 0) return x + y;
    if (OP == 1) return x - y;
    if (OP == 2) return x * y;
    if (OP == 3) return x / y;
    bvec4 nan = bvec4(uvec4(isnan(x)) | uvec4(isnan(y)));
    vec4 m = OP == 4 ? min(x, y) : max(x, y);
    return mix(m, x + y, nan);  // NaN propagates, as NumPy's minimum/maximum
}

void main() {
    vec4 s = vec4(uintBitsToFloat(p.scalar.x));
    FOR_EACH_ELEMENT(i, p.n) {
        if (SCALAR == 0) c[i] = apply(a[i], b[i]);
        else if (SCALAR == 1) c[i] = apply(a[i], s);
        else c[i] = apply(s, a[i]);
    }
}
