#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64
// scipy.ndimage.fourier_gaussian: each element of a spectrum (real or
// interleaved complex T, a (z, y, x) box) times the Gaussian's transform at
// its frequency, which is separable: f[x] * f[X + y] * f[X + Y + z] from a
// table the host computes in double (z: every leading axis folded).
#include "dtype.glsl"
#include "grid.glsl"

layout(std430, binding = 0) readonly buffer S { T s[]; };
layout(std430, binding = 1) writeonly buffer D { T d[]; };
layout(std430, binding = 2) readonly buffer F { T f[]; };
layout(push_constant) uniform P {
    uvec3 ext;  // x, y, z extents
    uint complex_values;
} p;

void main() {
    const uint n = p.ext.x * p.ext.y * p.ext.z;
    FOR_EACH_ELEMENT(i, n) {
        const uint x = i % p.ext.x, r = i / p.ext.x;
        const uint y = r % p.ext.y, z = r / p.ext.y;
        const T g = f[x] * f[p.ext.x + y] * f[p.ext.x + p.ext.y + z];
        if (p.complex_values != 0u) {
            d[2u * i] = s[2u * i] * g;
            d[2u * i + 1u] = s[2u * i + 1u] * g;
        } else {
            d[i] = s[i] * g;
        }
    }
}
