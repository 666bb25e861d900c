#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
//! variants2: uint8 int8 uint16 int16 uint32 int32 float32 float64 x float32 float64
// Azimuthal integration with per-bin sigma clipping (cpu::sigma_clip,
// pyFAI 0.21's sigma_clip_ng): one workgroup per (bin, frame) makes passes
// over the bin's entries. Pass k sums the entries that pass the tests
// |s/n - mean_j| <= cut_j of the passes before it, and counts those the
// newest test drops; the tests are kept in shared memory, so nothing per
// entry is stored between passes. The azimuthal error model takes a second
// pass over the kept entries for their spread about their mean. A test's cut
// is t * sqrt(variance / normalization), t = kappa or, with CHAUVENET,
// max(kappa, sqrt(2 ln(max(count, 3) / sqrt(2 pi)))) (evaluated in float:
// GLSL has no double log). Terms and outputs as azim_integrate (fused mode).
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint HAS_DARK = 0;
layout(constant_id = 4) const uint HAS_NORM = 0;
layout(constant_id = 5) const uint ERROR_MODEL = 1;  // 1 poisson, 2 given variance, 3 azimuthal
layout(constant_id = 6) const uint UNIT_WEIGHTS = 0;
layout(constant_id = 7) const uint HAS_DUMMY = 0;
layout(constant_id = 8) const uint DARK_VARIANCE = 1; // poisson: max(raw, 1) + dark, else max(raw, 1)
layout(constant_id = 9) const uint CHAUVENET = 1;     // the threshold is at least Chauvenet's criterion

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

// Sums the six values over the workgroup into `tot` (every invocation's).
void reduce(inout Acc a[N], out U tot[N]) {
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
    }
    memoryBarrierShared();
    barrier();
    [[unroll]] for (uint k = 0u; k < N; ++k) tot[k] = s_tot[k];
}

// Whether normalized value x passes the first `tests` tests.
bool kept(U x, uint tests) {
    for (uint j = 0u; j < tests; ++j)
        if (abs(x - s_mean[j]) > s_cut[j]) return false;
    return true;
}

// The cut of a test from the totals of the entries it applies to.
U cut_of(U tot[N]) {
    U t = kappa();
    if (CHAUVENET != 0u) t = max(t, U(sqrt(2.0 * log(max(float(tot[4]), 3.0) / sqrt(2.0 * 3.14159265358979)))));
    return t * sqrt(tot[1] / tot[2]);
}

void main() {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    const uint frame = gl_WorkGroupID.y;
    const uint base = frame * p.pixels;
    for (uint bin = gl_WorkGroupID.x; bin < p.bins; bin += gl_NumWorkGroups.x) {
        const uint start = indptr[bin], end = indptr[bin + 1u];
        uint tests = 0u;
        U tot[N];
        for (;;) {
            Acc a[N];
            [[unroll]] for (uint k = 0u; k < N; ++k) a[k] = acc_zero();
            for (uint e = start + lid; e < end; e += wg) {
                U s, v, n;
                if (!terms(base, cols[e], s, v, n)) continue;
                const U x = s / n;
                // Dropped by an earlier test: gone; by the newest one: counted.
                if (tests > 0u && !kept(x, tests - 1u)) continue;
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
            reduce(a, tot);
            if (ERROR_MODEL == 3u && tot[2] != U(0)) {
                // The kept entries' spread about their mean.
                const U mean = tot[0] / tot[2];
                [[unroll]] for (uint k = 0u; k < N; ++k) a[k] = acc_zero();
                for (uint e = start + lid; e < end; e += wg) {
                    U s, v, n;
                    if (!terms(base, cols[e], s, v, n)) continue;
                    const U x = s / n;
                    if (!kept(x, tests)) continue;
                    const U c = U(UNIT_WEIGHTS != 0u ? 1.0 : weights[e]);
                    acc_add(a[1], c * n * (x - mean) * (x - mean));
                }
                U spread[N];
                reduce(a, spread);
                tot[1] = spread[1];
            }
            const bool none_dropped = tests > 0u && tot[5] == U(0);
            if (none_dropped || tests == p.max_iter || tot[2] == U(0)) break;
            if (lid == 0u) {
                s_mean[tests] = tot[0] / tot[2];
                s_cut[tests] = cut_of(tot);
            }
            memoryBarrierShared();
            barrier();
            ++tests;
        }
        if (lid == 0u) write_results(frame * p.bins + bin, tot[0], tot[1], tot[2], tot[3], tot[4]);
        barrier();  // s_mean and s_cut are read above before the next bin's passes write them
    }
}
