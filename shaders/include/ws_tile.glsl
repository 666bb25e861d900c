// Shared by the watershed's tile passes (ws_flood, ws_label): a tile of
// the workgroup times (1, ROWS, 1) elements plus a one-element halo in
// shared memory, the neighbour offsets of a connectivity, and the
// changed-flag protocol: round r runs only if round r - 1 changed
// something (changed[r] != 0) and reports into changed[r + 1], so a batch
// of rounds recorded at once costs next to nothing past convergence.
// A kernel defines CHANGED_BINDING (the binding of its changed flags)
// before it includes this file.
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 3) const uint ROWS = 1;

layout(push_constant) uniform Push {
    uint nx, ny, nz, tiles_x, tiles_y, tiles;
    uint reach;   // a neighbour differs in at most this many coordinates
    uint round_;
} p;

const uint TX = gl_WorkGroupSize.x;
const uint TY = gl_WorkGroupSize.y * ROWS;
const uint TZ = gl_WorkGroupSize.z;
const uint HX = TX + 2, HY = TY + 2, HZ = TZ + 2;
const uint HALO = HX * HY * HZ;

// The 26 offsets, those differing in fewer coordinates first.
const ivec3 OFFSETS[26] = ivec3[](
    ivec3(-1, 0, 0), ivec3(1, 0, 0), ivec3(0, -1, 0), ivec3(0, 1, 0), ivec3(0, 0, -1), ivec3(0, 0, 1),
    ivec3(-1, -1, 0), ivec3(1, -1, 0), ivec3(-1, 1, 0), ivec3(1, 1, 0), ivec3(-1, 0, -1), ivec3(1, 0, -1),
    ivec3(-1, 0, 1), ivec3(1, 0, 1), ivec3(0, -1, -1), ivec3(0, 1, -1), ivec3(0, -1, 1), ivec3(0, 1, 1),
    ivec3(-1, -1, -1), ivec3(1, -1, -1), ivec3(-1, 1, -1), ivec3(1, 1, -1), ivec3(-1, -1, 1),
    ivec3(1, -1, 1), ivec3(-1, 1, 1), ivec3(1, 1, 1));
uint offset_count() { return p.reach == 1 ? 6u : p.reach == 2 ? 18u : 26u; }

uvec3 tile_origin() {
    const uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    return uvec3(tile % p.tiles_x, (tile / p.tiles_x) % p.tiles_y, tile / (p.tiles_x * p.tiles_y)) *
           uvec3(TX, TY, TZ);
}
bool tile_exists() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x < p.tiles; }

bool in_image(ivec3 g) {
    return all(greaterThanEqual(g, ivec3(0))) && g.x < int(p.nx) && g.y < int(p.ny) && g.z < int(p.nz);
}
uint global_index(ivec3 g) { return (uint(g.z) * p.ny + uint(g.y)) * p.nx + uint(g.x); }
// Tile-local position (-1 .. T) in the halo array.
uint halo_index(ivec3 l) { return (uint(l.z + 1) * HY + uint(l.y + 1)) * HX + uint(l.x + 1); }
ivec3 halo_position(uint h) { return ivec3(h % HX, (h / HX) % HY, h / (HX * HY)) - ivec3(1); }
// This invocation's r-th element, tile-local.
ivec3 own_position(uint r) {
    return ivec3(gl_LocalInvocationID.x, gl_LocalInvocationID.y + r * gl_WorkGroupSize.y,
                 gl_LocalInvocationID.z);
}

layout(std430, binding = CHANGED_BINDING) buffer Changed { uint changed[]; };

// Whether this workgroup runs this round: its tile exists and the round
// before changed something somewhere (uniform per workgroup).
bool round_runs() { return tile_exists() && changed[p.round_] != 0; }
// Tells the next round that this invocation wrote back changed elements.
void report_written(bool wrote) {
    if (wrote) changed[p.round_ + 1] = 1;
}

// The tile's sweeps in shared memory:
//   bool mine;
//   do { mine = sweep_begin(); ...; mine = true where this invocation
//        changed an element; } while (sweep_again(mine));
// sweep_again says whether anyone did (uniform), so the tile sweeps again.
shared bool s_changed;
bool sweep_begin() {
    if (gl_LocalInvocationIndex == 0) s_changed = false;
    barrier();
    return false;
}
bool sweep_again(bool mine) {
    if (mine) s_changed = true;
    barrier();
    const bool again = s_changed;
    barrier();  // everyone has read s_changed before it is cleared
    return again;
}
// The workgroup's invocations share the halo's loads:
// for (uint h = gl_LocalInvocationIndex; h < HALO; h += HALO_STEP).
const uint HALO_STEP = TX * gl_WorkGroupSize.y * TZ;
// The global index of halo element h, or -1 where it lies outside the image.
int halo_global(uint h) {
    const ivec3 g = ivec3(tile_origin()) + halo_position(h);
    return in_image(g) ? int(global_index(g)) : -1;
}
// F (the flood level) of the tile and its halo, in both passes.
shared uint s_level[HALO];
// After the sweeps: writes this invocation's elements of the tile array
// SHARED that differ from their values at the start (uint start[ROWS]) back
// to the global array GLOBAL, and tells the next round if any did. Values
// only move one way in both passes, so "differs" is "moved".
#define WRITE_BACK(GLOBAL, SHARED, origin, start)                              \
    {                                                                          \
        bool wrote = false;                                                    \
        for (uint r = 0; r < ROWS; ++r) {                                      \
            const ivec3 g = origin + own_position(r);                          \
            const uint at = halo_index(own_position(r));                       \
            if (in_image(g) && uint(SHARED[at]) != start[r]) {                 \
                GLOBAL[global_index(g)] = SHARED[at];                          \
                wrote = true;                                                  \
            }                                                                  \
        }                                                                      \
        report_written(wrote);                                                 \
    }
