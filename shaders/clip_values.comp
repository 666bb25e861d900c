#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// out = min(max(a, lo), hi) as numpy.clip: NaN stays NaN (both comparisons
// are false), and lo > hi gives hi everywhere. lo and hi arrive as raw bits
// of the element type.
#include "dtype.glsl"
#include "grid.glsl"

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) writeonly buffer O { T o[]; };
layout(push_constant) uniform P { uint n; uint pad; uvec2 lo; uvec2 hi; } p;

void main() {
    T lo = SCALAR_T(p.lo), hi = SCALAR_T(p.hi);
    FOR_EACH_ELEMENT(i, p.n) {
        T v = a[i] < lo ? lo : a[i];
        o[i] = v > hi ? hi : v;
    }
}
