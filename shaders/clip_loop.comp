#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// Kappa-sigma clipping, the whole loop in one workgroup over the sorted
// finite values v[0, finite) (sort_*.comp). The kept set of every pass is a
// range [a, b) of v, so a pass is:
//   median: v[a + (n - 1) / 2] and v[a + n / 2], n = b - a;
//   mean and std: from the sums of v - shift and (v - shift)^2 over [a, b),
//     put together from O(log n) nodes of clip_tree's sum tree (ranges of at
//     most SMALL values are summed directly, mean first, as NumPy does);
//   the next range: the first v > median - kappa * std and the first
//     v >= median + kappa * std, found by a (PROBES * L)-ary search.
// It stops after a pass that removes nothing (a pass over equal values
// removes nothing) or after max_iters passes, as
// kiln::cpu::kappa_sigma_clip, and writes the statistics of what is left
// (stats: median, std, mean, count, iterations; iterations 0 when there is
// no finite value, -1 when sort_scatter could not run) and, for clip_mask,
// the intersection of the passes' intervals.
#include "dtype.glsl"
#include "grid.glsl"
#include "sort_key.glsl"

const uint SMALL = 4096u;
const uint PROBES = 8u;  // per invocation and search step

layout(std430, binding = 0) readonly buffer Keys { KEY keys[]; };
#include "clip_shift.glsl"
layout(std430, binding = 1) readonly buffer State { uint finite, sort_error; } st;
layout(std430, binding = 2) readonly buffer Tree { dvec2 tree[]; };
layout(std430, binding = 3) writeonly buffer Bounds { double lo, hi; uint count, pad; } bounds;
layout(std430, binding = 4) writeonly buffer Stats { double stats[5]; };
layout(push_constant) uniform Push {
    uint levels;     // node levels of the tree; the top one has at most 256 nodes
    uint max_iters;
    uvec2 kappa_bits;
    uint offset[4];  // first node of level l + 1 in tree
    uint size[4];    // nodes of level l + 1
} p;

shared dvec2 sums[gl_WorkGroupSize.x];
shared uvec2 counts[gl_WorkGroupSize.x];

#define lid gl_LocalInvocationID.x
const uint L = gl_WorkGroupSize.x;

// Workgroup sums; every invocation gets the same value (summed in the same order).
dvec2 workgroup_sum(dvec2 v) {
    v = subgroupAdd(v);
    if (subgroupElect()) sums[gl_SubgroupID] = v;
    barrier();
    dvec2 t = dvec2(0.0lf);
    for (uint k = 0u; k < gl_NumSubgroups; ++k) t += sums[k];
    barrier();
    return t;
}

uvec2 workgroup_count(uvec2 v) {
    v = subgroupAdd(v);
    if (subgroupElect()) counts[gl_SubgroupID] = v;
    barrier();
    uvec2 t = uvec2(0u);
    for (uint k = 0u; k < gl_NumSubgroups; ++k) t += counts[k];
    barrier();
    return t;
}

double v(uint i) { return value_of_key(keys[i]); }

// Sums of v - shift and (v - shift)^2 over [a, b): the partial nodes at both
// ends of each level, then the whole nodes of the level above. The segments
// are found first, then every item is loaded at once (index clamped, masked).
dvec2 range_sums(uint a, uint b, double shift) {
    uint seg_lo[8], seg_hi[8];
    for (uint g = 0u; g < 8u; ++g) seg_lo[g] = seg_hi[g] = 0u;
    uint lo = a, hi = b;
    for (uint level = 0u; level < 4u; ++level) {
        const uint up_lo = (lo + 255u) / 256u, up_hi = hi / 256u;
        seg_lo[2u * level] = lo;
        if (level == p.levels || up_lo >= up_hi) {
            seg_hi[2u * level] = hi;
            break;
        }
        seg_hi[2u * level] = up_lo * 256u;
        seg_lo[2u * level + 1u] = up_hi * 256u;
        seg_hi[2u * level + 1u] = hi;
        lo = up_lo;
        hi = up_hi;
    }
    dvec2 s = dvec2(0.0lf);
    // A segment has at most 511 items; L >= 256 (checked by the host).
    for (uint g = 0u; g < 8u; ++g)
        for (uint k = 0u; k < 2u; ++k) {
            const uint i = seg_lo[g] + lid + k * L;
            const bool inside = i < seg_hi[g];
            const uint at = inside ? i : 0u;
            dvec2 item;
            if (g < 2u) {
                const double x = v(min(at, b - 1u)) - shift;
                item = dvec2(x, x * x);
            } else {
                item = tree[p.offset[g / 2u - 1u] + at];
            }
            if (inside) s += item;
        }
    return workgroup_sum(s);
}

double nan_value() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }

// Median, population std and mean of v[a, b) (NaN for an empty range).
void statistics(uint a, uint b, double shift, out double med, out double sd, out double mean) {
    const uint n = b - a;
    if (n == 0u) {
        med = sd = mean = nan_value();
        return;
    }
    const double dn = double(n);
    const double v0 = v(a + (n - 1u) / 2u), v1 = v(a + n / 2u);
    med = (n & 1u) != 0u ? v1 : (v0 + v1) / 2.0lf;
    if (n <= SMALL) {
        dvec2 s = dvec2(0.0lf);
        for (uint i = a + lid; i < b; i += L) s.x += v(i);
        mean = workgroup_sum(s).x / dn;
        s = dvec2(0.0lf);
        for (uint i = a + lid; i < b; i += L) {
            const double d = v(i) - mean;
            s.x += d * d;
        }
        sd = sqrt(workgroup_sum(s).x / dn);
    } else {
        const dvec2 s = range_sums(a, b, shift);
        const double m1 = s.x / dn;
        mean = shift + m1;
        sd = sqrt(max(s.y / dn - m1 * m1, 0.0lf));
    }
}

// The first index in [a, b) with v > lo and the first with v >= hi (b where
// there is none): each step probes PROBES * L evenly spaced places of both
// ranges, all loads at once.
uvec2 kept_range(uint a, uint b, double lo, double hi) {
    uvec2 l = uvec2(a), h = uvec2(b);
    const uint all_probes = PROBES * L;
    while (l.x < h.x || l.y < h.y) {
        const uvec2 len = h - l;
        const uvec2 step = max((len + (all_probes - 1u)) / all_probes, uvec2(1u));
        const uvec2 probes = (len + step - 1u) / step;
        uvec2 below = uvec2(0u);  // probes where the condition fails
        for (uint q = 0u; q < PROBES; ++q) {
            const uint t = q * L + lid;
            const uvec2 at = min(l + t * step, uvec2(b - 1u));
            const double x = v(at.x), y = v(at.y);
            if (t < probes.x && !(x > lo)) ++below.x;
            if (t < probes.y && !(y >= hi)) ++below.y;
        }
        const uvec2 c = workgroup_count(below);
        for (uint j = 0u; j < 2u; ++j) {
            if (len[j] == 0u) continue;
            if (c[j] == 0u) {
                h[j] = l[j];
            } else {
                const uint next_l = l[j] + (c[j] - 1u) * step[j] + 1u;
                h[j] = c[j] < probes[j] ? l[j] + c[j] * step[j] : h[j];
                l[j] = next_l;
            }
        }
    }
    return l;
}

void main() {
    const uint finite = st.finite;
    if (st.sort_error != 0u) {
        if (lid == 0u) stats[4] = -1.0lf;  // the host throws
        return;
    }
    if (finite == 0u) {
        if (lid == 0u) {
            bounds.lo = bounds.hi = 0.0lf;
            bounds.count = 0u;
            stats[0] = stats[1] = stats[2] = nan_value();
            stats[3] = stats[4] = 0.0lf;
        }
        return;
    }
    const double kappa = packDouble2x32(p.kappa_bits);
    const double inf = packDouble2x32(uvec2(0u, 0x7ff00000u));
    const double shift = clip_shift(finite);
    uint a = 0u, b = finite, iterations = 0u;
    double lo_all = -inf, hi_all = inf;
    double med, sd, mean;
    for (;;) {
        statistics(a, b, shift, med, sd, mean);
        const uint n = b - a;
        precise double lo = med - kappa * sd;
        precise double hi = med + kappa * sd;
        ++iterations;
        // Values all equal (std 0, or an interval that rounds to the
        // median): nothing lies strictly inside, yet nothing is an outlier.
        // All are kept and the pass constrains nothing, as in the reference
        // (and astropy's sigma_clip). Uniform: every invocation reads the same.
        if (n == 0u || !(lo < hi) || v(a) == v(b - 1u)) break;
        uvec2 kept = kept_range(a, b, lo, hi);
        kept.y = max(kept.y, kept.x);
        const uint k = kept.y - kept.x;
        if (k > 0u) {
            lo_all = max(lo_all, lo);
            hi_all = min(hi_all, hi);
        }
        a = kept.x;
        b = kept.y;
        if (k == n || iterations >= p.max_iters) {
            if (k != n) statistics(a, b, shift, med, sd, mean);
            break;
        }
    }
    if (lid == 0u) {
        bounds.lo = lo_all;
        bounds.hi = hi_all;
        bounds.count = b - a;
        stats[0] = med;
        stats[1] = sd;
        stats[2] = mean;
        stats[3] = double(b - a);
        stats[4] = double(iterations);
    }
}
