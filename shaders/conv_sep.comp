#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
//! variants: float32 float64
// A separable convolution of a (B, H, W) array (C order), one pass along y
// and one along x in one dispatch:
//   out[b, m, n] = sum_k wx[k] * mid[b, m, n + ox - k]
//   mid[b, m, q] = sum_j wy[j] * in[b, m + oy - j, q]   (q mapped by the x mode)
// Rows and columns outside the input are taken as the modes say; a
// column outside in constant mode gives mid = cval_mid (cval for ndimage's
// pass after pass, cval * sum(wy) for a 2-D fill). KX == 1: the y pass alone.
// KY == 1: the x pass alone.
//
// Each workgroup makes a tile of TH x TW outputs. Stage 1 runs the y pass
// down the tile's columns (and the KX - 1 halo columns), each invocation PY
// consecutive rows from PY + KY - 1 coalesced loads, into the shared
// intermediate; the x pass alone (KY == 1) copies its rows there instead,
// by 16-byte loads (each invocation reading its overlapping window straight
// from memory was slower on the H200). Stage 2 runs the x pass, each
// invocation PX consecutive outputs from one window of PX + KX - 1 values.
// The intermediate holds a row's column c at (c % PX) * S + c / PX, so that
// both stages' accesses are free of bank conflicts. Tap counts, the tile
// shape and where the weights are are specialization constants, so the loops
// unroll and the weights' indices are constants; modes and weights' values
// come in push constants, so that they cost no new pipeline.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint KY = 1;       // taps along y
layout(constant_id = 4) const uint KX = 1;       // taps along x
layout(constant_id = 5) const uint PY = 1;       // output rows per invocation
layout(constant_id = 6) const uint NV = 1;       // 16-byte vectors of outputs per invocation
// Where the weights are: 0 push constants, 1 the buffer, 2 all ones. Known
// when the pipeline is made, their indices are constants: push-constant
// weights become operands of the multiply-adds, no registers.
layout(constant_id = 7) const uint WSRC_Y = 0;
layout(constant_id = 8) const uint WSRC_X = 0;
// 1: only w[0 .. K/2] stored, w[j] = w[K-1-j]; 2: the same with
// w[j] = -w[K-1-j] (antisymmetric: odd derivatives).
layout(constant_id = 9) const uint SYM_Y = 0;
layout(constant_id = 10) const uint SYM_X = 0;

#if defined(KILN_DTYPE_float64)
#define V dvec2
const uint VW = 2;
#else
#define V vec4
const uint VW = 4;
#endif

layout(std430, binding = 0) readonly buffer In { T src[]; };
// The same buffer by 16-byte vectors, for the x pass alone.
layout(std430, binding = 0) readonly buffer InV { V srcv[]; };
layout(std430, binding = 1) writeonly buffer Out { T dst[]; };
// The same buffer by 16-byte vectors: stage 2 stores its PX consecutive
// outputs as vectors where they start on one, else (float32) by pairs
// where they start on 8 bytes: one float per store was 3 times slower for
// numpy.convolve's full output of 4M + 14 floats (0.042 against 0.013 ms
// for 4M on the H200).
layout(std430, binding = 1) writeonly buffer OutV { V dstv[]; };
#if !defined(KILN_DTYPE_float64)
layout(std430, binding = 1) writeonly buffer OutV2 { vec2 dstv2[]; };
#endif
layout(std430, binding = 2) readonly buffer Wt { T wbuf[]; };
layout(push_constant) uniform P {
    uvec2 cval;      // T bits
    uvec2 cval_mid;  // T bits
    uint B, H, W, OH, OW;
    int oy, ox;
    uint modes;      // y | x << 4: 0 constant, 1 reflect, 2 nearest, 3 mirror, 4 wrap
    uint w[20];      // weights as T bits (two words each for float64)
} p;

const uint LX = gl_WorkGroupSize.x;
const uint LY = gl_WorkGroupSize.y;
const uint PX = NV * VW;
const uint TW = LX * PX;
const uint TH = LY * PY;
const uint MIDW = TW + KX - 1;
// A row of the intermediate: PX runs of S values, S = 8 (mod 32) so that
// stage 1's stores of LX consecutive columns spread over the banks.
const uint S0 = (MIDW + PX - 1) / PX;
const uint S = S0 + (40 - S0 % 32) % 32;
const uint ROW = PX * S;
shared T mid[KX > 1 ? TH * ROW : 1];
// The x pass alone reads a tile's row as vectors from a0 = q0 - shift (the
// vector boundary at or below its first column q0): MIDWV of them cover any
// shift.
const uint MIDWV = (MIDW + 2 * VW - 2) / VW;

#include "boundary.glsl"

// Whether columns a0 .. a0 + MIDWV * VW - 1 are inside every row, which
// starts on a vector: then a tile's rows load as vectors.
bool vector_rows(int a0) {
    return a0 >= 0 && a0 + int(MIDWV * VW) <= int(p.W) && p.W % VW == 0;
}

T weight(uint src, uint i) {
    if (src == 2) return T(1);
    if (src == 1) return wbuf[i];
#if defined(KILN_DTYPE_float64)
    return packDouble2x32(uvec2(p.w[2 * i], p.w[2 * i + 1]));
#else
    return uintBitsToFloat(p.w[i]);
#endif
}

// x follows y's stored weights when both come from the same place.
const uint WOFF_X = WSRC_X == WSRC_Y ? (SYM_Y != 0 ? (KY + 1) / 2 : KY) : 0;
// j and k are constants in the unrolled loops: the signs fold away.
T wy(uint j) {
    const T w = weight(WSRC_Y, SYM_Y != 0 ? min(j, KY - 1 - j) : j);
    return SYM_Y == 2 && j > KY - 1 - j ? -w : w;
}
T wx(uint k) {
    const T w = weight(WSRC_X, WOFF_X + (SYM_X != 0 ? min(k, KX - 1 - k) : k));
    return SYM_X == 2 && k > KX - 1 - k ? -w : w;
}

// Stage 1 of the x pass alone: row r of the tile (input row `row`, -1 for
// cval) times the single wy into the intermediate. The loads are unrolled,
// so that they are in flight together.
void copy_row(uint base, uint r, int row, int q0, uint shift, uint mode_x, T cval, T cval_mid) {
    const uint tx = gl_LocalInvocationID.x;
    const T w0 = wy(0);
    const int a0 = q0 - int(shift);
    if (row >= 0 && vector_rows(a0)) {
        const uint at = (base + uint(row) * p.W + uint(a0)) / VW;
        [[unroll]] for (uint k = 0; k < (MIDWV + LX - 1) / LX; ++k) {
            const uint u = tx + k * LX;
            if (u < MIDWV) {
                const V v = srcv[at + u];
                [[unroll]] for (uint c = 0; c < VW; ++c) {
                    const uint s = u * VW + c - shift;
                    if (s < MIDW) mid[r * ROW + (s % PX) * S + s / PX] = w0 * v[c];
                }
            }
        }
    } else {
        [[unroll]] for (uint k = 0; k < (MIDW + LX - 1) / LX; ++k) {
            const uint s = tx + k * LX;
            if (s < MIDW) {
                const int col = ext_index(q0 + int(s), int(p.W), mode_x);
                mid[r * ROW + (s % PX) * S + s / PX] =
                    col < 0 ? cval_mid
                            : w0 * (row < 0 ? cval : src[base + uint(row) * p.W + uint(col)]);
            }
        }
    }
}

void main() {
    const T cval = SCALAR_T(p.cval), cval_mid = SCALAR_T(p.cval_mid);
    const uint mode_y = p.modes & 15, mode_x = p.modes >> 4;
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    const uint tiles_x = (p.OW + TW - 1) / TW, tiles_y = (p.OH + TH - 1) / TH;
    for (uint b = gl_WorkGroupID.z; b < p.B; b += gl_NumWorkGroups.z)
    for (uint tile_y = gl_WorkGroupID.y; tile_y < tiles_y; tile_y += gl_NumWorkGroups.y)
    for (uint tile_x = gl_WorkGroupID.x; tile_x < tiles_x; tile_x += gl_NumWorkGroups.x) {
        const uint base = b * p.H * p.W, out_base = b * p.OH * p.OW;
        const int m0 = int(tile_y * TH), n0 = int(tile_x * TW);
        const int q0 = n0 + p.ox - int(KX - 1);
        const uint shift = uint(q0 % int(VW) + int(VW)) % VW;
        if (KY == 1 && KX > 1) {
            [[dont_unroll]] for (uint i = 0; i < PY; ++i) {
                const uint r = ty * PY + i;
                const int m = m0 + int(r);
                if (m >= int(p.OH)) break;
                copy_row(base, r, ext_index(m + p.oy, int(p.H), mode_y), q0, shift, mode_x, cval,
                         cval_mid);
            }
            barrier();
        }
        const int row0 = m0 + int(ty * PY) + p.oy - int(KY - 1);
        // Whether every row the tile reads is inside: then no mapping.
        const bool rows_inside = m0 + p.oy - int(KY - 1) >= 0 && m0 + int(TH) + p.oy <= int(p.H);
        // Stage 1: the y pass down the tile's columns (with KX == 1 straight
        // to the output, times the single wx), and the halo's.
        const uint columns = KX == 1 ? min(TW, uint(max(int(p.OW) - n0, 0))) : KY > 1 ? MIDW : 0;
        for (uint s = tx; s < columns; s += LX) {
            const int col = ext_index(q0 + int(s), int(p.W), mode_x);
            T acc[PY];
            [[unroll]] for (uint i = 0; i < PY; ++i) acc[i] = col < 0 ? cval_mid : T(0);
            if (col >= 0) {
                // All loads first, so that they are in flight together.
                T v[PY + KY - 1];
                if (rows_inside) {
                    [[unroll]] for (uint t = 0; t < PY + KY - 1; ++t)
                        v[t] = src[base + uint(row0 + int(t)) * p.W + uint(col)];
                } else {
                    [[unroll]] for (uint t = 0; t < PY + KY - 1; ++t) {
                        const int r = ext_index(row0 + int(t), int(p.H), mode_y);
                        v[t] = r < 0 ? cval : src[base + uint(r) * p.W + uint(col)];
                    }
                }
                [[unroll]] for (uint t = 0; t < PY + KY - 1; ++t)
                    [[unroll]] for (uint i = 0; i < PY; ++i) {
                        const int j = int(i) + int(KY) - 1 - int(t);
                        if (j >= 0 && j < int(KY)) acc[i] += wy(j) * v[t];
                    }
            }
            if (KX == 1) {
                [[unroll]] for (uint i = 0; i < PY; ++i) {
                    const int m = m0 + int(ty * PY + i);
                    if (m < int(p.OH))
                        dst[out_base + uint(m) * p.OW + uint(n0) + s] = wx(0) * acc[i];
                }
            } else {
                const uint at = (s % PX) * S + s / PX;
                [[unroll]] for (uint i = 0; i < PY; ++i) mid[(ty * PY + i) * ROW + at] = acc[i];
            }
        }
        if (KX == 1) continue;
        if (KY > 1) barrier();
        // Stage 2: the x pass, PX consecutive outputs per invocation; rows one
        // at a time (not unrolled), which keeps the registers few.
        const int n = n0 + int(tx * PX);
        [[dont_unroll]] for (uint i = 0; i < PY; ++i) {
            const uint r = ty * PY + i;
            const int m = m0 + int(r);
            if (m >= int(p.OH)) break;
            T win[PX + KX - 1];
            [[unroll]] for (uint q = 0; q < PX + KX - 1; ++q)
                win[q] = mid[r * ROW + (q % PX) * S + tx + q / PX];
            T acc[PX];
            [[unroll]] for (uint o = 0; o < PX; ++o) {
                acc[o] = T(0);
                [[unroll]] for (uint k = 0; k < KX; ++k) acc[o] += wx(k) * win[o + KX - 1 - k];
            }
            const uint at = out_base + uint(m) * p.OW + uint(n);
            const bool whole = n + int(PX) <= int(p.OW);
            if (whole && at % VW == 0) {
                [[unroll]] for (uint v = 0; v < NV; ++v) {
                    V vec;
                    [[unroll]] for (uint c = 0; c < VW; ++c) vec[c] = acc[v * VW + c];
                    dstv[at / VW + v] = vec;
                }
#if !defined(KILN_DTYPE_float64)
            } else if (whole && at % 2 == 0) {
                [[unroll]] for (uint v = 0; v < PX / 2; ++v)
                    dstv2[at / 2 + v] = vec2(acc[2 * v], acc[2 * v + 1]);
#endif
            } else {
                [[unroll]] for (uint o = 0; o < PX; ++o)
                    if (n + int(o) < int(p.OW)) dst[at + o] = acc[o];
            }
        }
        barrier();
    }
}
