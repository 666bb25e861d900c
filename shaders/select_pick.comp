#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
//! variants2: float32 float64 int8 uint8 int16 uint16 int32 uint32 x uint32 float64
// One workgroup after each select_hist pass: for every target, the digit
// whose bin holds the target's rank is appended to its prefix and the rank
// made relative to that bin; the histograms are then cleared for the next
// pass. After the last pass each prefix is the key of the wanted element.
//
// Pass 0 starts the targets: plain selection (second type uint32) takes the
// ranks from push constants; clipping (float64) takes the two middle ranks of
// the values kept, checks convergence and, after the last pass, computes the
// median, std and mean and the next interval (see kiln::kappa_sigma_clip).
// PASS 7 finishes clipping's prepass: the first shift and the finite count.
#include "dtype.glsl"
#include "grid.glsl"

#if defined(KILN_DTYPE_float64)
#define LAST_PASS 5
#else
#define LAST_PASS 2
#endif

#include "select_pass.glsl"

layout(std430, binding = 0) buffer H { uint hist[]; };
struct Target {
    uvec2 prefix;
    uint rank;
    uint pad;
};
layout(std430, binding = 1) buffer S { uint nan_count; uint total; uint pad0; uint pad1; Target target[]; } st;
#if defined(CLIP)
layout(std430, binding = 2) buffer C {
    double lo, hi, shift, median, std, mean;
    uint count, prev_total, done, iterations, finite, total, last, pad;
} cs;
layout(std430, binding = 3) readonly buffer PS { dvec2 partial[]; };
#endif
layout(push_constant) uniform Push {
    uint rank[8];      // plain selection: the ranks wanted (pass 0)
    uint slot;         // clipping: the pass of the loop, from 0
    uint max_iters;
    uint parts;        // clipping: partials written by select_hist
    uint pad;
    uvec2 kappa_bits;  // clipping: kappa as a double's bits
} p;

shared uint sg_sum[gl_WorkGroupSize.x];
shared uint found_digit, found_before;

// Exclusive prefix sum of v over the workgroup; total receives the sum of all.
#define SCAN_ELECT_SUMS sg_sum
#include "workgroup_scan.glsl"

#if defined(CLIP)
shared double sd1[gl_WorkGroupSize.x], sd2[gl_WorkGroupSize.x];

// Sums of the partials (x, y) over the workgroup, in thread 0.
dvec2 sum_partials() {
    dvec2 s = dvec2(0.0lf);
    for (uint i = gl_LocalInvocationID.x; i < p.parts; i += gl_WorkGroupSize.x) s += partial[i];
    s.x = subgroupAdd(s.x);
    s.y = subgroupAdd(s.y);
    if (subgroupElect()) {
        sd1[gl_SubgroupID] = s.x;
        sd2[gl_SubgroupID] = s.y;
    }
    barrier();
    if (gl_LocalInvocationID.x == 0)
        for (uint k = 1; k < gl_NumSubgroups; ++k) s += dvec2(sd1[k], sd2[k]);
    return s;
}

// The value whose key is k (the inverse of select_hist's key_of).
double value_of_key(uvec2 k) {
#if defined(KILN_DTYPE_float32)
    uint r = (k.x & 0x80000000u) != 0u ? k.x & 0x7fffffffu : ~k.x;
    return double(uintBitsToFloat(r));
#elif defined(KILN_DTYPE_float64)
    uvec2 r = (k.x & 0x80000000u) != 0u ? uvec2(k.y, k.x & 0x7fffffffu) : uvec2(~k.y, ~k.x);
    return packDouble2x32(r);
#elif defined(T_INT)
    return double(int(k.x ^ 0x80000000u));
#else
    return double(k.x);
#endif
}

double nan_value() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
#endif

void main() {
    const uint lid = gl_LocalInvocationID.x;
#if defined(CLIP)
    if (PASS == 7) {
        dvec2 s = sum_partials();
        if (lid == 0) {
            cs.lo = -packDouble2x32(uvec2(0u, 0x7ff00000u));
            cs.hi = packDouble2x32(uvec2(0u, 0x7ff00000u));
            cs.shift = s.y > 0.0lf ? s.x / s.y : 0.0lf;
            cs.median = cs.std = cs.mean = nan_value();
            cs.count = 0u;
            cs.prev_total = 0u;
            cs.done = 0u;
            cs.iterations = 0u;
            cs.finite = uint(s.y);
            cs.total = 0u;
            cs.last = 0u;
        }
        return;
    }
    if (cs.done != 0u) return;
#endif
    const uint per_thread = (BINS + gl_WorkGroupSize.x - 1) / gl_WorkGroupSize.x;
    const uint first_bin = lid * per_thread;

    uint ranks[TARGETS];
    uvec2 pre[TARGETS];
    uvec2 keys[TARGETS];  // the new prefixes (thread 0)
    uint total = 0;
    if (PASS == 0) {
        // Every target's pass-0 histogram is histogram 0 (no prefix yet).
        uint mine = 0;
        for (uint b = first_bin; b < min(first_bin + per_thread, BINS); ++b) mine += hist[b];
        exclusive_scan(mine, total);
#if defined(CLIP)
        if (p.slot > 0 && total == cs.prev_total) {
            // The previous pass removed nothing: its statistics are final.
            if (lid == 0) {
                cs.done = 1u;
                cs.iterations = p.slot;
            }
            return;
        }
        for (uint t = 0; t < TARGETS; ++t) ranks[t] = t == 0 ? (total > 0u ? (total - 1u) / 2u : 0u) : total / 2u;
#else
        for (uint t = 0; t < TARGETS; ++t) ranks[t] = p.rank[t];
#endif
        for (uint t = 0; t < TARGETS; ++t) pre[t] = uvec2(0u);
    } else {
        for (uint t = 0; t < TARGETS; ++t) {
            pre[t] = st.target[t].prefix;
            ranks[t] = st.target[t].rank;
        }
        total = st.total;
    }
    // Reads of the state above precede every write below.
    barrier();
    if (PASS == 0 && lid == 0) {
        st.total = total;
#if defined(CLIP)
        cs.total = total;
        cs.last = p.slot == p.max_iters ? 1u : 0u;
#else
        st.nan_count = hist[TARGETS * BINS];
#endif
    }

    for (uint t = 0; t < TARGETS; ++t) {
        // A target with the prefix of an earlier one shares its histogram.
        uint h = t;
        for (uint u = 0; u < t; ++u)
            if (h == t && pre[u] == pre[t]) h = u;
        uint mine = 0;
        for (uint b = first_bin; b < min(first_bin + per_thread, BINS); ++b) mine += hist[h * BINS + b];
        uint all;
        uint before = exclusive_scan(mine, all);
        // An empty set (nothing kept, or only NaN) has no element to find.
        if (total != 0u && ranks[t] >= before && ranks[t] < before + mine) {
            uint c = before;
            for (uint b = first_bin; b < min(first_bin + per_thread, BINS); ++b) {
                uint count = hist[h * BINS + b];
                if (ranks[t] < c + count) {
                    found_digit = b;
                    found_before = c;
                    break;
                }
                c += count;
            }
        }
        barrier();
        if (lid == 0 && total != 0u) {
            // pre[] stays as select_hist saw it: later targets' sharing depends on it.
            keys[t] = pre[t];
            if (WORD == 0) keys[t].x |= found_digit << SHIFT;
            else keys[t].y |= found_digit << SHIFT;
            st.target[t].prefix = keys[t];
            st.target[t].rank = ranks[t] - found_before;
        }
        barrier();
    }
    // Clear for the next pass (every histogram, and the NaN count).
    for (uint b = lid; b <= TARGETS * BINS; b += gl_WorkGroupSize.x) hist[b] = 0u;

#if defined(CLIP)
    if (PASS == LAST_PASS) {
        dvec2 s = sum_partials();
        if (lid != 0) return;
        const double kappa = packDouble2x32(p.kappa_bits);
        precise double med = nan_value(), sd = nan_value(), mean = nan_value();
        if (total != 0u) {
            double v0 = value_of_key(keys[0]), v1 = value_of_key(keys[TARGETS - 1]);
            med = (total & 1u) != 0u ? v1 : (v0 + v1) / 2.0lf;
            double n = double(total);
            double m1 = s.x / n;
            mean = cs.shift + m1;
            sd = sqrt(max(s.y / n - m1 * m1, 0.0lf));
        }
        cs.median = med;
        cs.std = sd;
        cs.mean = mean;
        cs.count = total;
        if (cs.last != 0u) {
            cs.done = 1u;
            cs.iterations = p.max_iters;
        } else {
            cs.iterations = p.slot + 1u;
            if (total != 0u) {
                precise double lo = med - kappa * sd;
                precise double hi = med + kappa * sd;
                cs.lo = max(cs.lo, lo);
                cs.hi = min(cs.hi, hi);
                cs.shift = mean;
            }
            cs.prev_total = total;
        }
    }
#endif
}
