#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// The counting pass of histogram and bincount: each workgroup counts its
// share of the elements into sub-histograms in shared memory (one copy per
// few subgroups, so fewer invocations contend for one counter), then adds
// them to the global counts with one atomic per bin. When the bins do not fit
// in shared memory (COPIES == 0) every element goes to a global atomic.
//
// Bin of a value, by MODE:
//   0 compute: float input, NumPy's rule in the array's float type B: scaled
//     offset, then one correction step each way against the edges. The
//     range test and the corrections compare order keys of the raw bits
//     (sort_key.glsl), not floats: a GPU may flush denormals to zero and
//     assume no NaN in float comparisons (Vulkan allows both without the
//     float-controls modes), and NVIDIA's counted -1e-45 in [0, 1]'s first
//     bin, where NumPy drops it. So the bins are NumPy's on any device;
//     the scaled offset only picks where the corrections start.
//   1 table:   integer input over a small range: table[x - lo];
//   2 search:  integer input over a wide range: the last i <= top with
//     table[i] <= x - lo, table[i] being the first integer (less lo) in bin i
//     or above, found on the host with NumPy's rule, which is monotonic, so the
//     result is NumPy's and no float64 is needed;
//   3 direct:  integer input with bins one integer wide: x - lo.
// Elements are read 16 bytes at a time.
#include "dtype.glsl"
#include "grid.glsl"
#include "sort_key.glsl"

layout(constant_id = 3) const uint MODE = 0;
layout(constant_id = 4) const uint COPIES = 1;          // shared sub-histograms; 0: global atomics
layout(constant_id = 5) const uint SHARED_BINS = 1;     // COPIES * bins (>= 1)
layout(constant_id = 6) const uint SHARED_TABLE = 1;    // table entries kept in shared memory (>= 1)
layout(constant_id = 7) const bool TABLE_IN_SHARED = false;

#include "chunk.glsl"

layout(std430, binding = 0) readonly buffer Data { RAW_T data[]; };
layout(std430, binding = 0) readonly buffer Data4 { uvec4 data4[]; };
#if defined(T_FLOAT)
layout(std430, binding = 1) readonly buffer Edges { RAW_T edges[]; };  // raw bits
#else
layout(std430, binding = 1) readonly buffer Table { uint table[]; };
#endif
layout(std430, binding = 2) buffer Counts { uint counts[]; };
// first, last, norm: raw bits of the array's float type (float32: .x only).
layout(push_constant) uniform P {
    uint n;
    uint bins;
    uint span;  // integer modes: values lo .. lo + span count
    uint lo;
    uint top;   // search mode: the last bin any value reaches
    uint pad;
    uvec2 first;
    uvec2 last;
    uvec2 norm;
} p;

shared uint sh_hist[SHARED_BINS];
shared uint sh_table[SHARED_TABLE];

const uint NONE = 0xffffffffu;

#if defined(KILN_DTYPE_float64)
#define FROM_BITS(u) packDouble2x32(u)
#elif defined(T_FLOAT)
#define FROM_BITS(u) uintBitsToFloat((u).x)
#endif

#if !defined(T_FLOAT)
uint table_at(uint i) { return TABLE_IN_SHARED ? sh_table[i] : table[i]; }
#endif

uint bin_of(A x) {
#if defined(T_FLOAT)
#if defined(KILN_DTYPE_float64)
    const RAW_T first_raw = p.first, last_raw = p.last;
#else
    const RAW_T first_raw = p.first.x, last_raw = p.last.x;
#endif
    // Non-finite values have the all-ones key, above every finite last.
    const KEY k = key_of_raw(x), kf = key_of_raw(first_raw);
    if (key_less(k, kf) || key_less(key_of_raw(last_raw), k)) return NONE;
    const T first = FROM_BITS(p.first), norm = FROM_BITS(p.norm);
#if defined(KILN_DTYPE_float64)
    precise T d = packDouble2x32(x) - first;
#else
    precise T d = uintBitsToFloat(x) - first;
#endif
    const int n = int(p.bins);
    if (d == T(0) && key_less(kf, k)) {
        // x above first by a difference the device flushed to zero (a
        // denormal: the H100 does this for ranges narrower than about
        // 1e-38), where NumPy's scaled offset is exact. Its corrections then
        // reach the last edge at or below x: found by bisection.
        int lo = 0, hi = n - 1;
        while (lo < hi) {
            const int m = (lo + hi + 1) >> 1;
            if (key_less(k, key_of_raw(edges[m]))) hi = m - 1;
            else lo = m;
        }
        return uint(lo);
    }
    precise T f = d * norm;
    int i = f >= T(n) ? n : (f > T(0) ? int(f) : 0);
    if (i == n) --i;
    if (i > 0 && key_less(k, key_of_raw(edges[i]))) --i;
    if (i != n - 1 && !key_less(k, key_of_raw(edges[i + 1]))) ++i;
    return uint(i);
#else
    const uint v = uint(x) - p.lo;  // wraps: x in [lo, lo + span] <=> v <= span
    if (v > p.span) return NONE;
    if (MODE == 3) return min(v, p.bins - 1);
    if (MODE == 1) return table_at(v);
    uint a = 0, b = p.top;
    while (a < b) {
        const uint m = (a + b + 1) >> 1;
        if (table_at(m) <= v) a = m;
        else b = m - 1;
    }
    return a;
#endif
}

void count(uint bin, uint base) {
    if (bin == NONE) return;
    if (COPIES > 0) atomicAdd(sh_hist[base + bin], 1u);
    else atomicAdd(counts[bin], 1u);
}

void main() {
    const uint lid = gl_LocalInvocationIndex;
    const uint local = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    if (COPIES > 0)
        for (uint i = lid; i < SHARED_BINS; i += local) sh_hist[i] = 0;
#if !defined(T_FLOAT)
    if (TABLE_IN_SHARED)
        for (uint i = lid; i < SHARED_TABLE; i += local) sh_table[i] = table[i];
#endif
    barrier();

    const uint base = COPIES > 0 ? (gl_SubgroupID % max(COPIES, 1u)) * p.bins : 0;
    const uint chunks = p.n / PER_CHUNK;
    const uint stride = gl_NumWorkGroups.x * local;
    const uint gid = gl_WorkGroupID.x * local + lid;
    // Two loads in flight per invocation before their elements are counted.
    uint c = gid;
    for (; c + stride < chunks; c += 2 * stride) {
        const uvec4 v0 = data4[c], v1 = data4[c + stride];
        for (uint j = 0; j < PER_CHUNK; ++j) count(bin_of(element(v0, j)), base);
        for (uint j = 0; j < PER_CHUNK; ++j) count(bin_of(element(v1, j)), base);
    }
    if (c < chunks) {
        const uvec4 v = data4[c];
        for (uint j = 0; j < PER_CHUNK; ++j) count(bin_of(element(v, j)), base);
    }
    // The last n % PER_CHUNK elements.
    for (uint t = chunks * PER_CHUNK + gid; t < p.n; t += stride) count(bin_of(A(data[t])), base);

    if (COPIES > 0) {
        barrier();
        for (uint b = lid; b < p.bins; b += local) {
            uint s = 0;
            for (uint c = 0; c < COPIES; ++c) s += sh_hist[c * p.bins + b];
            if (s != 0u) atomicAdd(counts[b], s);
        }
    }
}
