#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
//! variants: float64 float32
// Per-label measurements over the pixel lists grouped by slot, whatever the
// image type (the values come as raw words, see measure_runs; KIND says how
// to read them). The variant is the accumulator: float64, or compensated
// float32 where the device has no float64. Work items, one per workgroup at
// a time:
//   [0, segments): a segment of at most `seg` pixels of a large slot's list,
//       reduced to a partial result in a fixed order (a butterfly in each
//       subgroup, then the subgroups in turn); the workgroup that completes
//       a slot's last segment combines the slot's partials the same way and
//       writes its table row;
//   then groups of slots, one per invocation: slots of at most `small`
//       pixels are reduced by that invocation (a CPU driver's choice; on a
//       GPU small is 0 and every slot goes in segments).
// Empty slots get a zero row from the workgroups in turn, counted from the
// last (slot l from workgroup grid - 1 - l / local size, modulo the grid).
// Every pixel but NaN ones adds its value v, v - shift and (v - shift)^2
// (shift: a value of the slot, the first non-NaN one in its list, so the
// variance keeps its digits far from zero), v * z, v * y, v * x, and takes
// part in min/max (first pixel in raster order on ties) and the bounding box.
#include "grid.glsl"

// The values are 0: float32, 1: float64, 2: int32, 3: uint32.
layout(constant_id = 3) const uint KIND = 0;

#if defined(KILN_DTYPE_float64)
#define F double
#define ACC double
#else
#define F float
#define ACC vec2  // (sum, compensation)
#endif

layout(std430, binding = 0) readonly buffer Values { uvec2 values[]; };
layout(std430, binding = 1) readonly buffer Sorted { uint sorted[]; };
// out: a header of HEAD words (0, pixels, segments, labels), then the
// table, ROW words per slot.
layout(std430, binding = 2) coherent buffer Out { uint out_words[]; };
// offsets [0, N), cursors [N, 2N) (each at its slot's list end after
// measure_runs, so a slot counts cursor - offset pixels).
layout(std430, binding = 3) readonly buffer Lists { uint lists[]; };
// Partials and table rows are ROW words: 6 sums of 2 words, then 16 words:
// count, min index, max index, lo xyz, hi xyz, min (2), max (2) as accumulator-type bits, 3 spare.
layout(std430, binding = 4) coherent buffer Parts { uint parts[]; };
// Each segment: its slot, the slot's first segment, count and list offset.
layout(std430, binding = 5) readonly buffer SegInfo { uvec4 seg_info[]; };
// measure_runs' state, kept zeroed between calls: segments done per slot
// are words [N, 2N); the slot's last segment resets its word.
layout(std430, binding = 6) coherent buffer State { uint state[]; };
layout(push_constant) uniform Push { uint nslots, nx, ny, small, seg, max_segments; } p;

const uint PER = 8;  // pixels per invocation of a segment: seg = workgroup size * PER

const uint ACCS = 6;  // sum, shifted sum, shifted squares, v*z, v*y, v*x
const uint ROW = 2 * ACCS + 16;
const uint HEAD = 4;

struct Partial {
    uint n;
    ACC acc[ACCS];
    F minv, maxv;
    uint mini, maxi;
    uvec3 lo, hi;  // (x, y, z)
};

#if defined(KILN_DTYPE_float64)
void acc_add(inout double a, double x) { a += x; }
void acc_mul_add(inout double a, double x, double y) { a += x * y; }
void acc_merge(inout double a, double b) { a += b; }
ACC acc_zero() { return 0.0lf; }
uvec2 acc_bits(double a) { return unpackDouble2x32(a); }
double acc_from(uvec2 b) { return packDouble2x32(b); }
#else
// Neumaier's compensated sum: the rounding error of each addition is kept.
void acc_add(inout vec2 a, float x) {
    precise float t = a.x + x;
    precise float e = abs(a.x) >= abs(x) ? (a.x - t) + x : (x - t) + a.x;
    a = vec2(t, a.y + e);
}
// x * y with the product's own rounding error (fma) kept as well.
void acc_mul_add(inout vec2 a, float x, float y) {
    precise float prod = x * y;
    precise float err = fma(x, y, -prod);
    acc_add(a, prod);
    a.y += err;
}
void acc_merge(inout vec2 a, vec2 b) {
    acc_add(a, b.x);
    a.y += b.y;
}
ACC acc_zero() { return vec2(0.0); }
uvec2 acc_bits(vec2 a) { return floatBitsToUint(a); }
vec2 acc_from(uvec2 b) { return uintBitsToFloat(b); }
#endif

Partial empty_partial() {
    Partial e;
    e.n = 0;
    for (uint k = 0; k < ACCS; ++k) e.acc[k] = acc_zero();
    e.minv = e.maxv = F(0);
    e.mini = e.maxi = 0;
    e.lo = e.hi = uvec3(0);
    return e;
}

F value(uvec2 raw) {
    if (KIND == 0) return F(uintBitsToFloat(raw.x));
    if (KIND == 2) return F(int(raw.x));
    if (KIND == 3) return F(raw.x);
#if defined(KILN_DTYPE_float64)
    return packDouble2x32(raw);
#else
    return 0.0;  // the host runs float64 images with float64 accumulation only
#endif
}

#if defined(KILN_DTYPE_float64)
uvec2 bits_of(double v) { return unpackDouble2x32(v); }
double from_bits(uvec2 b) { return packDouble2x32(b); }
#else
uvec2 bits_of(float v) { return uvec2(floatBitsToUint(v), 0u); }
float from_bits(uvec2 b) { return uintBitsToFloat(b.x); }
#endif

// Pixel i with its raw value.
void add_pixel(inout Partial pt, uint i, uvec2 raw, F shift) {
    F v = value(raw);
    if (isnan(v)) return;
    F k = v;
    uvec3 c = uvec3(i % p.nx, (i / p.nx) % p.ny, i / (p.nx * p.ny));
    if (pt.n == 0) {
        pt.minv = pt.maxv = k;
        pt.mini = pt.maxi = i;
        pt.lo = pt.hi = c;
    } else {
        if (k < pt.minv || (k == pt.minv && i < pt.mini)) {
            pt.minv = k;
            pt.mini = i;
        }
        if (k > pt.maxv || (k == pt.maxv && i < pt.maxi)) {
            pt.maxv = k;
            pt.maxi = i;
        }
        pt.lo = min(pt.lo, c);
        pt.hi = max(pt.hi, c);
    }
    pt.n += 1;
    F d = v - shift;
    acc_add(pt.acc[0], v);
    acc_add(pt.acc[1], d);
    acc_mul_add(pt.acc[2], d, d);
    acc_mul_add(pt.acc[3], v, F(c.z));
    acc_mul_add(pt.acc[4], v, F(c.y));
    acc_mul_add(pt.acc[5], v, F(c.x));
}

void merge(inout Partial a, Partial b) {
    if (b.n == 0) return;
    if (a.n == 0) {
        a = b;
        return;
    }
    a.n += b.n;
    for (uint k = 0; k < ACCS; ++k) acc_merge(a.acc[k], b.acc[k]);
    if (b.minv < a.minv || (b.minv == a.minv && b.mini < a.mini)) {
        a.minv = b.minv;
        a.mini = b.mini;
    }
    if (b.maxv > a.maxv || (b.maxv == a.maxv && b.maxi < a.maxi)) {
        a.maxv = b.maxv;
        a.maxi = b.maxi;
    }
    a.lo = min(a.lo, b.lo);
    a.hi = max(a.hi, b.hi);
}

// The same layout serves the segment partials and the table rows.
#define STORE(BUF, at, pt)                                                  \
    {                                                                       \
        uint b_ = (at);                                                     \
        for (uint k_ = 0; k_ < ACCS; ++k_) {                                \
            uvec2 w_ = acc_bits((pt).acc[k_]);                              \
            BUF[b_ + 2 * k_] = w_.x;                                        \
            BUF[b_ + 2 * k_ + 1] = w_.y;                                    \
        }                                                                   \
        b_ += 2 * ACCS;                                                     \
        uvec2 mn_ = bits_of((pt).minv), mx_ = bits_of((pt).maxv);             \
        BUF[b_ + 0] = (pt).n;                                               \
        BUF[b_ + 1] = (pt).mini;                                            \
        BUF[b_ + 2] = (pt).maxi;                                            \
        for (uint d_ = 0; d_ < 3; ++d_) {                                   \
            BUF[b_ + 3 + d_] = (pt).lo[d_];                                 \
            BUF[b_ + 6 + d_] = (pt).hi[d_];                                 \
        }                                                                   \
        BUF[b_ + 9] = mn_.x;                                                \
        BUF[b_ + 10] = mn_.y;                                               \
        BUF[b_ + 11] = mx_.x;                                               \
        BUF[b_ + 12] = mx_.y;                                               \
        BUF[b_ + 13] = 0u;                                                  \
        BUF[b_ + 14] = 0u;                                                  \
        BUF[b_ + 15] = 0u;                                                  \
    }

Partial load_partial(uint row) {
    Partial pt;
    uint b = row * ROW;
    for (uint k = 0; k < ACCS; ++k)
        pt.acc[k] = acc_from(uvec2(parts[b + 2 * k], parts[b + 2 * k + 1]));
    b += 2 * ACCS;
    pt.n = parts[b + 0];
    pt.mini = parts[b + 1];
    pt.maxi = parts[b + 2];
    pt.lo = uvec3(parts[b + 3], parts[b + 4], parts[b + 5]);
    pt.hi = uvec3(parts[b + 6], parts[b + 7], parts[b + 8]);
    pt.minv = from_bits(uvec2(parts[b + 9], parts[b + 10]));
    pt.maxv = from_bits(uvec2(parts[b + 11], parts[b + 12]));
    return pt;
}

shared Partial s_part[gl_WorkGroupSize.x];  // one per subgroup is used
shared bool s_last;

uint count_of(uint l) { return lists[p.nslots + l] - lists[l]; }
// The first non-NaN value of a list of `count` from `start` (0 if there is none).
F shift_of(uint start, uint count) {
    F v = value(values[start]);
    for (uint j = start + 1; isnan(v) && j < start + count; ++j) v = value(values[j]);
    return isnan(v) ? F(0) : v;
}

Partial shuffle_xor(Partial a, uint d) {
    Partial b;
    b.n = subgroupShuffleXor(a.n, d);
    for (uint k = 0; k < ACCS; ++k) b.acc[k] = subgroupShuffleXor(a.acc[k], d);
    b.minv = subgroupShuffleXor(a.minv, d);
    b.maxv = subgroupShuffleXor(a.maxv, d);
    b.mini = subgroupShuffleXor(a.mini, d);
    b.maxi = subgroupShuffleXor(a.maxi, d);
    b.lo = subgroupShuffleXor(a.lo, d);
    b.hi = subgroupShuffleXor(a.hi, d);
    return b;
}

// Combines every invocation's partial into s_part[0], in a fixed order:
// a butterfly within each subgroup, then the subgroups' results in turn.
void reduce_workgroup(Partial pt) {
    for (uint d = 1; d < gl_SubgroupSize; d *= 2) merge(pt, shuffle_xor(pt, d));
    barrier();  // s_part may still be read from the last use
    if (gl_SubgroupInvocationID == 0) s_part[gl_SubgroupID] = pt;
    barrier();
    if (gl_LocalInvocationID.x == 0) {
        Partial all = s_part[0];
        for (uint k = 1; k < gl_NumSubgroups; ++k) merge(all, s_part[k]);
        s_part[0] = all;
    }
    barrier();
}

void reduce_segment(uint w, uvec4 info) {
    const uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    const uint nslots = p.nslots;
    const uint l = info.x, first_seg = info.y, count = info.z, list0 = info.w;
    const uint segments = (count + p.seg - 1) / p.seg;
    const uint start = list0 + (w - first_seg) * p.seg;
    const uint end = min(list0 + count, start + p.seg);
    // Every load of the segment is issued before the first is used.
    uint idx[PER];
    uvec2 raw[PER];
    [[unroll]] for (uint k = 0; k < PER; ++k) {
        const uint j = start + lid + k * wg;
        idx[k] = j < end ? sorted[j] : 0u;
        raw[k] = j < end ? values[j] : uvec2(0u);
    }
    const F shift = shift_of(list0, count);
    Partial pt = empty_partial();
    [[unroll]] for (uint k = 0; k < PER; ++k)
        if (start + lid + k * wg < end) add_pixel(pt, idx[k], raw[k], shift);
    // Phase 0 reduces the segment; phase 1, in the workgroup that completes
    // the slot's last segment, combines the slot's segments. One loop keeps
    // one copy of the reduction in the shader.
    [[dont_unroll]] for (uint phase = 0; phase < 2; ++phase) {
        reduce_workgroup(pt);
        if (phase == 1 || segments == 1) {
            if (lid == 0) STORE(out_words, HEAD + l * ROW, s_part[0]);
            break;
        }
        if (lid == 0) {
            STORE(parts, w * ROW, s_part[0]);
            memoryBarrierBuffer();
            s_last = atomicAdd(state[nslots + l], 1) == segments - 1;
            if (s_last) state[nslots + l] = 0u;  // every segment has counted itself
        }
        barrier();
        if (!s_last) break;
        memoryBarrierBuffer();
        pt = empty_partial();
        for (uint k = lid; k < segments; k += wg) merge(pt, load_partial(first_seg + k));
    }
    barrier();
}

void reduce_small_slot(uint l) {
    const uint count = count_of(l);
    if (count > p.small) return;  // finished by its last segment
    if (count == 0) return;  // main() writes its empty row
    Partial pt = empty_partial();
    const uint start = lists[l];
    const F shift = shift_of(start, count);
    for (uint j = start; j < start + count; ++j) add_pixel(pt, sorted[j], values[j], shift);
    STORE(out_words, HEAD + l * ROW, pt);
}

void main() {
    const uint segments = out_words[2];
    const uint groups = p.small > 0 ? (p.nslots + gl_WorkGroupSize.x - 1) / gl_WorkGroupSize.x : 0;
    for (uint w = gl_WorkGroupID.x; w < segments + groups; w += gl_NumWorkGroups.x) {
        // The segment's record is loaded along with the total, not after it.
        const uvec4 info = seg_info[min(w, p.max_segments - 1)];
        if (w < segments) {
            reduce_segment(w, info);
        } else {
            const uint l = (w - segments) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
            if (l < p.nslots) reduce_small_slot(l);
        }
    }
    // Counted from the last workgroup, which has the fewest segments.
    const uint wg = gl_WorkGroupSize.x;
    const uint from_end = gl_NumWorkGroups.x - 1 - gl_WorkGroupID.x;
    for (uint l = from_end * wg + gl_LocalInvocationID.x; l < p.nslots;
         l += gl_NumWorkGroups.x * wg)
        if (count_of(l) == 0) STORE(out_words, HEAD + l * ROW, empty_partial());
}
