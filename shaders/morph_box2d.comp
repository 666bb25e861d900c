#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// A KZ x KY x KX box minimum or maximum of a (B, H, W) array in one pass
// (scipy.ndimage's separable 1-D passes, fused; KZ = 1: each image alone):
//   out[b, m, n] = min_{k < KZ, j < KY, i < KX} in[b + loz + k, m + loy + j, n + lox + i]
// positions outside as the mode says (min and max are exact, so the
// fused box equals SciPy's pass after pass, cval included).
// Each workgroup stages a tile of (TH + KY - 1) x (TW + KX - 1) inputs in
// shared memory (one global read per input, halo included), takes the
// column minima of KY rows into a second buffer (each invocation PY rows of
// a column), then the row minima of KX columns (each invocation PY
// consecutive outputs of a row; TW = LX, a multiple of PY). Values shared
// by an invocation's outputs are read from shared memory once, into
// registers: PY + K - 1 reads for PY outputs instead of PY K.
#include "dtype.glsl"
#include "grid.glsl"
#include "boundary.glsl"
#include "morph.glsl"

layout(constant_id = 3) const uint MINIMUM = 1;
layout(constant_id = 4) const uint KY = 1;
layout(constant_id = 5) const uint KX = 1;
layout(constant_id = 6) const uint PY = 8;
layout(constant_id = 7) const uint KZ = 1;

layout(std430, binding = 0) readonly buffer In { T src[]; };
layout(std430, binding = 1) writeonly buffer Out { T dst[]; };
layout(push_constant) uniform P {
    uvec2 cval;  // T bits
    uint B, H, W_, mode;
    int loz, loy, lox;
} p;

const uint LX = gl_WorkGroupSize.x;
const uint LY = gl_WorkGroupSize.y;
const uint TW = LX;
const uint TH = LY * PY;
const uint AW = TW + KX - 1;
const uint AH = TH + KY - 1;
const uint RV = PY + KY - 1;
const uint RH = PY + KX - 1;
shared W tile[AH * AW];
shared W cols[TH * AW];

void main() {
    const bool minimum = MINIMUM != 0;
    const W cval = W(SCALAR_T(p.cval));
    const uint lid = gl_LocalInvocationIndex, threads = LX * LY;
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    const uint tiles_x = (p.W_ + TW - 1) / TW, tiles_y = (p.H + TH - 1) / TH;
    for (uint b = gl_WorkGroupID.z; b < p.B; b += gl_NumWorkGroups.z)
    for (uint tile_y = gl_WorkGroupID.y; tile_y < tiles_y; tile_y += gl_NumWorkGroups.y)
    for (uint tile_x = gl_WorkGroupID.x; tile_x < tiles_x; tile_x += gl_NumWorkGroups.x) {
        const uint base = b * p.H * p.W_;
        const int y0 = int(tile_y * TH) + p.loy, x0 = int(tile_x * TW) + p.lox;
        for (uint i = lid; i < AH * AW; i += threads) {
            const int r = ext_index(y0 + int(i / AW), int(p.H), p.mode),
                      c = ext_index(x0 + int(i % AW), int(p.W_), p.mode);
            W v = cval;
            // A volume's z axis folds in here: the neighbouring planes' reads
            // of the same column hit the cache.
            [[unroll]] for (uint j = 0; j < KZ; ++j) {
                const int z = KZ == 1 ? int(b) : ext_index(int(b) + p.loz + int(j), int(p.B), p.mode);
                const W u = (r < 0 || c < 0 || z < 0) ? cval : W(src[(uint(z) * p.H + uint(r)) * p.W_ + uint(c)]);
                v = j == 0 ? u : pick(v, u, minimum);
            }
            tile[i] = v;
        }
        barrier();
        // Column minima: each invocation runs down PY rows of a column,
        // holding the PY + KY - 1 values they share in registers.
        for (uint c = tx; c < AW; c += LX) {
            W v[RV];
            [[unroll]] for (uint j = 0; j < RV; ++j) v[j] = tile[(ty * PY + j) * AW + c];
            [[unroll]] for (uint r = 0; r < PY; ++r) {
                W best = v[r];
                [[unroll]] for (uint j = 1; j < KY; ++j) best = pick(best, v[r + j], minimum);
                cols[(ty * PY + r) * AW + c] = best;
            }
        }
        barrier();
        // Row minima: PY consecutive outputs of one row per invocation, the
        // PY + KX - 1 values they share in registers.
        const uint per_row = TW / PY, row = lid / per_row, c0 = (lid % per_row) * PY;
        const uint m = tile_y * TH + row, n0 = tile_x * TW + c0;
        W v[RH];
        [[unroll]] for (uint i = 0; i < RH; ++i) v[i] = cols[row * AW + c0 + i];
        [[unroll]] for (uint o = 0; o < PY; ++o) {
            W best = v[o];
            [[unroll]] for (uint i = 1; i < KX; ++i) best = pick(best, v[o + i], minimum);
            if (m < p.H && n0 + o < p.W_) dst[base + m * p.W_ + n0 + o] = T(best);
        }
        barrier();
    }
}
