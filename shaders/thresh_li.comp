#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// threshold_li's reductions, one partial per workgroup (4 doubles) that the
// host adds up; only finite elements take part (skimage drops NaN and inf).
// MODE 0: min, max and count of the elements.
// MODE 1: count and sum of d = x - min, and count and sum of those d > t.
// d is computed as skimage computes `image -= image_min`: in the image's
// float type (float32 rounding for float32), exactly for integers.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint MODE = 0;

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) writeonly buffer P { double partials[]; };
layout(push_constant) uniform Push { uint n, pad; uvec2 min_bits, t_bits; } p;

shared double s_v[4][gl_WorkGroupSize.x];

bool finite_value(uint i, out double x) {
#if defined(T_FLOAT)
    const T v = a[i];
    x = double(v);
    return !isnan(v) && !isinf(v);
#elif defined(T_INT)
    x = double(int(a[i]));
    return true;
#else
    x = double(uint(a[i]));
    return true;
#endif
}

double shifted(uint i, double lo) {
#if defined(KILN_DTYPE_float32)
    precise float d = a[i] - float(lo);
    return double(d);
#else
    precise double d = double(a[i]) - lo;
    return d;
#endif
}

void main() {
    const double inf = packDouble2x32(uvec2(0u, 0x7ff00000u));
    double v0 = MODE == 0 ? inf : 0.0, v1 = MODE == 0 ? -inf : 0.0, v2 = 0.0, v3 = 0.0;
    const double lo = packDouble2x32(p.min_bits), t = packDouble2x32(p.t_bits);
    FOR_EACH_ELEMENT(i, p.n) {
        double x;
        if (!finite_value(i, x)) continue;
        if (MODE == 0) {
            v0 = min(v0, x);
            v1 = max(v1, x);
            v2 += 1.0;
        } else {
            const double d = shifted(i, lo);
            v0 += 1.0;
            v1 += d;
            if (d > t) {
                v2 += 1.0;
                v3 += d;
            }
        }
    }
    const uint l = gl_LocalInvocationID.x;
    s_v[0][l] = v0, s_v[1][l] = v1, s_v[2][l] = v2, s_v[3][l] = v3;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (l < s) {
            if (MODE == 0) {
                s_v[0][l] = min(s_v[0][l], s_v[0][l + s]);
                s_v[1][l] = max(s_v[1][l], s_v[1][l + s]);
            } else {
                s_v[0][l] += s_v[0][l + s];
                s_v[1][l] += s_v[1][l + s];
                s_v[3][l] += s_v[3][l + s];
            }
            s_v[2][l] += s_v[2][l + s];
        }
        barrier();
    }
    if (l == 0)
        for (uint k = 0; k < 4; ++k) partials[4 * gl_WorkGroupID.x + k] = s_v[k][0];
}
