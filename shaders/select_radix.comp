#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// One pass of exact radix selection (kiln::median, kiln::percentile) in one
// dispatch. Every workgroup counts one digit of the order-preserving keys of
// the elements whose higher digits match a target's prefix and adds its
// counts to the global histograms; the last workgroup to finish (an atomic
// counter) then finds, for each target, the digit whose bin holds the
// target's rank, appends it to the target's prefix, makes the rank relative
// to that bin and clears the histograms and the counter for the next pass.
// After the last pass each prefix is the key of the wanted element.
//
// Keys: float32 and 32-bit integers use all 32 bits of the high word;
// float64 uses both words; 8- and 16-bit integers sit in the top 8 or 16
// bits of the high word (so they need one or two passes). NaNs are counted
// aside in pass 0. The host (engine/ops/select.cpp) picks the digits.
//
// FINE (32-bit keys in three digits, one or two targets): pass 0 zeroes a
// fine histogram of every value of the last two digits; pass 1, when the
// targets share one prefix matched by few enough elements (push constant
// fine_limit), also counts those values there, so its last workgroup finds
// both digits and flags the selection done; pass 2 then returns at once.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint PASS = 0;     // pass 0 takes the ranks from push constants
layout(constant_id = 4) const uint TARGETS = 1;
layout(constant_id = 5) const uint WORD = 0;     // the digit lies in the key's high (0) or low (1) word
layout(constant_id = 6) const uint SHIFT = 21;   // its lowest bit
layout(constant_id = 7) const uint WIDTH = 11;   // and its width
layout(constant_id = 8) const uint FINE = 0;     // see above: 1 in the passes that take part

const uint BINS = 1u << WIDTH;
// Bits of the current word that earlier passes fixed: those above the digit.
const uint FIXED = ~((2u << (SHIFT + WIDTH - 1u)) - 1u);
// Pass 0 has one histogram: no target has a prefix yet.
const uint HISTS = PASS == 0 ? 1u : TARGETS;
const uint HEAD = 4;  // words of the global histogram buffer before the bins
// Pass 1: the fine histogram has a bin per value of the digit and all below it.
const uint FINE_WORDS = 1u << ((SHIFT + WIDTH) & 31u);
const uint NONE = 0xffffffffu;

#define RADIX_TOP_KEYS
#include "radix.glsl"

// [0] workgroups done, [1] NaN count, then TARGETS histograms of BINS counts.
layout(std430, binding = 1) coherent buffer H { uint hist[]; };
struct Target {
    uvec2 prefix;  // the key bits fixed so far (high word, low word)
    uint rank;     // rank of the wanted element among those matching prefix
    uint count;    // elements matching prefix (NONE: the rank is past the last)
};
layout(std430, binding = 2) buffer S { uint nan_count; uint total; uint done; uint pad; Target target[]; } st;
layout(std430, binding = 3) coherent buffer F { uint fine[]; };
layout(std430, binding = 3) writeonly buffer FV { uvec4 fine_v[]; };
layout(push_constant) uniform Push {
    uint n;
    uint fine_limit;  // pass 1: the fine histogram is kept when at most this many elements match
    uint pad0, pad1;
    uint rank[8];     // pass 0: the ranks wanted
} p;

uint digit(uvec2 k) { return ((WORD == 0 ? k.x : k.y) >> SHIFT) & (BINS - 1u); }

shared uint sh[HISTS * BINS];
shared uint sg_sum[gl_WorkGroupSize.x];
shared bool last_group;
shared uvec2 found[TARGETS];  // pass 1 with fine histograms: digit and rank within its bin
uvec2 pre[TARGETS];
uint hist_of[TARGETS];  // the histogram a target uses: the first target with its prefix
uint nans = 0;
bool fine_on = false;
// Pass 1, fine histograms: equal values in a row add once.
uint run_at = NONE, run_n = 0u;

void fine_count(uint at) {
    if (at == run_at) {
        ++run_n;
        return;
    }
    if (run_n != 0u) atomicAdd(fine[run_at], run_n);
    run_at = at;
    run_n = 1u;
}

void visit(R r) {
    if (PASS == 0) {
        if (is_nan(r)) {
            ++nans;
            return;
        }
        atomicAdd(sh[digit(key_of(r))], 1u);
        return;
    }
    const uvec2 k = key_of(r);
    for (uint t = 0; t < TARGETS; ++t)
        if (hist_of[t] == t && matches(k, pre[t])) {
            atomicAdd(sh[t * BINS + digit(k)], 1u);
            if (PASS == 1 && FINE != 0u && fine_on) fine_count(k.x & (FINE_WORDS - 1u));
        }
}

// Exclusive prefix sum of v over the workgroup; total receives the sum of all.
#define SCAN_ELECT_SUMS sg_sum
#include "workgroup_scan.glsl"

// The digit of `r` in the counts sh[0, bins) (all threads; the thread that
// finds it returns true with the digit, the count before it and its own).
bool find_digit(uint bins, uint r, out uint d, out uint before_d, out uint all) {
    const uint lid = gl_LocalInvocationID.x;
    const uint per_thread = (bins + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;
    const uint first = min(lid * per_thread, bins), end = min(first + per_thread, bins);
    uint mine = 0;
    for (uint b = first; b < end; ++b) mine += sh[b];
    uint c = exclusive_scan(mine, all);
    d = first;
    before_d = c;
    if (!(r >= c && r < c + mine)) return false;
    for (; d < end; ++d) {
        if (r < c + sh[d]) break;
        c += sh[d];
    }
    before_d = c;
    return true;
}

// The last workgroup: the digit of every target, then clean histograms.
void pick() {
    const uint lid = gl_LocalInvocationID.x;
    uint rank[TARGETS];
    for (uint t = 0; t < TARGETS; ++t) rank[t] = PASS == 0 ? p.rank[t] : st.target[t].rank;
    for (uint h = 0; h < (PASS == 0 ? 1u : TARGETS); ++h) {
        if (hist_of[h] != h) continue;  // uniform: every thread has the same prefixes
        const uint base = HEAD + h * BINS;
        // Stage the histogram in shared memory (and clear it for the next pass).
        barrier();
        for (uint b = lid; b < BINS; b += gl_WorkGroupSize.x) {
            sh[b] = hist[base + b];
            hist[base + b] = 0u;
        }
        barrier();
        for (uint t = h; t < TARGETS; ++t) {
            if ((PASS == 0 ? 0u : hist_of[t]) != h) continue;
            uint d, before, all;
            // Every thread scans (barriers inside); one finds the digit.
            if (find_digit(BINS, rank[t], d, before, all)) {
                const uvec2 key = pre[t] | (WORD == 0 ? uvec2(d << SHIFT, 0u) : uvec2(0u, d << SHIFT));
                if (PASS == 1 && fine_on) {
                    found[t] = uvec2(d, rank[t] - before);
                } else {
                    st.target[t].prefix = key;
                    st.target[t].rank = rank[t] - before;
                    st.target[t].count = sh[d];
                }
            } else if (lid == gl_WorkGroupSize.x - 1u && rank[t] >= all) {
                // Not present at all: only with NaNs in the data, whose
                // results the host discards.
                if (PASS == 1 && fine_on) found[t] = uvec2(NONE);
                st.target[t].prefix = pre[t];
                st.target[t].rank = 0u;
                st.target[t].count = NONE;
            }
            if (PASS == 0 && lid == 0) {
                st.total = all;
                st.done = 0u;
            }
        }
    }
    if (PASS == 0 && lid == 0) {
        st.nan_count = hist[1];
        hist[1] = 0u;
    }
    if (lid == 0) hist[0] = 0u;
    if (!(PASS == 1 && fine_on)) return;

    // The last digit of each target from its fine histogram's bins under
    // the digit just found (the last pass's digit spans bits SHIFT-1..0).
    const uint FB = 1u << SHIFT;
    for (uint t = 0; t < TARGETS; ++t) {
        barrier();
        const uvec2 f = found[t];
        if (f.x == NONE) continue;
        if (t == 0 || f.x != found[t - 1].x) {  // else the bins are staged already
            for (uint b = lid; b < FB; b += gl_WorkGroupSize.x) sh[b] = fine[(f.x << SHIFT) + b];
            barrier();
        }
        uint d, before, all;
        if (find_digit(FB, f.y, d, before, all)) {
            st.target[t].prefix = pre[t] | uvec2((f.x << SHIFT) | d, 0u);
            st.target[t].rank = f.y - before;
            st.target[t].count = sh[d];
        }
    }
    if (lid == 0) st.done = 1u;
}

void main() {
    const uint lid = gl_LocalInvocationID.x;
    // Pass 1 found the keys already.
    if (PASS >= 2 && FINE != 0u && st.done != 0u) return;
    fine_on = PASS == 1 && FINE != 0u;
    for (uint t = 0; t < TARGETS; ++t) {
        pre[t] = PASS == 0 ? uvec2(0u) : st.target[t].prefix;
        hist_of[t] = t;
        for (uint u = t; u-- > 0u;)
            if (pre[u] == pre[t]) hist_of[t] = u;
        if (PASS == 1 && (hist_of[t] != 0u || st.target[t].count > p.fine_limit)) fine_on = false;
    }
    for (uint b = lid; b < HISTS * BINS; b += gl_WorkGroupSize.x)
        if (PASS == 0 || hist_of[b / BINS] == b / BINS) sh[b] = 0u;
    barrier();

    const uint gid = gl_GlobalInvocationID.x;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (PASS == 0 && FINE != 0u)
        for (uint i = gid; i < (1u << SHIFT) / 4u; i += stride) fine_v[i] = uvec4(0u);
    const uint nv = p.n / VW;
    uint i = gid;
    // Four loads in flight per thread.
    for (; i + 3u * stride < nv; i += 4u * stride) {
        const uvec4 v0 = load_v(i), v1 = load_v(i + stride), v2 = load_v(i + 2u * stride),
                    v3 = load_v(i + 3u * stride);
        for (int c = 0; c < VW; ++c) visit(raw_v(v0, c));
        for (int c = 0; c < VW; ++c) visit(raw_v(v1, c));
        for (int c = 0; c < VW; ++c) visit(raw_v(v2, c));
        for (int c = 0; c < VW; ++c) visit(raw_v(v3, c));
    }
    for (; i < nv; i += stride) {
        const uvec4 v = load_v(i);
        for (int c = 0; c < VW; ++c) visit(raw_v(v, c));
    }
    if (gid < p.n - nv * VW) visit(raw(nv * VW + gid));

    if (PASS == 0) {
        nans = subgroupAdd(nans);
        if (subgroupElect() && nans != 0u) atomicAdd(hist[1], nans);
    }
    if (PASS == 1 && fine_on) {
        // The subgroup's runs of the smallest value add once (many equal
        // values: one atomic per subgroup, not per element).
        const uint v = subgroupMin(run_n != 0u ? run_at : NONE);
        const bool same = run_n != 0u && run_at == v;
        const uint sum = subgroupAdd(same ? run_n : 0u);
        if (subgroupElect() && sum != 0u) atomicAdd(fine[v], sum);
        if (!same && run_n != 0u) atomicAdd(fine[run_at], run_n);
    }
    barrier();
    for (uint b = lid; b < HISTS * BINS; b += gl_WorkGroupSize.x)
        if ((PASS == 0 || hist_of[b / BINS] == b / BINS) && sh[b] != 0u) atomicAdd(hist[HEAD + b], sh[b]);
    // This workgroup's counts are in before it counts itself done.
    memoryBarrierBuffer();
    barrier();
    if (lid == 0) last_group = atomicAdd(hist[0], 1u) == gl_NumWorkGroups.x - 1u;
    barrier();
    if (!last_group) return;
    memoryBarrierBuffer();
    pick();
}
