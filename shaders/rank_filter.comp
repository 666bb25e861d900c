#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// scipy.ndimage.rank_filter of a (Z, Y, X) array (C order): out[z, y, x] is
// the element of sorted index K among in[z + dz, y + dy, x + dx] over the
// footprint's offsets, positions outside mapped as the mode says (the
// constant: cval). The footprint comes as its bounding box KD x KH x KW,
// whose corner sits at offset (oz, oy, ox) from each output, and which
// elements of the box belong to it.
//
// Each workgroup makes a tile of TH x TW outputs of one plane: it loads the
// tile and its halo (KD planes of TH + KH - 1 rows of TW + KW - 1 columns)
// once into shared memory as order-preserving uint keys, so that each
// element is read from memory about once, and every comparison after is a
// plain uint compare. Each invocation makes PX consecutive outputs of a row.
// Column c of a shared row sits at (c % PX) * S + c / PX, so that the
// invocations of a subgroup reading their windows' q-th column touch
// consecutive words (no bank conflicts).
//
// Selection, one of two (NET, see engine/ops/rank_filters.cpp for the
// choice):
// NET = 1, footprints of up to 64 elements whose box holds at most 64: the
// window's keys into registers and Batcher's odd-even merge sort over P2
// (the next power of two) keys, the missing ones all-ones constants; the
// network is written out (rank_network.glsl), no loops to unroll; the
// median of 9 takes Paeth's 19 compare-exchanges instead. K, the
// box and its membership (MASK0/MASK1) are specialization constants: the
// loops unroll completely, so that the compiler folds the compare-exchanges
// with the constants and drops every one that does not lead to key K.
// NET = 0: bisection on the key's bits, highest first: the answer's key is
// the largest c with #{keys < c} <= K, found one bit per pass with one
// count over the window; the PX outputs of an invocation share each row's
// loads. A pass per key bit below those every key of the tile shares (at
// most 8, 16, 32 or 64 by dtype).
// Keys are uint, or uint64_t for float64 (shaderInt64: the host refuses
// float64 without it); the tile then takes twice the shared memory.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint KD = 1;
layout(constant_id = 4) const uint KH = 1;
layout(constant_id = 5) const uint KW = 1;
layout(constant_id = 6) const uint PX = 1;      // outputs per invocation along x
layout(constant_id = 7) const uint K = 0;       // the rank
layout(constant_id = 8) const uint NET = 0;
layout(constant_id = 9) const uint LOG2_P2 = 1; // NET: log2 of the keys sorted (a power of two >= the count)
layout(constant_id = 10) const uint IS_BOX = 1;
layout(constant_id = 11) const uint MASK0 = 0;  // NET, not a box: membership of box elements 0-31
layout(constant_id = 12) const uint MASK1 = 0;  // and 32-63
layout(constant_id = 13) const uint COUNT = 1;  // the footprint's elements

// Elements as stored: the bits of 32- and 64-bit ones, 8- and 16-bit ones
// as T; KEY, the order-preserving key they are compared as.
#if defined(KILN_DTYPE_float64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define RAW uint64_t
#define KEY uint64_t
#define KEY_BITS 64
#elif defined(KILN_DTYPE_float32) || defined(KILN_DTYPE_int32) || defined(KILN_DTYPE_uint32)
#define RAW uint
#else
#define RAW T
#endif
#if !defined(KEY)
#define KEY uint
#define KEY_BITS 32
#endif
const KEY KEY_ONES = ~KEY(0);

layout(std430, binding = 0) readonly buffer In { RAW src[]; };
layout(std430, binding = 1) writeonly buffer Out { RAW dst[]; };
// Not a box and NET = 0: per row (dz, dy) of the box, MW words of
// membership bits (bit dx % 16 of word dx / 16), as float32 values (the
// host writes them as it writes weights).
layout(std430, binding = 2) readonly buffer Mask { float mask[]; };
layout(push_constant) uniform P {
    uvec2 cval_key;  // the key of cval converted to T (low, high word)
    uint Z, Y, X;
    int oz, oy, ox;
    uint mode;       // 0 constant, 1 reflect, 2 nearest, 3 mirror, 4 wrap
} p;

const uint P2 = 1u << LOG2_P2;
const uint LX = gl_WorkGroupSize.x;
const uint LY = gl_WorkGroupSize.y;
const uint TW = LX * PX;
const uint TH = LY;
const uint SW = TW + KW - 1;  // columns of a shared row
const uint SH = TH + KH - 1;  // rows of a shared plane
const uint S0 = (SW + PX - 1) / PX;
// S = 32 / PX (mod 32): the loads' stores of consecutive columns, which go
// to PX runs, fall in disjoint banks.
const uint S = S0 + (32 / PX + 32 - S0 % 32) % 32;
const uint ROW = PX * S;
shared KEY tile[KD * SH * ROW];
shared uint tile_and[2], tile_or[2];  // of the tile's keys, low and high words (NET = 0)
const uint MW = (KW + 15) / 16;

#include "boundary.glsl"

KEY key_of(RAW r) {
#if defined(KILN_DTYPE_float64)
    return (r >> 63) != 0 ? ~r : r | (uint64_t(1) << 63);
#elif defined(KILN_DTYPE_float32)
    // Sign-magnitude to two's order: negatives reversed below positives.
    return (r & 0x80000000u) != 0u ? ~r : r | 0x80000000u;
#elif defined(KILN_DTYPE_int32)
    return r ^ 0x80000000u;
#elif defined(KILN_DTYPE_int16)
    return uint(int(r) + 32768);
#elif defined(KILN_DTYPE_int8)
    return uint(int(r) + 128);
#else
    return uint(r);
#endif
}

RAW raw_of(KEY k) {
#if defined(KILN_DTYPE_float64)
    return (k >> 63) != 0 ? k & ~(uint64_t(1) << 63) : ~k;
#elif defined(KILN_DTYPE_float32)
    return (k & 0x80000000u) != 0u ? k & 0x7fffffffu : ~k;
#elif defined(KILN_DTYPE_int32)
    return k ^ 0x80000000u;
#elif defined(KILN_DTYPE_int16)
    return T(int(k) - 32768);
#elif defined(KILN_DTYPE_int8)
    return T(int(k) - 128);
#else
    return RAW(k);
#endif
}

uint shared_at(uint plane, uint row, uint col) {
    return (plane * SH + row) * ROW + (col % PX) * S + col / PX;
}

bool member(uint i) {
    if (IS_BOX != 0) return true;
    return ((i < 32 ? MASK0 >> i : MASK1 >> (i - 32)) & 1u) != 0;
}

#include "rank_network.glsl"

KEY select_net(uint tx, uint ty, uint o) {
    KEY v[64];  // as sort_network takes them; those past P2 are never touched
    uint n = 0;
    [[unroll]] for (uint dz = 0; dz < KD; ++dz)
        [[unroll]] for (uint dy = 0; dy < KH; ++dy)
            [[unroll]] for (uint dx = 0; dx < KW; ++dx)
                if (member((dz * KH + dy) * KW + dx))
                    v[n++] = tile[shared_at(dz, ty + dy, tx * PX + o + dx)];
    [[unroll]] for (uint i = n; i < P2; ++i) v[i] = KEY_ONES;
    if (COUNT == 9 && K == 4)
        median9_network(v);
    else
        sort_network(v);
    return v[K];
}

// The bits the tile's keys (halo and cval included) all share are those
// of every answer: the bisection starts below them.
// A key from its low and high words (the high one unused for 32-bit keys).
KEY key_from(uint lo, uint hi) {
#if KEY_BITS == 64
    return uint64_t(hi) << 32 | uint64_t(lo);
#else
    return lo;
#endif
}

void select_bisect(uint tx, uint ty, out KEY prefix[PX]) {
#if KEY_BITS == 64
    const int top = tile_and[1] != tile_or[1] ? 32 + findMSB(tile_and[1] ^ tile_or[1])
                                              : findMSB(tile_and[0] ^ tile_or[0]);
#else
    const int top = findMSB(tile_and[0] ^ tile_or[0]);
#endif
    const KEY high = top >= KEY_BITS - 1 ? KEY(0) : KEY_ONES << uint(top + 1);
    [[unroll]] for (uint o = 0; o < PX; ++o) prefix[o] = key_from(tile_and[0], tile_and[1]) & high;
    [[dont_unroll]] for (int b = top; b >= 0; --b) {
        KEY cand[PX];
        uint count[PX];
        [[unroll]] for (uint o = 0; o < PX; ++o) {
            cand[o] = prefix[o] | (KEY(1) << uint(b));
            count[o] = 0;
        }
        for (uint dz = 0; dz < KD; ++dz)
            for (uint dy = 0; dy < KH; ++dy) {
                KEY w[PX + KW - 1];
                [[unroll]] for (uint q = 0; q < PX + KW - 1; ++q)
                    w[q] = tile[shared_at(dz, ty + dy, tx * PX + q)];
                const uint mrow = (dz * KH + dy) * MW;
                [[unroll]] for (uint dx = 0; dx < KW; ++dx)
                    if (IS_BOX != 0 || ((uint(mask[mrow + dx / 16]) >> (dx % 16)) & 1u) != 0)
                        [[unroll]] for (uint o = 0; o < PX; ++o) count[o] += uint(w[o + dx] < cand[o]);
            }
        [[unroll]] for (uint o = 0; o < PX; ++o)
            if (count[o] <= K) prefix[o] = cand[o];
    }
}

void main() {
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    const uint threads = LX * LY, tid = ty * LX + tx;
    const uint tiles_x = (p.X + TW - 1) / TW, tiles_y = (p.Y + TH - 1) / TH;
    for (uint z = gl_WorkGroupID.z; z < p.Z; z += gl_NumWorkGroups.z)
    for (uint tile_y = gl_WorkGroupID.y; tile_y < tiles_y; tile_y += gl_NumWorkGroups.y)
    for (uint tile_x = gl_WorkGroupID.x; tile_x < tiles_x; tile_x += gl_NumWorkGroups.x) {
        const int y0 = int(tile_y * TH), x0 = int(tile_x * TW);
        // The tile and its halo, as keys; consecutive invocations load
        // consecutive columns.
        if (NET == 0 && tid < 2) {
            tile_and[tid] = ~0u;
            tile_or[tid] = 0u;
        }
        if (NET == 0) barrier();
        KEY all_and = KEY_ONES, all_or = KEY(0);
        const KEY cval_key = key_from(p.cval_key.x, p.cval_key.y);
        for (uint e = tid; e < KD * SH * SW; e += threads) {
            const uint c = e % SW, r = (e / SW) % SH, pl = e / (SW * SH);
            const int iz = ext_index(int(z) + p.oz + int(pl), int(p.Z), p.mode);
            const int iy = ext_index(y0 + p.oy + int(r), int(p.Y), p.mode);
            const int ix = ext_index(x0 + p.ox + int(c), int(p.X), p.mode);
            const KEY key = iz < 0 || iy < 0 || ix < 0
                                ? cval_key
                                : key_of(src[(uint(iz) * p.Y + uint(iy)) * p.X + uint(ix)]);
            tile[shared_at(pl, r, c)] = key;
            all_and &= key;
            all_or |= key;
        }
        if (NET == 0) {
            atomicAnd(tile_and[0], uint(all_and));
            atomicOr(tile_or[0], uint(all_or));
#if KEY_BITS == 64
            atomicAnd(tile_and[1], uint(all_and >> 32));
            atomicOr(tile_or[1], uint(all_or >> 32));
#endif
        }
        barrier();
        const uint y = uint(y0) + ty;
        if (y < p.Y) {
            const uint at = (z * p.Y + y) * p.X + uint(x0) + tx * PX;
            if (NET != 0) {
                [[dont_unroll]] for (uint o = 0; o < PX; ++o)
                    if (uint(x0) + tx * PX + o < p.X) dst[at + o] = raw_of(select_net(tx, ty, o));
            } else {
                KEY keys[PX];
                select_bisect(tx, ty, keys);
                [[unroll]] for (uint o = 0; o < PX; ++o)
                    if (uint(x0) + tx * PX + o < p.X) dst[at + o] = raw_of(keys[o]);
            }
        }
        barrier();
    }
}
