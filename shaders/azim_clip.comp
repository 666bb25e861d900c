#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
//! variants2: uint8 int8 uint16 int16 uint32 int32 float32 float64 x float32 float64
// Azimuthal integration with per-bin kappa-sigma clipping (cpu::sigma_clip):
// one workgroup per (bin, frame) makes passes over the bin's entries. Pass k
// sums the entries that pass the tests |s/n - mean_j| <= cut_j of the passes
// before it, and counts those the newest test drops; the tests are kept in
// shared memory, so nothing per entry is stored between passes. Terms and
// outputs as azim_integrate (fused mode).
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint HAS_DARK = 0;
layout(constant_id = 4) const uint HAS_NORM = 0;
layout(constant_id = 5) const uint ERROR_MODEL = 1;  // 1 poisson, 2 given variance
layout(constant_id = 6) const uint UNIT_WEIGHTS = 0;
layout(constant_id = 7) const uint HAS_DUMMY = 0;

layout(push_constant) uniform P {
    uint pixels, bins, max_iter, pad0;
    uvec2 dummy_lo, dummy_hi;
    uvec2 kappa64;  // kappa as double bits (float64 accumulation)
    float kappa32;  // kappa as float (compensated accumulation)
    float empty;
} p;

#include "raw_value.glsl"

#include "compensated_sum.glsl"
#if defined(KILN_DTYPE2_float64)
U kappa() { return packDouble2x32(p.kappa64); }
#else
U kappa() { return p.kappa32; }
#endif

#include "azim_terms.glsl"

const uint MAX_SUBGROUPS = 64;
const uint MAX_ITER = 64;
const uint N = 6;  // signal, variance, norm, norm^2, count, dropped
shared Acc s_part[N][MAX_SUBGROUPS];
shared U s_tot[N];
shared U s_mean[MAX_ITER], s_cut[MAX_ITER];

// Sums the six values over the workgroup into s_tot (every invocation reads
// them after), and sets test `next` from the totals.
void reduce(inout Acc a[N], uint next) {
    for (uint o = gl_SubgroupSize / 2u; o > 0u; o >>= 1u)
        [[unroll]] for (uint k = 0u; k < N; ++k) acc_merge(a[k], subgroupShuffleXor(a[k], o));
    if (gl_SubgroupInvocationID == 0u)
        [[unroll]] for (uint k = 0u; k < N; ++k) s_part[k][gl_SubgroupID] = a[k];
    memoryBarrierShared();
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        for (uint g = 1u; g < gl_NumSubgroups; ++g)
            [[unroll]] for (uint k = 0u; k < N; ++k) acc_merge(a[k], s_part[k][g]);
        [[unroll]] for (uint k = 0u; k < N; ++k) s_tot[k] = acc_value(a[k]);
        if (next < MAX_ITER && s_tot[2] != U(0)) {
            s_mean[next] = s_tot[0] / s_tot[2];
            s_cut[next] = kappa() * sqrt(s_tot[1] / s_tot[3]);
        }
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
        uint tests = 0u;
        for (;;) {
            Acc a[N];
            [[unroll]] for (uint k = 0u; k < N; ++k) a[k] = acc_zero();
            for (uint e = start + lid; e < end; e += wg) {
                U s, v, n;
                if (!terms(base, cols[e], s, v, n)) continue;
                const U x = s / n;
                // Dropped by an earlier test: gone; by the newest one: counted.
                bool kept = true;
                for (uint j = 0u; j + 1u < tests && kept; ++j) kept = !(abs(x - s_mean[j]) > s_cut[j]);
                if (!kept) continue;
                if (tests > 0u && abs(x - s_mean[tests - 1u]) > s_cut[tests - 1u]) {
                    acc_add(a[5], U(1));
                    continue;
                }
                const U c = U(UNIT_WEIGHTS != 0u ? 1.0 : weights[e]);
                acc_add(a[0], c * s);
                acc_add(a[1], c * c * v);
                acc_add(a[2], c * n);
                acc_add(a[3], c * c * n * n);
                acc_add(a[4], c);
            }
            reduce(a, tests);
            const bool none_dropped = tests > 0u && s_tot[5] == U(0);
            if (none_dropped || tests == p.max_iter || s_tot[2] == U(0)) break;
            ++tests;
        }
        if (lid == 0u) {
            const U ss = s_tot[0], sv = s_tot[1], sn = s_tot[2], snn = s_tot[3], cnt = s_tot[4];
            const uint o = frame * p.bins + bin;
            write_results(o, ss, sv, sn, snn, cnt);
        }
        barrier();  // s_tot is read above before the next bin's passes write it
    }
}
