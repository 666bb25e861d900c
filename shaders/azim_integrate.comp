#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
//! variants2: uint8 int8 uint16 int16 uint32 int32 float32 float64 x float32 float64
// CSR azimuthal integration: one workgroup per (bin, frame) (with
// SUBGROUP_ROWS, for short rows such as a cake's, one subgroup) reduces the
// bin's entries (pixel, weight c) to sum c*signal, c^2*variance, c*norm,
// c^2*norm^2 and c*valid, then writes intensity, sem, std and the sums
// (cpu::integrate's definitions). T is the frame's dtype; U the accumulator:
// double, or float with Neumaier compensation. MODE 0 reads the raw frame and
// pre-processes on the fly (fused); MODE 1 reads azim_preprocess's float4.
// With SEGMENTS, long rows are cut into segments (indptr then holds segment
// starts, `rows` their count, every bin at least one), so that no workgroup
// takes a whole long row: a segment's five partial sums go to memory, and
// whichever segment of a bin finishes last (an atomic counter per bin and
// frame, reset by it) merges them in segment order and writes the results.
// The azimuthal error model (ERROR_MODEL 3) takes a second pass over the
// row: sum c n (s/n - mean)^2 about the row's (segment's) mean; segments'
// spreads merge with the shift of their means (Chan et al.'s update).
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint MODE = 0;
layout(constant_id = 4) const uint HAS_DARK = 0;
layout(constant_id = 5) const uint HAS_NORM = 0;
layout(constant_id = 6) const uint ERROR_MODEL = 1;  // 0 none, 1 poisson, 2 given variance, 3 azimuthal
layout(constant_id = 7) const uint UNIT_WEIGHTS = 0; // every weight is 1 (no pixel splitting)
layout(constant_id = 8) const uint HAS_DUMMY = 0;
layout(constant_id = 9) const uint SEGMENTS = 0;     // rows are segments of bins
layout(constant_id = 10) const uint DARK_VARIANCE = 1; // poisson: max(raw, 1) + dark, else max(raw, 1)
layout(constant_id = 11) const uint SUBGROUP_ROWS = 0; // lanes of a subgroup reduce rows of their own (short rows)
layout(constant_id = 12) const uint ROW_LANES = 32;    // with SUBGROUP_ROWS: lanes a row (a power of 2)

layout(push_constant) uniform P {
    uint pixels, rows, bins, pad1;  // rows: bins, or segments with SEGMENTS
    uvec2 dummy_lo, dummy_hi;  // raw values in [lo, hi] are dummies (bits of W)
    float empty;
} p;

#include "raw_value.glsl"

// ---- accumulators: double, or (sum, compensation) pairs of float ----
#include "compensated_sum.glsl"

// SEGMENTS: partial sums (five per segment and frame), counters per (bin,
// frame) (zero between dispatches), each segment's bin, each bin's first segment.
layout(std430, binding = 15) coherent buffer PartRW { Acc part_rw[]; };
layout(std430, binding = 16) coherent buffer Counters { uint counters[]; };
layout(std430, binding = 17) readonly buffer SegBin { uint seg_bin[]; };
layout(std430, binding = 18) readonly buffer BinSeg { uint bin_seg[]; };

// terms() reads azim_preprocess's float4 in MODE 1, and trusts integers
// without float corrections to be finite.
#define AZIM_TERMS_PRE
#define AZIM_TERMS_INT_SHORTCUT
#include "azim_terms.glsl"

const uint MAX_SUBGROUPS = 64;
shared Acc s_part[5][MAX_SUBGROUPS];

// Reduces the five sums over clusters of `lanes` lanes of the subgroup (a
// power of 2; a butterfly: every lane of a cluster gets its totals).
void reduce_lanes(inout Acc a[5], uint lanes) {
    for (uint o = lanes / 2u; o > 0u; o >>= 1u)
        [[unroll]] for (uint k = 0u; k < 5u; ++k) acc_merge(a[k], subgroupShuffleXor(a[k], o));
}

// Reduces the five sums over the workgroup; invocation 0 gets the totals.
void reduce(inout Acc a[5]) {
    reduce_lanes(a, gl_SubgroupSize);
    if (gl_SubgroupInvocationID == 0u)
        [[unroll]] for (uint k = 0u; k < 5u; ++k) s_part[k][gl_SubgroupID] = a[k];
    memoryBarrierShared();
    barrier();
    if (gl_LocalInvocationID.x == 0u)
        for (uint g = 1u; g < gl_NumSubgroups; ++g)
            [[unroll]] for (uint k = 0u; k < 5u; ++k) acc_merge(a[k], s_part[k][g]);
}

shared U s_mean;

// The azimuthal model's variance of row [start, end) (entries first, first +
// stride, ...: this invocation's share): sum c n (s/n - mean)^2 with the
// row's mean, from the totals `a` of invocation 0 (of every lane with
// SUBGROUP_ROWS, where stride is the row's lanes), into its a[1].
void azimuthal_spread(uint base, uint first, uint end, uint stride, inout Acc a[5]) {
    U mean;
    if (SUBGROUP_ROWS != 0u) {
        mean = acc_value(a[2]) != U(0) ? acc_value(a[0]) / acc_value(a[2]) : U(0);
    } else {
        if (gl_LocalInvocationID.x == 0u) s_mean = acc_value(a[2]) != U(0) ? acc_value(a[0]) / acc_value(a[2]) : U(0);
        memoryBarrierShared();
        barrier();  // s_mean written, and s_part read by invocation 0
        mean = s_mean;
    }
    Acc b[5];
    [[unroll]] for (uint k = 0u; k < 5u; ++k) b[k] = acc_zero();
    for (uint e = first; e < end; e += stride) {
        U s, v, n;
        if (!terms(base, cols[e], s, v, n)) continue;
        const U c = U(UNIT_WEIGHTS != 0u ? 1.0 : weights[e]);
        const U d = s / n - mean;
        acc_add(b[1], c * n * d * d);
    }
    if (SUBGROUP_ROWS != 0u) {
        reduce_lanes(b, stride);
        a[1] = b[1];
    } else {
        reduce(b);
        if (gl_LocalInvocationID.x == 0u) a[1] = b[1];
    }
}

// Adds to merged totals t those of a later part b: for the azimuthal model
// the spreads about the parts' own means add, plus the shift of the means
// weighted by their normalizations, na nb / (na + nb) (mean_a - mean_b)^2.
void merge_part(inout Acc t[5], Acc b[5]) {
    if (ERROR_MODEL == 3u) {
        const U na = acc_value(t[2]), nb = acc_value(b[2]);
        if (na != U(0) && nb != U(0)) {
            const U d = acc_value(t[0]) / na - acc_value(b[0]) / nb;
            acc_add(t[1], na * nb / (na + nb) * d * d);
        }
    }
    [[unroll]] for (uint k = 0u; k < 5u; ++k) acc_merge(t[k], b[k]);
}

// Intensity, sem, std and the sums of output o from the five totals.
void finish(uint o, Acc a[5]) {
    const U ss = acc_value(a[0]), sv = acc_value(a[1]), sn = acc_value(a[2]);
    const U snn = acc_value(a[3]), cnt = acc_value(a[4]);
    write_results(o, ss, sv, sn, snn, cnt);
}

// The totals of row `row` of this frame: a bin's results, or a segment's
// partials, merged by the bin's last segment.
void store(uint frame, uint row, Acc a[5]) {
    if (SEGMENTS == 0u) {
        finish(frame * p.bins + row, a);
        return;
    }
    const uint at = (frame * p.rows + row) * 5u;
    const uint b = seg_bin[row], s0 = bin_seg[b], ns = bin_seg[b + 1u] - s0;
    const uint o = frame * p.bins + b;
    if (ns == 1u) {
        finish(o, a);
        return;
    }
    [[unroll]] for (uint k = 0u; k < 5u; ++k) part_rw[at + k] = a[k];
    memoryBarrierBuffer();  // the partial before the count
    if (atomicAdd(counters[o], 1u) != ns - 1u) return;
    memoryBarrierBuffer();  // every other segment's partial after its count
    Acc t[5];
    [[unroll]] for (uint k = 0u; k < 5u; ++k) t[k] = acc_zero();
    for (uint s = s0; s < s0 + ns; ++s) {
        const uint q = (frame * p.rows + s) * 5u;
        Acc b[5];
        [[unroll]] for (uint k = 0u; k < 5u; ++k) b[k] = part_rw[q + k];
        merge_part(t, b);
    }
    finish(o, t);
    counters[o] = 0u;  // ready for the next dispatch
}

const uint UNROLL = 4;

// Adds this invocation's share of row [start, end) of the frame at base to
// the five sums: entries first, first + stride, ...
void accumulate(uint base, uint first, uint end, uint stride, inout Acc a[5]) {
    for (uint e0 = first; e0 < end; e0 += stride * UNROLL) {
        uint px[UNROLL];
        float c[UNROLL];
        // Loads first, so the gathers of several entries are in flight together.
        [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
            const uint e = e0 + u * stride;
            px[u] = e < end ? cols[e] : 0xFFFFFFFFu;
            c[u] = e < end ? (UNIT_WEIGHTS != 0u ? 1.0 : weights[e]) : 0.0;
        }
        [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
            if (px[u] == 0xFFFFFFFFu) continue;
            U s, v, n;
            if (!terms(base, px[u], s, v, n)) continue;
            const U cu = U(c[u]);
            acc_add(a[0], cu * s);
            acc_add(a[1], cu * cu * v);
            acc_add(a[2], cu * n);
            acc_add(a[3], cu * cu * n * n);
            acc_add(a[4], cu);
        }
    }
}

void main() {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    const uint frame = gl_WorkGroupID.y;
    const uint base = frame * p.pixels;
    if (SUBGROUP_ROWS != 0u) {
        // Short rows (a cake's bins): each row to a cluster of `lanes` lanes
        // of a subgroup, no barriers. The loop runs alike for the whole
        // subgroup (a cluster past the last row adds nothing), so its
        // shuffles are uniform.
        const uint lanes = min(ROW_LANES, gl_SubgroupSize);
        const uint lane = gl_SubgroupInvocationID % lanes, clusters = gl_SubgroupSize / lanes;
        const uint cluster = gl_SubgroupInvocationID / lanes;
        const uint row_groups = (p.rows + clusters - 1u) / clusters;
        for (uint g = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID; g < row_groups;
             g += gl_NumWorkGroups.x * gl_NumSubgroups) {
            const uint row = g * clusters + cluster;
            const bool live = row < p.rows;
            const uint start = live ? indptr[row] : 0u, end = live ? indptr[row + 1u] : 0u;
            Acc a[5];
            [[unroll]] for (uint k = 0u; k < 5u; ++k) a[k] = acc_zero();
            accumulate(base, start + lane, end, lanes, a);
            reduce_lanes(a, lanes);
            if (ERROR_MODEL == 3u) azimuthal_spread(base, start + lane, end, lanes, a);
            if (live && lane == 0u) store(frame, row, a);
        }
        return;
    }
    // A row: a bin, or a segment of one.
    for (uint bin = gl_WorkGroupID.x; bin < p.rows; bin += gl_NumWorkGroups.x) {
        const uint start = indptr[bin], end = indptr[bin + 1u];
        Acc a[5];
        [[unroll]] for (uint k = 0u; k < 5u; ++k) a[k] = acc_zero();
        accumulate(base, start + lid, end, wg, a);
        reduce(a);
        if (ERROR_MODEL == 3u) azimuthal_spread(base, start + lid, end, wg, a);
        if (lid == 0u) store(frame, bin, a);
        barrier();  // s_part is reused by the next row
    }
}
