#version 450
#extension GL_GOOGLE_include_directive : require
//! variants2: float32 float64 int8 uint8 int16 uint16 int32 uint32 x float64 float32
// Reductions along one axis: output (o, j), o < outer, j < inner, reduces
// the n elements o * so + j * sj + i * si, i < n. The workgroup is (LX, LY):
// LX outputs side by side (coalesced when sj = 1), LY threads sharing each
// output's n values (a (1, 256) workgroup reduces a contiguous row).
// op (a push constant, so one pipeline serves all): 0 sum, 1 mean, 2 var,
// 3 std (float64 out, or float32 with compensated accumulation: the second
// variant type), 4 min, 5 max (dtype out), 6 argmin, 7 argmax,
// 8 count_nonzero (int32 out).
#include "dtype.glsl"
#include "grid.glsl"


#include "widen.glsl"

#if defined(KILN_DTYPE2_float64)
#define OUT_ACC double
#else
#define OUT_ACC float
#endif
#include "reduce_acc.glsl"

const uint NONE = 0xffffffffu;

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) writeonly buffer OA { OUT_ACC out_acc[]; };
layout(std430, binding = 1) writeonly buffer OT { T out_t[]; };
layout(std430, binding = 1) writeonly buffer OI { int out_i[]; };
// n and the divisor of var as doubles, or (hi, lo) float pairs.
layout(push_constant) uniform Push {
    uint outer, n, inner;
    uint so, si, sj;  // element strides of o, i and j
    uint op, pad;
    uvec2 n_bits, div_bits;
} p;

#if defined(KILN_DTYPE2_float64)

ACC sub(ACC a, ACC b) { return a - b; }
ACC square(ACC d) { return d * d; }
void add(inout ACC s, ACC x) { s += x; }
OUT_ACC out_value(ACC a) { return a; }

#else

vec2 sub(vec2 a, vec2 b) { return merge(a, -b); }
vec2 square(vec2 d) {
    vec2 t = two_prod(d.x, d.x);
    precise float lo = t.y + 2.0 * d.x * d.y;
    return vec2(t.x, lo);
}
void add(inout vec2 s, vec2 x) {
    vec2 t = two_sum(s.x, x.x);
    precise float lo = s.y + (t.y + x.y);
    s = vec2(t.x, lo);
}
OUT_ACC out_value(ACC a) { return norm(a.x, a.y).x; }

#endif

// First minimum (op 4, 6) or maximum (op 5, 7); the first NaN beats all.
#define EXTREME_MIN (p.op == 4 || p.op == 6)
#include "extreme.glsl"

const uint LX = gl_WorkGroupSize.x;
const uint LY = gl_WorkGroupSize.y;
shared ACC sa[gl_WorkGroupSize.x * gl_WorkGroupSize.y];
shared W sv[gl_WorkGroupSize.x * gl_WorkGroupSize.y];
shared uint si[gl_WorkGroupSize.x * gl_WorkGroupSize.y];

// Tree over the LY threads of each column; the result lands in row 0.
void reduce_column(uint lx, uint ly) {
    for (uint cnt = LY; cnt > 1;) {
        uint half_cnt = (cnt + 1) / 2;
        barrier();
        if (ly + half_cnt < cnt) {
            uint me = ly * LX + lx, other = (ly + half_cnt) * LX + lx;
            if (p.op <= 3) {
                sa[me] = merge(sa[me], sa[other]);
            } else if (p.op == 8) {
                si[me] += si[other];
            } else if (before(sv[other], si[other], sv[me], si[me])) {
                sv[me] = sv[other];
                si[me] = si[other];
            }
        }
        cnt = half_cnt;
    }
    barrier();
}

ACC column_sum(uint base, bool valid, bool deviations, ACC mean) {
    ACC s = zero_acc();
    if (valid)
        for (uint i = gl_LocalInvocationID.y; i < p.n; i += LY) {
            ACC x = to_acc(W(a[base + i * p.si]));
            add(s, deviations ? square(sub(x, mean)) : x);
        }
    return s;
}

void main() {
    const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
    const uint me = ly * LX + lx;
    // Both loops are uniform across the workgroup, so every thread meets every barrier.
    for (uint o = gl_WorkGroupID.y; o < p.outer; o += gl_NumWorkGroups.y) {
        for (uint j0 = gl_WorkGroupID.x * LX; j0 < p.inner; j0 += gl_NumWorkGroups.x * LX) {
            const uint j = j0 + lx;
            const bool valid = j < p.inner;
            const uint base = o * p.so + j * p.sj;
            const uint out_index = o * p.inner + j;
            if (p.op <= 3) {
                sa[me] = column_sum(base, valid, false, zero_acc());
                reduce_column(lx, ly);
                ACC r = sa[lx];
                if (p.op >= 2) {
                    ACC mean = divide(r, from_bits(p.n_bits));
                    barrier();
                    sa[me] = column_sum(base, valid, true, mean);
                    reduce_column(lx, ly);
                    r = sa[lx];
                    ACC d = from_bits(p.div_bits);
                    if (is_zero(d)) r = is_zero(r) ? nan_acc() : (r == r ? inf_acc() : r);
                    else r = divide(r, d);
                    if (p.op == 3) r = root(r);
                } else if (p.op == 1) {
                    r = divide(r, from_bits(p.n_bits));
                }
                if (ly == 0 && valid) out_acc[out_index] = out_value(r);
            } else if (p.op == 8) {
                uint count = 0;
                if (valid)
                    for (uint i = ly; i < p.n; i += LY) count += W(a[base + i * p.si]) != W(0) ? 1u : 0u;
                si[me] = count;
                reduce_column(lx, ly);
                if (ly == 0 && valid) out_i[out_index] = int(si[lx]);
            } else {
                W best = W(0);
                uint at = NONE;
                if (valid)
                    for (uint i = ly; i < p.n; i += LY) {
                        W v = W(a[base + i * p.si]);
                        if (before(v, i, best, at)) best = v, at = i;
                    }
                sv[me] = best;
                si[me] = at;
                reduce_column(lx, ly);
                if (ly == 0 && valid) {
                    if (p.op <= 5) out_t[out_index] = T(sv[lx]);
                    else out_i[out_index] = int(si[lx]);
                }
            }
            // The next column block reuses shared memory.
            barrier();
        }
    }
}
