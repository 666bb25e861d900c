#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// Connected components, pass 1: union-find inside one tile in shared memory.
// A tile is the workgroup times (1, ROWS, 1) pixels. Every pixel leaves with
// the global linear index of its tile-local root, or BG for background.
// Unions always link the larger root under the smaller, so a root is the
// smallest index of its component; local order within a tile is the global
// raster order, so that holds for the global indices written out too.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint ROWS = 1;  // image rows per invocation

layout(std430, binding = 0) readonly buffer Mask { T mask[]; };
layout(std430, binding = 1) writeonly buffer Parent { uint parent[]; };
// label_flatten's block counts: this pass zeroes the counter at their end.
layout(std430, binding = 2) writeonly buffer Blocks { uint block_roots[]; };
// The grid is the list of tiles folded into x and y (a long 1-D mask has more
// tiles than one grid axis allows).
// The earlier-neighbour offsets in use are the set bits of `offsets`.
layout(push_constant) uniform Push { uint nx, ny, nz, tiles_x, tiles_y, tiles, offsets, blocks; } p;

const uint BG = 0x7FFFFFFFu;
const uint LOCAL_BG = 0xFFFFFFFFu;
const uint TX = gl_WorkGroupSize.x;
const uint TY = gl_WorkGroupSize.y * ROWS;
const uint TZ = gl_WorkGroupSize.z;
shared uint s_parent[TX * TY * TZ];
#include "label_offsets.glsl"

#define UF_PARENT s_parent
#include "union_find.glsl"

bool is_foreground(uvec3 g) {
    if (g.x >= p.nx || g.y >= p.ny || g.z >= p.nz) return false;
    T v = mask[(g.z * p.ny + g.y) * p.nx + g.x];
    return !(v == T(0));  // NaN is foreground, as NumPy's nonzero
}

void main() {
    const uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (tile == 0 && gl_LocalInvocationIndex == 0) block_roots[p.blocks] = 0;
    if (tile >= p.tiles) return;  // the whole workgroup: no barrier is skipped by part of it
    const uvec3 t =
        uvec3(tile % p.tiles_x, (tile / p.tiles_x) % p.tiles_y, tile / (p.tiles_x * p.tiles_y));
    const uvec3 tile0 = t * uvec3(TX, TY, TZ);
    const uvec3 l = gl_LocalInvocationID;
    for (uint r = 0; r < ROWS; ++r) {
        uint ly = l.y + r * gl_WorkGroupSize.y;
        uint li = (l.z * TY + ly) * TX + l.x;
        s_parent[li] = is_foreground(tile0 + uvec3(l.x, ly, l.z)) ? li : LOCAL_BG;
    }
    barrier();
    for (uint r = 0; r < ROWS; ++r) {
        int ly = int(l.y + r * gl_WorkGroupSize.y);
        uint li = (l.z * TY + uint(ly)) * TX + l.x;
        if (s_parent[li] == LOCAL_BG) continue;
        // Earlier neighbours only: each adjacent pair is joined once.
        [[dont_unroll]] for (uint m = p.offsets; m != 0; m &= m - 1) {
            const ivec3 q = ivec3(l.x, ly, l.z) + OFFSETS[findLSB(m)];
            if (any(lessThan(q, ivec3(0))) || q.x >= int(TX) || q.y >= int(TY)) continue;
            const uint qi = (uint(q.z) * TY + uint(q.y)) * TX + uint(q.x);
            if (s_parent[qi] != LOCAL_BG) unite(li, qi);
        }
    }
    barrier();
    for (uint r = 0; r < ROWS; ++r) {
        uint ly = l.y + r * gl_WorkGroupSize.y;
        uvec3 g = tile0 + uvec3(l.x, ly, l.z);
        if (g.x >= p.nx || g.y >= p.ny || g.z >= p.nz) continue;
        uint li = (l.z * TY + ly) * TX + l.x;
        uint out_value = BG;
        if (s_parent[li] != LOCAL_BG) {
            uint root = find(li);
            uvec3 rg = tile0 + uvec3(root % TX, (root / TX) % TY, root / (TX * TY));
            out_value = (rg.z * p.ny + rg.y) * p.nx + rg.x;
        }
        parent[(g.z * p.ny + g.y) * p.nx + g.x] = out_value;
    }
}
