#version 450
#extension GL_GOOGLE_include_directive : require
// One step of pyclesperanto's onlyzero_overwrite_maximum (dilate_labels,
// masked Voronoi labelling): a pixel of value 0 takes the largest value in
// its neighbourhood, the box (BOX = 1: 3x3, 3x3x3) or the diamond (BOX = 0:
// the 4 or 6 face neighbours); other pixels keep theirs. Only axes longer
// than 1 have neighbours. Negative values block growth (the Voronoi mask).
// flags[iter] = 1 when a pixel changed; with `check`, a step whose previous
// step changed nothing only copies (pyclesperanto stops there), so a batch of
// steps can be recorded without reading flags back in between and its last
// output is the result.
#include "grid.glsl"

layout(constant_id = 3) const uint BOX = 1;

layout(std430, binding = 0) readonly buffer S { int src[]; };
layout(std430, binding = 1) writeonly buffer D { int dst[]; };
layout(std430, binding = 2) buffer F { uint flags[]; };
layout(push_constant) uniform Push { uint nx, ny, nz, iter, check; } p;

void main() {
    const bool stopped = p.check != 0 && flags[p.iter - 1] == 0;
    const uint n = p.nx * p.ny * p.nz;
    const int rx = p.nx > 1 ? 1 : 0, ry = p.ny > 1 ? 1 : 0, rz = p.nz > 1 ? 1 : 0;
    bool changed = false;
    FOR_EACH_ELEMENT(i, n) {
        const int v = src[i];
        int best = v;
        if (v == 0 && !stopped) {
            const int x = int(i % p.nx), row = int(i / p.nx), y = row % int(p.ny), z = row / int(p.ny);
            for (int dz = -rz; dz <= rz; ++dz)
                for (int dy = -ry; dy <= ry; ++dy)
                    for (int dx = -rx; dx <= rx; ++dx) {
                        if (BOX == 0 && abs(dx) + abs(dy) + abs(dz) > 1) continue;
                        const int xx = x + dx, yy = y + dy, zz = z + dz;
                        if (xx < 0 || yy < 0 || zz < 0 || xx >= int(p.nx) || yy >= int(p.ny) || zz >= int(p.nz))
                            continue;
                        best = max(best, src[(zz * int(p.ny) + yy) * int(p.nx) + xx]);
                    }
        }
        dst[i] = best;
        changed = changed || best != v;
    }
    if (changed) flags[p.iter] = 1u;
}
