#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int32 uint32
// Pass 2 of the range reduction of histogram and bincount: one workgroup
// reduces the partials of hist_minmax (written in the type values are
// compared in: float, double, int for signed and uint for unsigned integers)
// to one, which the host reads back.
#include "dtype.glsl"
#include "grid.glsl"
#include "sort_key.glsl"

// Floats as raw bits, compared by order key (see hist_minmax).
#if defined(T_FLOAT)
#define A RAW_T
#define A_MIN raw_min
#define A_MAX raw_max
#else
#define A T
#define A_MIN min
#define A_MAX max
#endif

#include "hist_range.glsl"

layout(std430, binding = 0) readonly buffer Partials { Partial partials[]; };
layout(std430, binding = 1) writeonly buffer Result { Partial result[]; };
layout(push_constant) uniform P { uint count; } p;

const uint NONE = 0xffffffffu;
const uint LOCAL = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;

shared Partial s[LOCAL];

// b folded into a.
Partial combine(Partial a, Partial b) {
    if (b.any != 0u) {
        a.mn = a.any != 0u ? A_MIN(a.mn, b.mn) : b.mn;
        a.mx = a.any != 0u ? A_MAX(a.mx, b.mx) : b.mx;
        a.any = 1u;
    }
    if (b.neg_index < a.neg_index) {
        a.neg_index = b.neg_index;
        a.neg_value = b.neg_value;
    }
    return a;
}

void main() {
    const uint lid = gl_LocalInvocationIndex;
    Partial acc = Partial(A(0), A(0), 0u, NONE, A(0));
    for (uint i = lid; i < p.count; i += LOCAL) acc = combine(acc, partials[i]);
    s[lid] = acc;
    barrier();
    for (uint k = 1; k < LOCAL; k <<= 1) {
        if ((lid & (2 * k - 1)) == 0 && lid + k < LOCAL) s[lid] = combine(s[lid], s[lid + k]);
        barrier();
    }
    if (lid == 0) result[0] = s[0];
}
