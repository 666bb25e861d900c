#version 450
#extension GL_GOOGLE_include_directive : require
// Watershed, flood round: F(p) = max(key(p), min over neighbours F(n)),
// the least possible highest value on a path from a marker (a marker's F is
// its own key, the least F can be, so markers never change). Iterated in
// shared memory until the tile is stable, against the halo read at the
// start; changed elements go back to the global array in place. Other tiles
// may read an element before or after it is lowered: both are bounds from
// above, so the fixed point is the same, and a round that changed nothing
// anywhere means every tile saw a stable neighbourhood.
#include "grid.glsl"
#define CHANGED_BINDING 2
#include "ws_tile.glsl"

layout(std430, binding = 0) readonly buffer Key { uint key[]; };
layout(std430, binding = 1) buffer Level { uint level[]; };

void main() {
    if (!round_runs()) return;
    for (uint h = gl_LocalInvocationIndex; h < HALO; h += HALO_STEP) {
        const int at = halo_global(h);
        s_level[h] = at >= 0 ? level[at] : 0xFFFFFFFFu;
    }
    const ivec3 origin = ivec3(tile_origin());
    uint own_key[ROWS], start[ROWS];
    for (uint r = 0; r < ROWS; ++r) {
        const ivec3 g = origin + own_position(r);
        own_key[r] = in_image(g) ? key[global_index(g)] : 0xFFFFFFFFu;
    }
    barrier();
    for (uint r = 0; r < ROWS; ++r) start[r] = s_level[halo_index(own_position(r))];
    const uint count = offset_count();
    bool mine;
    do {
        mine = sweep_begin();
        for (uint r = 0; r < ROWS; ++r) {
            const ivec3 l = own_position(r);
            uint low = 0xFFFFFFFFu;
            for (uint k = 0; k < count; ++k) low = min(low, s_level[halo_index(l + OFFSETS[k])]);
            const uint f = max(own_key[r], low);
            const uint at = halo_index(l);
            if (f < s_level[at]) {
                s_level[at] = f;
                mine = true;
            }
        }
    } while (sweep_again(mine));
    WRITE_BACK(level, s_level, origin, start);
}
