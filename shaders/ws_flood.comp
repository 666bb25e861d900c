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
#include "ws_tile.glsl"

layout(std430, binding = 0) readonly buffer Key { uint key[]; };
layout(std430, binding = 1) buffer Level { uint level[]; };
layout(std430, binding = 2) buffer Changed { uint changed[]; };

shared uint s_level[HALO];
shared bool s_changed;

void main() {
    if (!tile_exists() || changed[p.round_] == 0) return;  // uniform per workgroup
    const ivec3 origin = ivec3(tile_origin());
    for (uint h = gl_LocalInvocationIndex; h < HALO; h += TX * gl_WorkGroupSize.y * TZ) {
        const ivec3 g = origin + halo_position(h);
        s_level[h] = in_image(g) ? level[global_index(g)] : 0xFFFFFFFFu;
    }
    uint own_key[ROWS], start[ROWS];
    for (uint r = 0; r < ROWS; ++r) {
        const ivec3 g = origin + own_position(r);
        own_key[r] = in_image(g) ? key[global_index(g)] : 0xFFFFFFFFu;
    }
    barrier();
    for (uint r = 0; r < ROWS; ++r) start[r] = s_level[halo_index(own_position(r))];
    const uint count = offset_count();
    while (true) {
        if (gl_LocalInvocationIndex == 0) s_changed = false;
        barrier();
        bool mine = false;
        for (uint r = 0; r < ROWS; ++r) {
            const ivec3 l = own_position(r);
            const uint at = halo_index(l);
            uint low = 0xFFFFFFFFu;
            for (uint k = 0; k < count; ++k) low = min(low, s_level[halo_index(l + OFFSETS[k])]);
            const uint f = max(own_key[r], low);
            if (f < s_level[at]) {
                s_level[at] = f;
                mine = true;
            }
        }
        if (mine) s_changed = true;
        barrier();
        const bool again = s_changed;
        barrier();  // everyone has read s_changed before it is cleared
        if (!again) break;
    }
    bool wrote = false;
    for (uint r = 0; r < ROWS; ++r) {
        const ivec3 l = own_position(r);
        const ivec3 g = origin + l;
        const uint f = s_level[halo_index(l)];
        if (in_image(g) && f < start[r]) {
            level[global_index(g)] = f;
            wrote = true;
        }
    }
    if (wrote) changed[p.round_ + 1] = 1;
}
