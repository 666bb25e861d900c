#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_control_flow_attributes : require
// Bitshuffle-LZ4 blocks: one workgroup per block (grid-stride over the block
// table). The compressed block is LZ4-decoded into shared memory by the whole
// workgroup (every invocation parses the same token stream, so control flow
// stays uniform; literal and match bytes are copied in parallel), then
// bit-unshuffled into the output. The compressed bytes are read where they
// lie (through the cache): staging them in shared memory too doubled a
// workgroup's shared memory, halved how many decode at once, and was 20%
// slower on an H200. Every length is checked before use: a corrupt block
// decodes only its own bytes and writes only its own range, and leaves an
// error code in flags[block] for the host.
#include "grid.glsl"

layout(constant_id = 3) const uint DST_CAP = 8192;  // bytes of one decoded block
layout(constant_id = 4) const uint ELEM = 4;        // element size in bytes
layout(constant_id = 5) const uint WORDS = 1;       // 1: block destinations are 4-byte aligned

// Per block: src offset, src size, dst offset, dst size | (raw << 31).
layout(std430, binding = 0) readonly buffer Src { uint8_t src[]; };
layout(std430, binding = 1) readonly buffer Table { uint count; uint pad0, pad1, pad2; uvec4 blocks[]; };
layout(std430, binding = 2) writeonly buffer Flags { uint flags[]; };
layout(std430, binding = 3) writeonly buffer OutWords { uint out_words[]; };
layout(std430, binding = 3) writeonly buffer OutBytes { uint8_t out_bytes[]; };
layout(push_constant) uniform P { uint src_bytes; uint dst_bytes; uint max_blocks; } p;

shared uint8_t s_dst[DST_CAP];

uint g_so;  // the block's first byte in src

// Byte i of the compressed block being decoded.
uint src_at(uint i) { return uint(src[g_so + i]); }

// Error codes, mirrored by the host's messages.
const uint E_TABLE = 1u, E_NO_LITERALS = 2u, E_LITERALS_PAST_END = 3u, E_TOO_LONG = 4u,
           E_OFFSET = 5u, E_TOO_SHORT = 6u, E_TRUNCATED = 7u;

void sync_shared() {
    memoryBarrierShared();
    barrier();
}

// Reads an LZ4 length extension (bytes of 255 continue it) onto len; 0 or an
// error code.
uint read_length(inout uint ip, uint ss, inout uint len, uint limit) {
    for (;;) {
        if (ip >= ss) return E_TRUNCATED;
        uint b = src_at(ip++);
        len += b;
        if (len > limit) return E_TOO_LONG;  // also keeps len far from overflow
        if (b != 255u) return 0u;
    }
}

// Decodes src[g_so, g_so + ss) into s_dst[0, ds). Writes are made visible
// lazily: a barrier only when a match reads bytes written since the last one.
uint lz4(uint ss, uint ds) {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    uint ip = 0u, op = 0u, synced = 0u;
    for (;;) {
        if (ip >= ss) return E_NO_LITERALS;
        const uint token = src_at(ip++);
        uint lit = token >> 4;
        if (lit == 15u) {
            uint e = read_length(ip, ss, lit, ds);
            if (e != 0u) return e;
        }
        if (lit > ss - ip) return E_LITERALS_PAST_END;
        if (lit > ds - op) return E_TOO_LONG;
        for (uint i = lid; i < lit; i += wg) s_dst[op + i] = uint8_t(src_at(ip + i));
        ip += lit;
        op += lit;
        if (ip == ss) break;  // the last sequence has literals only

        if (ss - ip < 2u) return E_TRUNCATED;
        const uint offset = src_at(ip) | (src_at(ip + 1u) << 8);
        ip += 2u;
        if (offset == 0u || offset > op) return E_OFFSET;
        uint len = token & 15u;
        if (len == 15u) {
            uint e = read_length(ip, ss, len, ds);
            if (e != 0u) return e;
        }
        len += 4u;
        if (len > ds - op) return E_TOO_LONG;
        const uint from = op - offset;
        // Every byte a match reads lies before op, so one barrier suffices.
        if (from + min(offset, len) > synced) {
            sync_shared();
            synced = op;
        }
        if (offset >= len) {
            for (uint i = lid; i < len; i += wg) s_dst[op + i] = s_dst[from + i];
        } else {
            // Overlapping: the last `offset` bytes repeat with that period.
            for (uint i = lid; i < len; i += wg) s_dst[op + i] = s_dst[from + i % offset];
        }
        op += len;
    }
    return op == ds ? 0u : E_TOO_SHORT;
}

// 8x8 bit transpose of the bytes of (lo, hi) (byte k of lo is row k, of hi
// row k + 4): afterwards byte m holds bit m of every row, row k in bit k.
void transpose8(inout uint lo, inout uint hi) {
    uint t = (lo ^ (lo >> 7)) & 0x00AA00AAu;
    lo ^= t ^ (t << 7);
    t = (hi ^ (hi >> 7)) & 0x00AA00AAu;
    hi ^= t ^ (t << 7);
    t = (lo ^ (lo >> 14)) & 0x0000CCCCu;
    lo ^= t ^ (t << 14);
    t = (hi ^ (hi >> 14)) & 0x0000CCCCu;
    hi ^= t ^ (t << 14);
    t = (lo ^ (hi << 4)) & 0xF0F0F0F0u;
    lo ^= t;
    hi ^= t >> 4;
}

// Bit-unshuffles the decoded block (row_bytes bytes per bit row) into the
// output at byte dofs. Invocation c takes elements 8c .. 8c + 7: for each
// byte j of an element, the bytes at column c of bit rows 8j .. 8j + 7,
// transposed, are byte j of the eight elements. Their 8 * ELEM bytes are
// contiguous in the output, so the stores of a subgroup are too.
void unshuffle(uint row_bytes, uint dofs) {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    for (uint c = lid; c < row_bytes; c += wg) {
        uint planes[16];  // (lo, hi) per element byte j; ELEM <= 8
        [[unroll]] for (uint j = 0u; j < ELEM; ++j) {
            uint lo = 0u, hi = 0u;
            [[unroll]] for (uint k = 0u; k < 4u; ++k) {
                lo |= uint(s_dst[(8u * j + k) * row_bytes + c]) << (8u * k);
                hi |= uint(s_dst[(8u * j + k + 4u) * row_bytes + c]) << (8u * k);
            }
            transpose8(lo, hi);
            planes[2u * j] = lo;
            planes[2u * j + 1u] = hi;
        }
        // Byte b of this group is element b / ELEM's byte b % ELEM.
        const uint base = dofs + 8u * ELEM * c;
        if (WORDS != 0u) {
            [[unroll]] for (uint w = 0u; w < 2u * ELEM; ++w) {
                uint word = 0u;
                [[unroll]] for (uint b = 0u; b < 4u; ++b) {
                    const uint m = (4u * w + b) / ELEM, j = (4u * w + b) % ELEM;
                    const uint v = m < 4u ? planes[2u * j] >> (8u * m) : planes[2u * j + 1u] >> (8u * (m - 4u));
                    word |= (v & 0xFFu) << (8u * b);
                }
                out_words[(base >> 2) + w] = word;
            }
        } else {
            [[unroll]] for (uint b = 0u; b < 8u * ELEM; ++b) {
                const uint m = b / ELEM, j = b % ELEM;
                const uint v = m < 4u ? planes[2u * j] >> (8u * m) : planes[2u * j + 1u] >> (8u * (m - 4u));
                out_bytes[base + b] = uint8_t(v & 0xFFu);
            }
        }
    }
}

void main() {
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    const uint n_blocks = min(count, p.max_blocks);  // a table never pushed holds anything
    for (uint b = gl_WorkGroupID.x; b < n_blocks; b += gl_NumWorkGroups.x) {
        const uvec4 blk = blocks[b];
        const uint so = blk.x, ss = blk.y, dofs = blk.z, ds = blk.w & 0x7fffffffu;
        const bool raw = (blk.w >> 31) != 0u;
        uint err = 0u;
        if (ss > p.src_bytes || so > p.src_bytes - ss || ds > p.dst_bytes || dofs > p.dst_bytes - ds) {
            err = E_TABLE;
        } else if (raw) {
            if (ss != ds) err = E_TABLE;
            else for (uint i = lid; i < ds; i += wg) out_bytes[dofs + i] = src[so + i];
        } else if (ds > DST_CAP || ds % (8u * ELEM) != 0u || ss == 0u) {
            err = E_TABLE;
        } else {
            g_so = so;
            err = lz4(ss, ds);
            sync_shared();
            if (err == 0u) unshuffle(ds / (8u * ELEM), dofs);
        }
        if (lid == 0u) flags[b] = err;
        sync_shared();  // the next block of this workgroup reuses shared memory
    }
}
