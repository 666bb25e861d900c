#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
//! variants: float32 float64
// A general 2-D convolution of a (B, H, W) array (C order) with a KH x KW
// kernel (row-major):
//   out[b, m, n] = sum_j sum_k kern[j, k] * in[b, m + oy - j, n + ox - k]
// positions outside the input taken as the modes say.
//
// TILED: each workgroup stages its input tile and halo, (TH + KH - 1) x
// (TW + KW - 1), and the kernel in shared memory; each invocation makes PY
// consecutive rows of PX columns (LX apart, so shared reads do not collide),
// and every value read from the tile serves up to KH outputs held in
// registers. KH and KW are specialization constants.
// Direct (TILED = 0): one output per invocation, the kernel's size from push
// constants; for kernels too large for shared memory.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint KH = 1;
layout(constant_id = 4) const uint KW = 1;
layout(constant_id = 5) const uint PY = 1;
layout(constant_id = 6) const uint PX = 1;
layout(constant_id = 7) const uint TILED = 1;

layout(std430, binding = 0) readonly buffer In { T src[]; };
layout(std430, binding = 1) readonly buffer Kern { T kern[]; };
layout(std430, binding = 2) writeonly buffer Out { T dst[]; };
layout(push_constant) uniform P {
    uint B, H, W, OH, OW;
    int oy, ox;
    uint kh, kw;  // the kernel's size (direct)
    uint modes;   // mode y | mode x << 4: 0 constant, 1 reflect, 2 nearest, 3 mirror, 4 wrap
    uvec2 cval;   // T bits
} p;

const uint LX = gl_WorkGroupSize.x;
const uint LY = gl_WorkGroupSize.y;
const uint TW = LX * PX;
const uint TH = LY * PY;
const uint TWP = TW + KW - 1;
const uint THP = TH + KH - 1;
shared T tile[TILED != 0 ? THP * TWP : 1];
shared T ks[TILED != 0 ? KH * KW : 1];

#include "boundary.glsl"

T load(uint base, int row, int col, T cval) {
    int r = ext_index(row, int(p.H), p.modes & 15), c = ext_index(col, int(p.W), p.modes >> 4);
    return (r < 0 || c < 0) ? cval : src[base + uint(r) * p.W + uint(c)];
}

void direct(T cval) {
    const uint per_image = p.OH * p.OW;
    FOR_EACH_ELEMENT(i, p.B * per_image) {
        uint b = i / per_image, rest = i - b * per_image;
        int m = int(rest / p.OW), n = int(rest % p.OW);
        T acc = T(0);
        for (uint j = 0; j < p.kh; ++j)
            for (uint k = 0; k < p.kw; ++k)
                acc += kern[j * p.kw + k] *
                       load(b * p.H * p.W, m + p.oy - int(j), n + p.ox - int(k), cval);
        dst[i] = acc;
    }
}

void main() {
    const T cval = SCALAR_T(p.cval);
    if (TILED == 0) {
        direct(cval);
        return;
    }
    const uint lid = gl_LocalInvocationIndex, threads = LX * LY;
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    for (uint i = lid; i < KH * KW; i += threads) ks[i] = kern[i];
    const uint tiles_x = (p.OW + TW - 1) / TW, tiles_y = (p.OH + TH - 1) / TH;
    for (uint b = gl_WorkGroupID.z; b < p.B; b += gl_NumWorkGroups.z)
    for (uint tile_y = gl_WorkGroupID.y; tile_y < tiles_y; tile_y += gl_NumWorkGroups.y)
    for (uint tile_x = gl_WorkGroupID.x; tile_x < tiles_x; tile_x += gl_NumWorkGroups.x) {
        const uint base = b * p.H * p.W;
        const int m0 = int(tile_y * TH), n0 = int(tile_x * TW);
        const int row0 = m0 + p.oy - int(KH - 1), col0 = n0 + p.ox - int(KW - 1);
        for (uint i = lid; i < THP * TWP; i += threads) {
            uint r = i / TWP, c = i - r * TWP;
            tile[i] = load(base, row0 + int(r), col0 + int(c), cval);
        }
        barrier();
        T acc[PY * PX];
        [[unroll]] for (uint i = 0; i < PY * PX; ++i) acc[i] = T(0);
        for (uint k = 0; k < KW; ++k) {
            T w[KH];
            [[unroll]] for (uint j = 0; j < KH; ++j) w[j] = ks[j * KW + k];
            [[unroll]] for (uint x = 0; x < PX; ++x) {
                const uint col = tx + x * LX + KW - 1 - k;
                [[unroll]] for (uint t = 0; t < PY + KH - 1; ++t) {
                    T v = tile[(ty * PY + t) * TWP + col];
                    [[unroll]] for (uint i = 0; i < PY; ++i) {
                        int j = int(i) + int(KH) - 1 - int(t);
                        if (j >= 0 && j < int(KH)) acc[x * PY + i] += w[j] * v;
                    }
                }
            }
        }
        [[unroll]] for (uint x = 0; x < PX; ++x)
            [[unroll]] for (uint i = 0; i < PY; ++i) {
                int m = m0 + int(ty * PY + i), n = n0 + int(tx + x * LX);
                if (m < int(p.OH) && n < int(p.OW))
                    dst[b * p.OH * p.OW + uint(m) * p.OW + uint(n)] = acc[x * PY + i];
            }
        barrier();
    }
}
