#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64
// scipy.ndimage.laplace of a (Z, Y, X) array (Z = 1 for an image, Z = Y = 1
// for 1-D): the sum over the array's NDIM axes of in[i - 1] - 2 in[i] +
// in[i + 1] along each, positions outside mapped by the mode (constant:
// cval), added slowest axis first as SciPy adds its per-axis passes. One
// output per invocation, consecutive x across the workgroup: the neighbours'
// loads coalesce and are shared through the caches, so the whole stencil
// costs one read and one write of the array (SciPy's passes and adds, 2 NDIM).
#include "dtype.glsl"
#include "grid.glsl"
#include "boundary.glsl"

layout(std430, binding = 0) readonly buffer In { T src[]; };
layout(std430, binding = 1) writeonly buffer Out { T dst[]; };
layout(push_constant) uniform P {
    uvec2 cval;  // T bits
    uint Z, Y, X, ndim, mode;
} p;

// The second difference along an axis of n elements at position i, whose
// neighbours lie `stride` elements apart around `at` (the centre c).
T second(uint at, T c, int i, int n, uint stride, T cval) {
    const int lo = ext_index(i - 1, n, p.mode), hi = ext_index(i + 1, n, p.mode);
    const T a = lo < 0 ? cval : src[at - uint(i) * stride + uint(lo) * stride];
    const T b = hi < 0 ? cval : src[at - uint(i) * stride + uint(hi) * stride];
    return a - T(2) * c + b;
}

void main() {
    const T cval = SCALAR_T(p.cval);
    for (uint x = gl_GlobalInvocationID.x; x < p.X; x += gl_NumWorkGroups.x * gl_WorkGroupSize.x)
    for (uint z = gl_GlobalInvocationID.z; z < p.Z; z += gl_NumWorkGroups.z * gl_WorkGroupSize.z)
    for (uint y = gl_GlobalInvocationID.y; y < p.Y; y += gl_NumWorkGroups.y * gl_WorkGroupSize.y) {
        const uint at = (z * p.Y + y) * p.X + x;
        const T c = src[at];
        T sum = T(0);
        if (p.ndim == 3) sum += second(at, c, int(z), int(p.Z), p.Y * p.X, cval);
        if (p.ndim >= 2) sum += second(at, c, int(y), int(p.Y), p.X, cval);
        sum += second(at, c, int(x), int(p.X), 1, cval);
        dst[at] = sum;
    }
}
