#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
//! variants2: float32 float64 int8 uint8 int16 uint16 int32 uint32 x float64 float32
// First pass of a whole-array sum: every workgroup adds its share of the
// elements and writes one partial. MODE 0 sums x, MODE 1 sums (x - m)^2 with
// the mean m computed by an earlier reduce_final (var, std). The second type
// is the accumulator: float64, or float32 pairs (hi + lo, compensated) for
// devices without float64.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint MODE = 0;

#include "widen.glsl"

#include "reduce_acc.glsl"

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 0) readonly buffer AV { VT av[]; };
layout(std430, binding = 1) readonly buffer M { ACC mean_in[]; };
layout(std430, binding = 2) writeonly buffer P { ACC partial[]; };
layout(push_constant) uniform Push { uint n; uint part_base; } p;

#if defined(KILN_DTYPE2_float64)

void add(inout ACC s, W v) {
    double x = double(v);
    if (MODE == 1) {
        double d = x - mean_in[0];
        s += d * d;
    } else {
        s += x;
    }
}

#else

void add(inout ACC s, W v) {
    vec2 x = to_acc(v);
    if (MODE == 1) {
        vec2 d = ff_add(x, -mean_in[0]);
        vec2 sq = two_prod(d.x, d.x);
        precise float sq_lo = sq.y + 2.0 * d.x * d.y;
        x = vec2(sq.x, sq_lo);
    }
    // Neumaier: the rounding errors gather in s.y, normalised at the end.
    vec2 t = two_sum(s.x, x.x);
    precise float lo = s.y + (t.y + x.y);
    s = vec2(t.x, lo);
}

#endif

shared ACC sh[gl_WorkGroupSize.x];

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint gid = gl_GlobalInvocationID.x;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    ACC s = zero_acc();
    const uint nv = p.n / VW;
    for (uint i = gid; i < nv; i += stride) {
        WV v = WV(av[i]);
        for (int c = 0; c < VW; ++c) add(s, v[c]);
    }
    if (gid < p.n - nv * VW) add(s, W(a[nv * VW + gid]));

#if defined(KILN_DTYPE2_float64)
    s = subgroupAdd(s);
    if (subgroupElect()) sh[gl_SubgroupID] = s;
    barrier();
    if (lid == 0) {
        for (uint k = 1; k < gl_NumSubgroups; ++k) s += sh[k];
        partial[p.part_base + gl_WorkGroupID.x] = s;
    }
#else
    // Pairs do not survive subgroupAdd: a tree in shared memory instead.
    sh[lid] = norm(s.x, s.y);
    for (uint cnt = gl_WorkGroupSize.x; cnt > 1;) {
        uint half_cnt = (cnt + 1) / 2;
        barrier();
        if (lid + half_cnt < cnt) sh[lid] = ff_add(sh[lid], sh[lid + half_cnt]);
        cnt = half_cnt;
    }
    if (lid == 0) partial[p.part_base + gl_WorkGroupID.x] = sh[0];
#endif
}
