#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float64 float32
// Second pass of a whole-array sum: one workgroup adds the partials of
// reduce_sum and finishes the statistic (OP 0 sum, 1 mean = sum / n,
// 2 var = sum / divisor, 3 std = sqrt(var)). The variant is the accumulator:
// float64, or float32 pairs (hi, lo) as reduce_sum's compensated variant.
#include "grid.glsl"

layout(constant_id = 3) const uint OP = 0;

#if defined(KILN_DTYPE_float64)
#define ACC double
#else
#define ACC vec2
#endif

layout(std430, binding = 0) readonly buffer P { ACC partial[]; };
layout(std430, binding = 1) writeonly buffer R { ACC result[]; };
// n and the divisor of var: doubles, or (hi, lo) float pairs.
layout(push_constant) uniform Push { uint parts; uint pad; uvec2 n_bits; uvec2 div_bits; } p;

#if defined(KILN_DTYPE_float64)

ACC zero_acc() { return 0.0lf; }
ACC from_bits(uvec2 b) { return packDouble2x32(b); }
ACC divide(ACC a, ACC b) { return a / b; }
ACC root(ACC a) { return sqrt(a); }
bool is_zero(ACC a) { return a == 0.0lf; }
ACC nan_acc() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
ACC inf_acc() { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }

#else

vec2 two_sum(float a, float b) {
    precise float s = a + b;
    precise float bb = s - a;
    precise float e = (a - (s - bb)) + (b - bb);
    return vec2(s, e);
}
vec2 fast_two_sum(float a, float b) {
    precise float s = a + b;
    precise float e = b - (s - a);
    return vec2(s, e);
}
vec2 norm(float hi, float lo) {
    if (isinf(hi) || isnan(hi)) return vec2(hi, 0.0);
    return fast_two_sum(hi, lo);
}
vec2 ff_add(vec2 a, vec2 b) {
    vec2 s = two_sum(a.x, b.x);
    precise float lo = s.y + (a.y + b.y);
    return norm(s.x, lo);
}
// a * b exactly as hi + lo by Dekker's splitting (the device's fma() need
// not be fused, so it cannot recover the product's rounding error).
vec2 two_prod(float a, float b) {
    precise float ca = 4097.0 * a;
    precise float a_hi = ca - (ca - a);
    precise float a_lo = a - a_hi;
    precise float cb = 4097.0 * b;
    precise float b_hi = cb - (cb - b);
    precise float b_lo = b - b_hi;
    precise float p = a * b;
    precise float e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo;
    return vec2(p, e);
}
vec2 ff_mul(float q, vec2 b) {
    vec2 t = two_prod(q, b.x);
    precise float lo = t.y + q * b.y;
    return norm(t.x, lo);
}
// a / b: a first quotient, then one correction from the exact remainder.
vec2 divide(vec2 a, vec2 b) {
    float q1 = a.x / b.x;
    if (isinf(q1) || isnan(q1)) return vec2(q1, 0.0);
    vec2 r = ff_add(a, -ff_mul(q1, b));
    return norm(q1, r.x / b.x);
}
// sqrt(a): one Newton step on the float root, with the remainder as a pair.
vec2 root(vec2 a) {
    float y = sqrt(a.x);
    if (y == 0.0 || isinf(y) || isnan(y)) return vec2(y, 0.0);
    vec2 r = ff_add(a, -ff_mul(y, vec2(y, 0.0)));
    return norm(y, r.x / (2.0 * y));
}

ACC zero_acc() { return vec2(0.0); }
ACC from_bits(uvec2 b) { return uintBitsToFloat(b); }
bool is_zero(ACC a) { return a.x == 0.0; }
ACC nan_acc() { return vec2(uintBitsToFloat(0x7fc00000u), 0.0); }
ACC inf_acc() { return vec2(uintBitsToFloat(0x7f800000u), 0.0); }

#endif

ACC merge(ACC a, ACC b) {
#if defined(KILN_DTYPE_float64)
    return a + b;
#else
    return ff_add(a, b);
#endif
}

shared ACC sh[gl_WorkGroupSize.x];

void main() {
    const uint lid = gl_LocalInvocationID.x;
    ACC s = zero_acc();
    for (uint i = lid; i < p.parts; i += gl_WorkGroupSize.x) s = merge(s, partial[i]);
    sh[lid] = s;
    for (uint cnt = gl_WorkGroupSize.x; cnt > 1;) {
        uint half_cnt = (cnt + 1) / 2;
        barrier();
        if (lid + half_cnt < cnt) sh[lid] = merge(sh[lid], sh[lid + half_cnt]);
        cnt = half_cnt;
    }
    if (lid != 0) return;
    ACC r = sh[0];
    if (OP == 1) {
        r = divide(r, from_bits(p.n_bits));
    } else if (OP >= 2) {
        // n - ddof <= 0: NumPy's 0/0 (NaN) or x/0 (inf), without relying on
        // the device's division by zero.
        ACC d = from_bits(p.div_bits);
        if (is_zero(d)) r = is_zero(r) ? nan_acc() : (r == r ? inf_acc() : r);
        else r = divide(r, d);
        if (OP == 3) r = root(r);
    }
    result[0] = r;
}
