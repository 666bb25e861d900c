#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
// Watershed, label round (after the flood has converged): every element
// that is not fixed takes the smallest nonzero label among its neighbours
// of least F. On images without plateaus those neighbours all carry one
// label, the label of the neighbour skimage's heap pops first (see
// kiln/watershed.hpp). Labels only decrease (0 counting as none), so the
// in-place rounds reach the same fixed point in any order; the tile
// iterates in shared memory until stable, as ws_flood.
#include "grid.glsl"
#define CHANGED_BINDING 3
#include "ws_tile.glsl"

layout(std430, binding = 0) readonly buffer Level { uint level[]; };
layout(std430, binding = 1) readonly buffer Fixed { uint8_t fixed_[]; };
layout(std430, binding = 2) buffer Labels { int labels[]; };

shared int s_label[HALO];

void main() {
    if (!round_runs()) return;
    for (uint h = gl_LocalInvocationIndex; h < HALO; h += HALO_STEP) {
        const int at = halo_global(h);
        s_level[h] = at >= 0 ? level[at] : 0xFFFFFFFFu;
        s_label[h] = at >= 0 ? labels[at] : 0;
    }
    const ivec3 origin = ivec3(tile_origin());
    barrier();
    // The neighbours of least F, as bits of OFFSETS; none for fixed elements.
    uint lowest[ROWS], start[ROWS];
    const uint count = offset_count();
    for (uint r = 0; r < ROWS; ++r) {
        const ivec3 l = own_position(r);
        const ivec3 g = origin + l;
        start[r] = uint(s_label[halo_index(l)]);
        lowest[r] = 0;
        if (!in_image(g) || uint(fixed_[global_index(g)]) != 0) continue;
        uint low = 0xFFFFFFFFu;
        for (uint k = 0; k < count; ++k) low = min(low, s_level[halo_index(l + OFFSETS[k])]);
        for (uint k = 0; k < count; ++k)
            if (s_level[halo_index(l + OFFSETS[k])] == low) lowest[r] |= 1u << k;
    }
    bool mine;
    do {
        mine = sweep_begin();
        for (uint r = 0; r < ROWS; ++r) {
            const ivec3 l = own_position(r);
            const uint at = halo_index(l);
            int best = s_label[at];
            for (uint m = lowest[r]; m != 0; m &= m - 1) {
                const int n = s_label[halo_index(l + OFFSETS[findLSB(m)])];
                if (n != 0 && (best == 0 || n < best)) best = n;
            }
            if (best != s_label[at]) {
                s_label[at] = best;
                mine = true;
            }
        }
    } while (sweep_again(mine));
    WRITE_BACK(labels, s_label, origin, start);
}
