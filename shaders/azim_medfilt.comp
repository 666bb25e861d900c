#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
//! variants2: uint8 int8 uint16 int16 uint32 int32 float32 float64 x float32 float64
// Quantile filter per bin (cpu::medfilt, kiln/reference/medfilt.hpp): one
// workgroup per (bin, frame). Each valid entry has a key (its float32 value
// signal / norm as an ordered uint, then its position in the row: a total
// order) and a fixed-point weight w (an integer, so sums are exact and do not
// depend on their order). With P(t) the sum of the weights of the keys below
// t and W the bin's total, an entry of key k is kept when (alpha < k < beta)
// or (delta <= k <= gamma), where
//   alpha = max t with P(t) 10^9 <  Q_lo,  beta  = max t with P(t) 10^9 <= Q_hi,
//   gamma = max t with P(t) 10^9 <= Q_lo,  delta = max t with P(t) 10^9 <  Q_hi,
// Q = q W 10^9 (q to 9 decimals): the same set as sorting and testing each entry's
// interval [P(k), P(k + 1)] against [q_lo W, q_hi W]. The four thresholds are
// found together by bisection, one bit of t per pass over the bin's entries
// (32 bits of value, then idx_bits of position); the first entries' keys and
// weights stay in shared memory between passes, later ones are recomputed.
// A last pass sums the kept entries as azim_clip does. Terms and outputs as
// azim_integrate (fused mode).
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint HAS_DARK = 0;
layout(constant_id = 4) const uint HAS_NORM = 0;
layout(constant_id = 5) const uint ERROR_MODEL = 1;  // 0 none, 1 poisson, 2 given variance
layout(constant_id = 6) const uint UNIT_WEIGHTS = 0;
layout(constant_id = 7) const uint HAS_DUMMY = 0;
layout(constant_id = 8) const uint DARK_VARIANCE = 1;  // poisson: max(raw, 1) + dark, else max(raw, 1)

layout(push_constant) uniform P {
    uint pixels, bins, idx_bits;
    int scale;  // K: weights are floor(c n 2^K)
    uvec2 dummy_lo, dummy_hi;
    uint q_lo, q_hi;  // q 10^9, an integer
    float empty;
} p;

#include "raw_value.glsl"
#include "compensated_sum.glsl"
#include "azim_terms.glsl"

const uint MAX_SUBGROUPS = 64;
const uint CACHE = 1024;  // entries per bin whose key and weight stay in shared memory
const uint NORMAL = 0u, NONE = 1u, ALL = 2u;  // a threshold t, t = -1, t = the top of the key space

shared uint s_key[CACHE], s_w[CACHE];
shared uvec2 s_part64[4][MAX_SUBGROUPS];
shared uvec2 s_tot64[4];
shared Acc s_part[5][MAX_SUBGROUPS];
shared U s_tot[5];

uvec2 add64(uvec2 a, uvec2 b) {
    uint carry;
    const uint lo = uaddCarry(a.x, b.x, carry);
    return uvec2(lo, a.y + b.y + carry);
}

// A positive finite float as m 2^e, m an integer below 2^24.
void decompose(float f, out uint m, out int e) {
    const uint b = floatBitsToUint(f);
    const uint biased = (b >> 23) & 0xffu;
    m = b & 0x7fffffu;
    if (biased != 0u) {
        m |= 0x800000u;
        e = int(biased) - 150;
    } else {
        e = -149;
    }
}

// floor(c n 2^K) from the mantissas, as cpu::medfilt_fixed_weight.
uint fixed_weight(float c, float n) {
    if (!(c > 0.0) || !(n > 0.0) || isinf(c) || isinf(n)) return 0u;
    uint mc, mn, hi, lo;
    int ec, en;
    decompose(c, mc, ec);
    decompose(n, mn, en);
    umulExtended(mc, mn, hi, lo);
    const int s = ec + en + p.scale;
    if (s >= 0) return s >= 32 ? 0xffffffffu : lo << uint(s);
    const uint r = uint(-s);
    if (r >= 64u) return 0u;
    if (r >= 32u) return hi >> (r - 32u);
    return (lo >> r) | (hi << (32u - r));
}

uint order_key(float x) {
    uint u = floatBitsToUint(x);
    if (u == 0x80000000u) u = 0u;  // -0 ties with +0
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

// Key and weight of entry e of the frame at base; weight 0: no part.
void entry(uint base, uint e, out uint key, out uint w) {
    U s, v, n;
    key = 0u;
    w = 0u;
    if (!terms(base, cols[e], s, v, n)) return;
    const float n32 = float(n);
    w = fixed_weight(UNIT_WEIGHTS != 0u ? 1.0 : weights[e], n32);
    if (w != 0u) key = order_key(float(s / U(n32)));
}

// f sum as 96 bits (x lowest), sum below 2^64.
uvec3 times(uint f, uvec2 sum) {
    uint h0, l0, h1, l1, carry;
    umulExtended(f, sum.x, h0, l0);
    umulExtended(f, sum.y, h1, l1);
    return uvec3(l0, uaddCarry(h0, l1, carry), h1 + carry);
}

// Sign of (P 10^9) - Q.
int compare(uvec2 P, uvec3 Q) {
    const uvec3 a = times(1000000000u, P);
    if (a.z != Q.z) return a.z < Q.z ? -1 : 1;
    if (a.y != Q.y) return a.y < Q.y ? -1 : 1;
    if (a.x != Q.x) return a.x < Q.x ? -1 : 1;
    return 0;
}

// Whether threshold j holds at sum P: j = 0 alpha, 1 beta, 2 gamma, 3 delta.
bool holds(uint j, uvec2 P, uvec3 lo, uvec3 hi) {
    const int c = compare(P, (j == 0u || j == 2u) ? lo : hi);
    return (j == 0u || j == 3u) ? c < 0 : c <= 0;
}

// Key (k, i) against threshold (t, ti): -1, 0, 1.
int order(uint k, uint i, uvec2 t) {
    if (k != t.x) return k < t.x ? -1 : 1;
    if (i != t.y) return i < t.y ? -1 : 1;
    return 0;
}

// Sums four 64-bit values over the workgroup into s_tot64.
void reduce64(uvec2 a[4]) {
    for (uint o = gl_SubgroupSize / 2u; o > 0u; o >>= 1u)
        [[unroll]] for (uint k = 0u; k < 4u; ++k) a[k] = add64(a[k], subgroupShuffleXor(a[k], o));
    if (gl_SubgroupInvocationID == 0u)
        [[unroll]] for (uint k = 0u; k < 4u; ++k) s_part64[k][gl_SubgroupID] = a[k];
    memoryBarrierShared();
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        for (uint g = 1u; g < gl_NumSubgroups; ++g)
            [[unroll]] for (uint k = 0u; k < 4u; ++k) a[k] = add64(a[k], s_part64[k][g]);
        [[unroll]] for (uint k = 0u; k < 4u; ++k) s_tot64[k] = a[k];
    }
    memoryBarrierShared();
    barrier();
}

// Sums the five kept sums over the workgroup into s_tot.
void reduce(inout Acc a[5]) {
    for (uint o = gl_SubgroupSize / 2u; o > 0u; o >>= 1u)
        [[unroll]] for (uint k = 0u; k < 5u; ++k) acc_merge(a[k], subgroupShuffleXor(a[k], o));
    if (gl_SubgroupInvocationID == 0u)
        [[unroll]] for (uint k = 0u; k < 5u; ++k) s_part[k][gl_SubgroupID] = a[k];
    memoryBarrierShared();
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        for (uint g = 1u; g < gl_NumSubgroups; ++g)
            [[unroll]] for (uint k = 0u; k < 5u; ++k) acc_merge(a[k], s_part[k][g]);
        [[unroll]] for (uint k = 0u; k < 5u; ++k) s_tot[k] = acc_value(a[k]);
    }
    memoryBarrierShared();
    barrier();
}

void main() {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    const uint frame = gl_WorkGroupID.y;
    const uint base = frame * p.pixels;
    for (uint bin = gl_WorkGroupID.x; bin < p.bins; bin += gl_NumWorkGroups.x) {
        const uint start = indptr[bin], end = indptr[bin + 1u];
        const uint cached = min(end - start, CACHE);
        uvec2 a[4];
        [[unroll]] for (uint k = 0u; k < 4u; ++k) a[k] = uvec2(0u);
        for (uint i = lid; i < end - start; i += wg) {
            uint key, w;
            entry(base, start + i, key, w);
            if (i < cached) {
                s_key[i] = key;
                s_w[i] = w;
            }
            a[0] = add64(a[0], uvec2(w, 0u));
        }
        reduce64(a);  // its barriers also publish the cache
        const uvec2 total = s_tot64[0];
        const uvec3 qlo = times(p.q_lo, total), qhi = times(p.q_hi, total);

        // The thresholds: P(0) = 0 and P(top) = total decide the ends.
        uvec2 t[4];
        uint state[4];
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            t[j] = uvec2(0u);
            state[j] = !holds(j, uvec2(0u), qlo, qhi) ? NONE : holds(j, total, qlo, qhi) ? ALL : NORMAL;
        }
        const bool empty_bin = total == uvec2(0u);
        for (int bit = int(32u + p.idx_bits) - 1; bit >= 0 && !empty_bin; --bit) {
            if (state[0] != NORMAL && state[1] != NORMAL && state[2] != NORMAL && state[3] != NORMAL) break;
            uvec2 cand[4];
            [[unroll]] for (uint j = 0u; j < 4u; ++j) {
                cand[j] = t[j];
                if (bit >= int(p.idx_bits)) cand[j].x |= 1u << uint(bit - int(p.idx_bits));
                else cand[j].y |= 1u << uint(bit);
            }
            [[unroll]] for (uint k = 0u; k < 4u; ++k) a[k] = uvec2(0u);
            for (uint i = lid; i < end - start; i += wg) {
                uint key, w;
                if (i < cached) {
                    key = s_key[i];
                    w = s_w[i];
                } else {
                    entry(base, start + i, key, w);
                }
                if (w == 0u) continue;
                [[unroll]] for (uint j = 0u; j < 4u; ++j)
                    if (state[j] == NORMAL && order(key, i, cand[j]) < 0) a[j] = add64(a[j], uvec2(w, 0u));
            }
            reduce64(a);
            [[unroll]] for (uint j = 0u; j < 4u; ++j)
                if (state[j] == NORMAL && holds(j, s_tot64[j], qlo, qhi)) t[j] = cand[j];
        }

        Acc sums[5];
        [[unroll]] for (uint k = 0u; k < 5u; ++k) sums[k] = acc_zero();
        for (uint i = lid; i < end - start && !empty_bin; i += wg) {
            const uint e = start + i;
            U s, v, n;
            if (!terms(base, cols[e], s, v, n)) continue;
            const float n32 = float(n);
            const float c32 = UNIT_WEIGHTS != 0u ? 1.0 : weights[e];
            if (fixed_weight(c32, n32) == 0u) continue;
            const uint key = order_key(float(s / U(n32)));
            const bool above_alpha = state[0] == NONE || (state[0] == NORMAL && order(key, i, t[0]) > 0);
            const bool below_beta = state[1] == ALL || (state[1] == NORMAL && order(key, i, t[1]) < 0);
            const bool to_gamma = state[2] == ALL || (state[2] == NORMAL && order(key, i, t[2]) <= 0);
            const bool from_delta = state[3] == NONE || (state[3] == NORMAL && order(key, i, t[3]) >= 0);
            if (!((above_alpha && below_beta) || (to_gamma && from_delta))) continue;
            const U c = U(c32);
            acc_add(sums[0], c * s);
            acc_add(sums[1], c * c * v);
            acc_add(sums[2], c * n);
            acc_add(sums[3], c * c * n * n);
            acc_add(sums[4], U(1));
        }
        reduce(sums);
        if (lid == 0u) write_results(frame * p.bins + bin, s_tot[0], s_tot[1], s_tot[2], s_tot[3], s_tot[4]);
        barrier();  // s_tot and the cache are read above before the next bin writes them
    }
}
