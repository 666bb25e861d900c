#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// Pass 1 of the range reduction of histogram and bincount. Each workgroup
// writes one partial: the minimum and maximum of its finite values, whether it
// saw one, and its first negative value with the value's index (bincount
// refuses negative values and names the first). hist_minmax_final reduces the
// partials. Elements are read 16 bytes at a time.
#include "dtype.glsl"
#include "grid.glsl"
#include "sort_key.glsl"

// A (chunk.glsl): the type values are compared in. A_LOW, A_HIGH: the
// starting maximum and minimum. Floats are kept as their raw bits and
// compared by order key (sort_key.glsl): a GPU may flush denormals to zero
// in float comparisons and min/max, and the range must be NumPy's, down to a
// denormal minimum. Every use of mn and mx below is guarded by "any value
// seen", so the floats' starting values never count.
#include "chunk.glsl"
#if defined(T_FLOAT)
#define A_HIGH RAW_T(0u)
#define A_LOW RAW_T(0u)
#define A_MIN raw_min
#define A_MAX raw_max
#elif defined(T_INT)
#define A_HIGH 2147483647
#define A_LOW (-2147483647 - 1)
#else
#define A_HIGH 4294967295u
#define A_LOW 0u
#endif
#if !defined(T_FLOAT)
#define A_MIN min
#define A_MAX max
#endif

#include "hist_range.glsl"

layout(std430, binding = 0) readonly buffer Data { RAW_T data[]; };
layout(std430, binding = 0) readonly buffer Data4 { uvec4 data4[]; };
layout(std430, binding = 1) writeonly buffer Partials { Partial partials[]; };
// base: index of this piece's first element in the whole array; slot: the
// partial of this piece's first workgroup.
layout(push_constant) uniform P { uint n; uint base; uint slot; } p;

const uint NONE = 0xffffffffu;
const uint LOCAL = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;

shared A s_mn[LOCAL];
shared A s_mx[LOCAL];
shared A s_nv[LOCAL];
shared uint s_any[LOCAL];
shared uint s_ni[LOCAL];

A mn = A_HIGH, mx = A_LOW, nv = A(0);
bool any_value = false;
uint ni = NONE;

void take(A x, uint index) {
#if defined(T_FLOAT)
    if (!raw_finite(x)) return;
#endif
#if defined(T_INT)
    if (x < 0 && ni == NONE) {
        ni = index;
        nv = x;
    }
#endif
    mn = any_value ? A_MIN(mn, x) : x;
    mx = any_value ? A_MAX(mx, x) : x;
    any_value = true;
}

void main() {
    const uint lid = gl_LocalInvocationIndex;
    const uint chunks = p.n / PER_CHUNK;
    const uint stride = gl_NumWorkGroups.x * LOCAL;
    const uint gid = gl_WorkGroupID.x * LOCAL + lid;
    // Two loads in flight per invocation before their elements are taken.
    uint c = gid;
    for (; c + stride < chunks; c += 2 * stride) {
        const uvec4 v0 = data4[c], v1 = data4[c + stride];
        for (uint j = 0; j < PER_CHUNK; ++j) take(element(v0, j), p.base + c * PER_CHUNK + j);
        for (uint j = 0; j < PER_CHUNK; ++j) take(element(v1, j), p.base + (c + stride) * PER_CHUNK + j);
    }
    if (c < chunks) {
        const uvec4 v = data4[c];
        for (uint j = 0; j < PER_CHUNK; ++j) take(element(v, j), p.base + c * PER_CHUNK + j);
    }
    for (uint t = chunks * PER_CHUNK + gid; t < p.n; t += stride) take(A(data[t]), p.base + t);

    s_mn[lid] = mn;
    s_mx[lid] = mx;
    s_nv[lid] = nv;
    s_any[lid] = any_value ? 1u : 0u;
    s_ni[lid] = ni;
    barrier();
    for (uint s = 1; s < LOCAL; s <<= 1) {
        const uint o = lid + s;
        if ((lid & (2 * s - 1)) == 0 && o < LOCAL) {
            if (s_any[o] != 0u) {
                s_mn[lid] = s_any[lid] != 0u ? A_MIN(s_mn[lid], s_mn[o]) : s_mn[o];
                s_mx[lid] = s_any[lid] != 0u ? A_MAX(s_mx[lid], s_mx[o]) : s_mx[o];
                s_any[lid] = 1u;
            }
            if (s_ni[o] < s_ni[lid]) {
                s_ni[lid] = s_ni[o];
                s_nv[lid] = s_nv[o];
            }
        }
        barrier();
    }
    if (lid == 0) partials[p.slot + gl_WorkGroupID.x] = Partial(s_mn[0], s_mx[0], s_any[0], s_ni[0], s_nv[0]);
}
