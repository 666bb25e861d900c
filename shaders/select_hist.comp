#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
//! variants2: float32 float64 int8 uint8 int16 uint16 int32 uint32 x uint32 float64
// One pass of radix selection: a histogram of one digit of the elements'
// order-preserving keys, counting only elements whose higher digits match a
// target's prefix (select_pick fixes one digit per pass). Keys are 32 bits
// (three digits of 11, 11, 10 bits) or 64 bits for float64 (six digits).
//
// Second variant type: uint32 is plain selection (integer work only; NaNs
// are counted aside). float64 is kappa-sigma clipping: only finite values
// inside the clip state's interval count, and pass 0 also sums x - shift and
// (x - shift)^2 per workgroup; PASS 7 is the prepass that sums the finite
// values (for the first shift) and counts them.
#include "dtype.glsl"
#include "grid.glsl"
#include "sort_key.glsl"
#include "select_pass.glsl"
const uint WIDTH = Q == 2 ? 10 : 11;
// Bits of the current word that earlier passes fixed.
const uint FIXED = Q == 0 ? 0u : (Q == 1 ? 0xffe00000u : 0xfffffc00u);
#include "radix.glsl"

// Histograms of TARGETS x BINS counts, then (plain selection) the NaN count.
layout(std430, binding = 1) buffer H { uint hist[]; };
struct Target {
    uvec2 prefix;  // the key bits fixed so far (high word, low word)
    uint rank;     // rank of the wanted element among those matching prefix
    uint pad;
};
layout(std430, binding = 2) readonly buffer S { uint nan_count; uint total; uint pad0; uint pad1; Target target[]; } st;
#if defined(CLIP)
layout(std430, binding = 3) readonly buffer C {
    double lo, hi;  // kept: finite values with lo < x < hi
    double shift;   // sums are taken of x - shift (the previous mean) for accuracy
    double median, std, mean;
    uint count, prev_total, done, iterations, finite, total, last, pad;
} cs;
layout(std430, binding = 4) writeonly buffer PS { dvec2 partial[]; };
#endif
layout(push_constant) uniform Push { uint n; } p;

#if defined(CLIP)
double value_of(R r) {
#if defined(KILN_DTYPE_float32)
    return double(uintBitsToFloat(r));
#elif defined(KILN_DTYPE_float64)
    return packDouble2x32(r);
#elif defined(T_INT)
    return double(int(r));
#else
    return double(r);
#endif
}
#if defined(T_FLOAT)
#define is_finite raw_finite  // sort_key.glsl's: R is its RAW_T for floats
#else
bool is_finite(R r) { return true; }
#endif
#endif

uint digit(uvec2 k) { return ((WORD == 0 ? k.x : k.y) >> SHIFT) & ((1u << WIDTH) - 1u); }

shared uint sh[TARGETS * BINS];
uvec2 pre[TARGETS];
bool counted[TARGETS];  // false for a target whose prefix an earlier one has: its histogram is that one's
#if defined(CLIP)
shared double sd1[gl_WorkGroupSize.x], sd2[gl_WorkGroupSize.x];
double s1 = 0.0lf, s2 = 0.0lf;
#else
uint nans = 0;
#endif

void visit(R r) {
#if defined(CLIP)
    if (!is_finite(r)) return;
    double x = value_of(r);
    if (PASS == 7) {
        s1 += x;
        s2 += 1.0lf;
        return;
    }
    if (!(x > cs.lo && x < cs.hi)) return;
    if (PASS == 0) {
        double d = x - cs.shift;
        s1 += d;
        s2 += d * d;
    }
#else
    if (is_nan(r)) {
        ++nans;
        return;
    }
#endif
    uvec2 k = key_of(r);
    for (uint t = 0; t < TARGETS; ++t)
        if (counted[t] && matches(k, pre[t])) atomicAdd(sh[t * BINS + digit(k)], 1u);
}

void main() {
    const uint lid = gl_LocalInvocationID.x;
#if defined(CLIP)
    if (PASS != 7 && cs.done != 0u) return;
#endif
    for (uint t = 0; t < TARGETS; ++t) {
        pre[t] = uvec2(0u);
        if (PASS != 0) pre[t] = st.target[t].prefix;
        counted[t] = true;
        for (uint u = 0; u < t; ++u)
            if (pre[u] == pre[t]) counted[t] = false;
    }
    // Only the histograms counted here are cleared and merged.
    if (PASS != 7) {
        for (uint b = lid; b < TARGETS * BINS; b += gl_WorkGroupSize.x)
            if (counted[b / BINS]) sh[b] = 0u;
        barrier();
    }

    const uint gid = gl_GlobalInvocationID.x;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    const uint nv = p.n / VW;
    for (uint i = gid; i < nv; i += stride) {
        uvec4 v = load_v(i);
        for (int c = 0; c < VW; ++c) visit(raw_v(v, c));
    }
    if (gid < p.n - nv * VW) visit(raw(nv * VW + gid));

#if defined(CLIP)
    if (PASS == 0 || PASS == 7) {
        s1 = subgroupAdd(s1);
        s2 = subgroupAdd(s2);
        if (subgroupElect()) {
            sd1[gl_SubgroupID] = s1;
            sd2[gl_SubgroupID] = s2;
        }
        barrier();
        if (lid == 0) {
            for (uint k = 1; k < gl_NumSubgroups; ++k) s1 += sd1[k], s2 += sd2[k];
            partial[gl_WorkGroupID.x] = dvec2(s1, s2);
        }
        if (PASS == 7) return;
    }
#else
    if (PASS == 0) {
        nans = subgroupAdd(nans);
        if (subgroupElect() && nans != 0u) atomicAdd(hist[TARGETS * BINS], nans);
    }
#endif
    barrier();
    for (uint b = lid; b < TARGETS * BINS; b += gl_WorkGroupSize.x)
        if (counted[b / BINS] && sh[b] != 0u) atomicAdd(hist[b], sh[b]);
}
