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
#define ACC_F64
#endif
#include "reduce_acc.glsl"

layout(std430, binding = 0) readonly buffer P { ACC partial[]; };
layout(std430, binding = 1) writeonly buffer R { ACC result[]; };
// n and the divisor of var: doubles, or (hi, lo) float pairs.
layout(push_constant) uniform Push { uint parts; uint pad; uvec2 n_bits; uvec2 div_bits; } p;

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
