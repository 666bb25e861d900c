#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Connected components, pass 2: joins the tile-local trees across tile
// borders with a lock-free union-find on global indices. One invocation per
// pixel on a tile face that has neighbours in another tile (faces bit 0: the
// first z plane, 1: first y row, 2: first x column, 3: last y row, 4: last x
// column); each adjacent pair in different tiles is joined from its later
// pixel. The earlier-neighbour offsets in use are the set bits of `offsets`
// (the list below, ordered by reach).
#include "grid.glsl"

layout(std430, binding = 0) coherent buffer Parent { uint parent[]; };
layout(push_constant) uniform Push {
    uint nx, ny, nz, tx, ty, tz, tiles_x, tiles_y, faces, offsets, total;
} p;

const uint BG = 0x7FFFFFFFu;
#include "label_offsets.glsl"

#define UF_PARENT parent
#include "union_find.glsl"

// Pixels on face f of a tile.
uint face_size(uint f) {
    if (f == 0) return p.tx * p.ty;
    return f == 1 || f == 3 ? p.tx * p.tz : p.ty * p.tz;
}

// The k-th border position of a tile, tile-local (x, y, z); faces may
// share edges, which only repeats a union.
uvec3 border_position(uint k) {
    for (uint f = 0; f < 5; ++f) {
        if ((p.faces & (1u << f)) == 0) continue;
        if (k >= face_size(f)) {
            k -= face_size(f);
            continue;
        }
        if (f == 0) return uvec3(k % p.tx, k / p.tx, 0);
        if (f == 1) return uvec3(k % p.tx, 0, k / p.tx);
        if (f == 2) return uvec3(0, k % p.ty, k / p.ty);
        if (f == 3) return uvec3(k % p.tx, p.ty - 1, k / p.tx);
        return uvec3(p.tx - 1, k % p.ty, k / p.ty);
    }
    return uvec3(0);
}

void main() {
    uint per_tile = 0;
    for (uint f = 0; f < 5; ++f)
        if ((p.faces & (1u << f)) != 0) per_tile += face_size(f);
    FOR_EACH_ELEMENT(g, p.total) {
        const uint tile = g / per_tile;
        const uvec3 t =
            uvec3(tile % p.tiles_x, (tile / p.tiles_x) % p.tiles_y, tile / (p.tiles_x * p.tiles_y));
        const uvec3 pos = t * uvec3(p.tx, p.ty, p.tz) + border_position(g % per_tile);
        if (pos.x >= p.nx || pos.y >= p.ny || pos.z >= p.nz) continue;
        const uint i = (pos.z * p.ny + pos.y) * p.nx + pos.x;
        if (parent[i] == BG) continue;
        [[dont_unroll]] for (uint m = p.offsets; m != 0; m &= m - 1) {
            const ivec3 q = ivec3(pos) + OFFSETS[findLSB(m)];
            if (any(lessThan(q, ivec3(0))) || q.x >= int(p.nx) || q.y >= int(p.ny)) continue;
            if (uvec3(q) / uvec3(p.tx, p.ty, p.tz) == t) continue;  // same tile: joined by pass 1
            const uint j = (uint(q.z) * p.ny + uint(q.y)) * p.nx + uint(q.x);
            if (parent[j] != BG) unite(i, j);
        }
    }
}
