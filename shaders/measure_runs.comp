#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_vote : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// Per-label measurements, the passes over the pixels. Each subgroup walks a
// chunk of consecutive pixels one subgroup-wide step at a time, cuts it into
// runs of pixels feeding the same result slot and acts once per run:
//   MODE 0: counts the pixels of each slot;
//   MODE 2: (one workgroup, no pixels) lays out the lists from the counts
//           (offsets()) and writes the header;
//   MODE 1: writes the pixel indices grouped by slot (a counting sort) at
//           the slot's cursor, which starts at the slot's list offset, and
//           beside them the pixel values as raw words (raw() below), so the
//           reduction reads its values in order and needs no image type.
// A run that reaches the end of a step stays open and grows into the next,
// so a label covering a whole chunk costs one atomic, not one per pixel; a
// chunk without a measured label (the background) costs its loads alone.
// NaN pixels are listed too; measure_reduce skips them.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint MODE = 0;
// 0: slot = label - 1; 1: the slot is looked up in the index keys.
layout(constant_id = 4) const uint SLOTS = 0;
const uint STEPS = 4;                          // subgroup-wide steps per chunk

layout(std430, binding = 0) readonly buffer Labels { int labels[]; };
layout(std430, binding = 1) readonly buffer Image { T image[]; };
layout(std430, binding = 2) readonly buffer Keys { int keys[]; };  // sorted label values
layout(std430, binding = 3) readonly buffer KeySlots { int key_slots[]; };
// out: a header of HEAD words (0, pixels, segments, labels), which MODE 2
// writes, then the table (ROW words per slot, see measure_reduce).
layout(std430, binding = 4) writeonly buffer Out { uint out_words[]; };
// lists: offsets [0, N), cursors [N, 2N).
layout(std430, binding = 5) buffer Lists { uint lists[]; };
layout(std430, binding = 6) writeonly buffer Sorted { uint sorted[]; };
layout(std430, binding = 7) writeonly buffer Values { uvec2 values[]; };
// Each segment: its slot, the slot's first segment, count and list offset.
layout(std430, binding = 8) writeonly buffer SegInfo { uvec4 seg_info[]; };
// The number of labels on the device (device_count 1), for the header.
layout(std430, binding = 9) readonly buffer Count { int label_count; };
// The state the context keeps zeroed between calls: counts [0, N), then
// segments done [N, 2N) (measure_reduce's). Every word is zero on entry and
// is reset to zero by its last user (here MODE 2 for the counts).
layout(std430, binding = 10) coherent buffer State { uint state[]; };
layout(push_constant) uniform Push { uint n, nslots, nkeys, small, seg, device_count; } p;

shared uvec2 s_sub[gl_WorkGroupSize.x];

const uint HEAD = 4;

int slot_of(int l) {
    int s = -1;
    if (SLOTS == 0) {
        if (l >= 1 && uint(l) <= p.nslots) s = l - 1;
    } else {
        uint lo = 0, hi = p.nkeys;
        while (lo < hi) {
            uint mid = (lo + hi) / 2;
            if (keys[mid] < l) lo = mid + 1;
            else hi = mid;
        }
        if (lo < p.nkeys && keys[lo] == l) s = key_slots[lo];
    }
    return s;
}

// A value as two words: float32 bits, float64 bits, or an integer widened
// to 32 bits (sign-extended for signed types).
uvec2 raw(T v) {
#if defined(KILN_DTYPE_float64)
    return unpackDouble2x32(v);
#elif defined(KILN_DTYPE_float32)
    return uvec2(floatBitsToUint(v), 0u);
#elif defined(T_INT)
    return uvec2(uint(int(v)), 0u);
#else
    return uvec2(uint(v), 0u);
#endif
}

void put(uint at, uint i) {
    sorted[at] = i;
    values[at] = raw(image[i]);
}

// MODE 0: one invocation counts a run of `len` pixels from `start`.
void count_run(int s, uint len) { atomicAdd(state[s], len); }

// The whole subgroup acts for a run (its arguments are uniform).
void flush_all(int s, uint start, uint len) {
    if (MODE == 0) {
        if (subgroupElect()) count_run(s, len);
    } else {
        uint base = 0;
        if (subgroupElect()) base = atomicAdd(lists[p.nslots + s], len);
        base = subgroupBroadcastFirst(base);
        for (uint k = gl_SubgroupInvocationID; k < len; k += gl_SubgroupSize)
            put(base + k, start + k);
    }
}

uint lowest_bit(uvec4 m) {
    for (uint c = 0; c < 4; ++c)
        if (m[c] != 0) return c * 32 + uint(findLSB(m[c]));
    return 0xFFFFFFFFu;
}

uint highest_bit(uvec4 m) {
    for (int c = 3; c >= 0; --c)
        if (m[c] != 0) return uint(c) * 32 + uint(findMSB(m[c]));
    return 0xFFFFFFFFu;
}

void walk_chunk(uint c) {
    const uint sg = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
    const uint chunk0 = c * sg * STEPS;
    // All of the chunk's loads are issued at once to find out whether it
    // holds a measured label at all; the steps below read them again from
    // the cache (keeping them would take an array in local memory).
    bool any = SLOTS == 1;
    [[unroll]] for (uint step = 0; step < STEPS; ++step) {
        const uint i = chunk0 + step * sg + lane;
        const int l = i < p.n ? labels[i] : 0;
        any = any || (l >= 1 && uint(l) <= p.nslots);
    }
    if (!subgroupAny(any)) return;
    int open_s = -1;
    uint open_start = 0, open_len = 0;
    // Not unrolled: one copy of the run logic keeps the shader small.
    [[dont_unroll]] for (uint step = 0; step < STEPS; ++step) {
        const uint base = chunk0 + step * sg;
        if (base >= p.n) break;
        const uint i = base + lane;
        const int s = i < p.n ? slot_of(labels[i]) : -1;
        if (!subgroupAny(s >= 0)) {
            if (open_len > 0) flush_all(open_s, open_start, open_len);
            open_len = 0;
            continue;
        }
        // The shuffle runs in every lane, never behind `lane == 0 ||`: a
        // short-circuit would leave lane 0 inactive for it, and lane 1's
        // value from an inactive lane is undefined. On NVIDIA it came back
        // equal to lane 1's own, so lane 1 joined lane 0's run whatever its
        // label (counts off by a pixel per step; lavapipe evaluates both
        // sides, so it never showed there).
        const int before = subgroupShuffleUp(s, 1);
        const bool head = lane == 0 || before != s;
        const uvec4 heads = subgroupBallot(head);
        const uint len = min(lowest_bit(heads & gl_SubgroupGtMask), sg) - lane;
        const int s0 = subgroupBroadcast(s, 0);
        const uint len0 = subgroupBroadcast(len, 0);
        const uint last = highest_bit(heads);
        const int s_last = subgroupShuffle(s, last);

        const bool extends = open_len > 0 && s0 == open_s;
        if (extends && last == 0) {
            open_len += sg;  // the whole step continues the open run
            continue;
        }
        if (open_len > 0) {
            flush_all(open_s, open_start, open_len + (extends ? len0 : 0));
            open_len = 0;
        }
        // Runs inside the step (not the first if it joined the open run,
        // not the last, which may continue into the next step).
        const uint my_head = highest_bit(heads & gl_SubgroupLeMask);
        const bool inner = s >= 0 && my_head != last && !(my_head == 0 && extends);
        if (MODE == 0) {
            if (inner && head) count_run(s, len);
        } else {
            // The head reserves the run's place; every pixel writes its own
            // (its value loaded while the reservation is under way).
            const uvec2 v = inner ? raw(image[i]) : uvec2(0);
            uint at = 0;
            if (inner && head) at = atomicAdd(lists[p.nslots + s], len);
            at = subgroupShuffle(at, my_head) + lane - my_head;
            if (inner) {
                sorted[at] = i;
                values[at] = v;
            }
        }
        if (s_last >= 0) {
            open_s = s_last;
            open_start = base + last;
            open_len = sg - last;
        }
    }
    if (open_len > 0) flush_all(open_s, open_start, open_len);
}

uint segments(uint count) { return count > p.small ? (count + p.seg - 1) / p.seg : 0u; }

// Exclusive prefix of x over the workgroup; `sum` gets the total.
#define SCAN_T uvec2
#define SCAN_LAST_SUMS s_sub
#include "workgroup_scan.glsl"

// MODE 2, one workgroup, once every count is in: each slot's
// list offset (and the scatter's cursor, starting there) and, for slots of
// more than `small` pixels, its segments of at most `seg` pixels for
// measure_reduce (seg_info); the totals go to the header.
void offsets() {
    const uint PER = 4;  // slots per invocation per round, their loads issued together
    const uint nslots = p.nslots;
    uvec2 carry = uvec2(0);
    for (uint base = 0; base < nslots; base += gl_WorkGroupSize.x * PER) {
        const uint start = base + gl_LocalInvocationID.x * PER;
        uint count[PER];
        [[unroll]] for (uint k = 0; k < PER; ++k)
            count[k] = start + k < nslots ? state[start + k] : 0u;
        // The counts' last use: zero again for the next call.
        [[unroll]] for (uint k = 0; k < PER; ++k)
            if (start + k < nslots) state[start + k] = 0u;
        uvec2 mine = uvec2(0);
        [[unroll]] for (uint k = 0; k < PER; ++k) mine += uvec2(count[k], segments(count[k]));
        uvec2 round_sum;
        uvec2 run = carry + workgroup_exclusive(mine, round_sum);
        [[unroll]] for (uint k = 0; k < PER; ++k) {
            const uint i = start + k;
            if (i >= nslots) break;
            lists[i] = run.x;
            lists[nslots + i] = run.x;
            for (uint j = 0; j < segments(count[k]); ++j)
                seg_info[run.y + j] = uvec4(i, run.y, count[k], run.x);
            run += uvec2(count[k], segments(count[k]));
        }
        carry += round_sum;
    }
    if (gl_LocalInvocationID.x == 0) {
        out_words[0] = 0u;
        out_words[1] = carry.x;
        out_words[2] = carry.y;
        out_words[3] = p.device_count == 1 ? uint(max(label_count, 0)) : nslots;
    }
}

void main() {
    // A pass of its own: the last workgroup of MODE 0 laying out the lists
    // would cost every one of its (thousands of) workgroups a barrier, a
    // memory barrier and an atomic on one counter, which on a large GPU is
    // more than a dependent dispatch (about 4 us of the 2048^2 benchmark).
    if (MODE == 2) {
        offsets();
        return;
    }
    const uint chunks = (p.n + gl_SubgroupSize * STEPS - 1) / (gl_SubgroupSize * STEPS);
    const uint stride = gl_NumWorkGroups.x * gl_NumSubgroups;
    const uint first = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
    for (uint c = first; c < chunks; c += stride) walk_chunk(c);
}
