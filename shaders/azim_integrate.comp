#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
//! variants2: uint8 int8 uint16 int16 uint32 int32 float32 float64 x float32 float64
// CSR azimuthal integration: one workgroup per (bin, frame) reduces the
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
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint MODE = 0;
layout(constant_id = 4) const uint HAS_DARK = 0;
layout(constant_id = 5) const uint HAS_NORM = 0;
layout(constant_id = 6) const uint ERROR_MODEL = 1;  // 0 none, 1 poisson, 2 given variance
layout(constant_id = 7) const uint UNIT_WEIGHTS = 0; // every weight is 1 (no pixel splitting)
layout(constant_id = 8) const uint HAS_DUMMY = 0;
layout(constant_id = 9) const uint SEGMENTS = 0;     // rows are segments of bins

layout(std430, binding = 0) readonly buffer Indptr { uint indptr[]; };
layout(std430, binding = 1) readonly buffer Cols { uint cols[]; };
layout(std430, binding = 2) readonly buffer Weights { float weights[]; };
layout(std430, binding = 3) readonly buffer Raw { T raw[]; };
layout(std430, binding = 3) readonly buffer Pre { vec4 pre[]; };
layout(std430, binding = 4) readonly buffer Dark { float dark[]; };
layout(std430, binding = 5) readonly buffer Norm { float norm[]; };
layout(std430, binding = 6) readonly buffer Var { float given_var[]; };
layout(std430, binding = 7) writeonly buffer O0 { float o_intensity[]; };
layout(std430, binding = 8) writeonly buffer O1 { float o_sem[]; };
layout(std430, binding = 9) writeonly buffer O2 { float o_std[]; };
layout(std430, binding = 10) writeonly buffer O3 { float o_signal[]; };
layout(std430, binding = 11) writeonly buffer O4 { float o_variance[]; };
layout(std430, binding = 12) writeonly buffer O5 { float o_norm[]; };
layout(std430, binding = 13) writeonly buffer O6 { float o_norm_sq[]; };
layout(std430, binding = 14) writeonly buffer O7 { float o_count[]; };
layout(push_constant) uniform P {
    uint pixels, rows, bins, pad1;  // rows: bins, or segments with SEGMENTS
    uvec2 dummy_lo, dummy_hi;  // raw values in [lo, hi] are dummies (bits of W)
    float empty;
} p;

// The raw value's comparison type: its own float type, int or uint.
#if defined(KILN_DTYPE_float64)
#define W double
#define W_OF(b) packDouble2x32(b)
#elif defined(T_FLOAT)
#define W float
#define W_OF(b) uintBitsToFloat((b).x)
#elif defined(T_INT)
#define W int
#define W_OF(b) int((b).x)
#else
#define W uint
#define W_OF(b) (b).x
#endif

// ---- accumulators: double, or (sum, compensation) pairs of float ----
#include "compensated_sum.glsl"

// SEGMENTS: partial sums (five per segment and frame), counters per (bin,
// frame) (zero between dispatches), each segment's bin, each bin's first segment.
layout(std430, binding = 15) coherent buffer PartRW { Acc part_rw[]; };
layout(std430, binding = 16) coherent buffer Counters { uint counters[]; };
layout(std430, binding = 17) readonly buffer SegBin { uint seg_bin[]; };
layout(std430, binding = 18) readonly buffer BinSeg { uint bin_seg[]; };

bool finite_u(U x) { return !isnan(x) && !isinf(x); }

// Pre-processed terms of pixel px of the frame starting at base (cpu/integrate.hpp).
bool terms(uint base, uint px, out U s, out U v, out U n) {
    if (MODE == 1u) {
        const vec4 q = pre[base + px];
        s = U(q.x);
        v = U(q.y);
        n = U(q.z);
        return q.w != 0.0;
    }
    const T r = raw[base + px];
    s = U(0);
    v = U(0);
    n = U(0);
    if (HAS_DUMMY != 0u) {
        const W w = W(r);
        if (w >= W_OF(p.dummy_lo) && w <= W_OF(p.dummy_hi)) return false;
    }
    const U rv = U(r);
    const U d = HAS_DARK != 0u ? U(dark[px]) : U(0);
    const U nv = HAS_NORM != 0u ? U(norm[px]) : U(1);
    U var = U(0);
    if (ERROR_MODEL == 1u) var = max(rv, U(1)) + d;
    if (ERROR_MODEL == 2u) var = U(given_var[px]);
    const U sig = rv - d;
#if !defined(T_FLOAT)
    // Integers without float corrections are always finite: no tests per entry.
    if (HAS_DARK == 0u && HAS_NORM == 0u && ERROR_MODEL != 2u) {
        s = sig;
        v = var;
        n = nv;
        return true;
    }
#endif
    if (!finite_u(sig) || !finite_u(nv) || !finite_u(var) || nv == U(0)) return false;
    s = sig;
    v = var;
    n = nv;
    return true;
}

const uint MAX_SUBGROUPS = 64;
shared Acc s_part[5][MAX_SUBGROUPS];

// Reduces the five sums over the workgroup; invocation 0 gets the totals.
void reduce(inout Acc a[5]) {
    for (uint o = gl_SubgroupSize / 2u; o > 0u; o >>= 1u)
        [[unroll]] for (uint k = 0u; k < 5u; ++k) acc_merge(a[k], subgroupShuffleXor(a[k], o));
    if (gl_SubgroupInvocationID == 0u)
        [[unroll]] for (uint k = 0u; k < 5u; ++k) s_part[k][gl_SubgroupID] = a[k];
    memoryBarrierShared();
    barrier();
    if (gl_LocalInvocationID.x == 0u)
        for (uint g = 1u; g < gl_NumSubgroups; ++g)
            [[unroll]] for (uint k = 0u; k < 5u; ++k) acc_merge(a[k], s_part[k][g]);
}

// Intensity, sem, std and the sums of output o from the five totals.
void finish(uint o, Acc a[5]) {
    const U ss = acc_value(a[0]), sv = acc_value(a[1]), sn = acc_value(a[2]);
    const U snn = acc_value(a[3]), cnt = acc_value(a[4]);
    o_signal[o] = float(ss);
    o_variance[o] = float(sv);
    o_norm[o] = float(sn);
    o_norm_sq[o] = float(snn);
    o_count[o] = float(cnt);
    if (sn != U(0)) {
        o_intensity[o] = float(ss / sn);
        o_sem[o] = float(sqrt(sv) / sn);
        o_std[o] = float(sqrt(sv / snn));
    } else {
        o_intensity[o] = p.empty;
        o_sem[o] = p.empty;
        o_std[o] = p.empty;
    }
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
        [[unroll]] for (uint k = 0u; k < 5u; ++k) acc_merge(t[k], part_rw[q + k]);
    }
    finish(o, t);
    counters[o] = 0u;  // ready for the next dispatch
}

const uint UNROLL = 4;

void main() {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    const uint frame = gl_WorkGroupID.y;
    const uint base = frame * p.pixels;
    // A row: a bin, or a segment of one.
    for (uint bin = gl_WorkGroupID.x; bin < p.rows; bin += gl_NumWorkGroups.x) {
        const uint start = indptr[bin], end = indptr[bin + 1u];
        Acc a[5];
        [[unroll]] for (uint k = 0u; k < 5u; ++k) a[k] = acc_zero();
        for (uint e0 = start + lid; e0 < end; e0 += wg * UNROLL) {
            uint px[UNROLL];
            float c[UNROLL];
            // Loads first, so the gathers of several entries are in flight together.
            [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
                const uint e = e0 + u * wg;
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
        reduce(a);
        if (lid == 0u) store(frame, bin, a);
        barrier();  // s_part is reused by the next row
    }
}
