#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32 int64 uint64
// c = a (op) b element-wise, b an array or a scalar.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint OP = 0;      // add, subtract, multiply, divide, minimum, maximum
layout(constant_id = 4) const uint SCALAR = 0;  // 0: a op b, 1: a op s, 2: s op a

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) readonly buffer B { T b[]; };
layout(std430, binding = 2) writeonly buffer C { T c[]; };
layout(push_constant) uniform P { uint n; uint pad; uvec2 scalar; } p;

T apply(T x, T y) {
    if (OP == 0) return x + y;
    if (OP == 1) return x - y;
    if (OP == 2) return x * y;
    if (OP == 3) return x / y;
#if defined(T_FLOAT)
    if (isnan(x) || isnan(y)) return x + y;  // NaN propagates, as NumPy's minimum/maximum
#endif
    if (OP == 4) return min(x, y);
    return max(x, y);
}

void main() {
    T s = SCALAR_T(p.scalar);
    FOR_EACH_ELEMENT(i, p.n) {
        if (SCALAR == 0) c[i] = apply(a[i], b[i]);
        else if (SCALAR == 1) c[i] = apply(a[i], s);
        else c[i] = apply(s, a[i]);
    }
}
