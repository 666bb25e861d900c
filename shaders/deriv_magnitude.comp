#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64
// out = sqrt(a^2 + b^2 + c^2) element-wise over N = 1, 2 or 3 inputs:
// gaussian_gradient_magnitude's last step in one pass (SciPy squares, sums
// and takes the root in separate passes, each rounding to the dtype).
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint N = 2;

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) readonly buffer B { T b[]; };
layout(std430, binding = 2) readonly buffer C { T c[]; };
layout(std430, binding = 3) writeonly buffer Out { T o[]; };
layout(push_constant) uniform P { uint n; } p;

void main() {
    FOR_EACH_ELEMENT(i, p.n) {
        T s = a[i] * a[i];
        if (N > 1) s += b[i] * b[i];
        if (N > 2) s += c[i] * c[i];
        o[i] = sqrt(s);
    }
}
