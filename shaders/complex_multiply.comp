#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64
// a *= b for n complex (interleaved) elements: spectra multiplied in fftconvolve.
#include "dtype.glsl"
#include "grid.glsl"

layout(std430, binding = 0) buffer A { T a[]; };
layout(std430, binding = 1) readonly buffer B { T b[]; };
layout(push_constant) uniform P { uint n; } p;

void main() {
    FOR_EACH_ELEMENT(i, p.n) {
        const T ar = a[2u * i], ai = a[2u * i + 1u];
        const T br = b[2u * i], bi = b[2u * i + 1u];
        a[2u * i] = ar * br - ai * bi;
        a[2u * i + 1u] = ar * bi + ai * br;
    }
}
