#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64
// voronoi_otsu_labeling's spots: out = 1 where mask is nonzero and the pixel
// is a strict local maximum as pyclesperanto's detect_maxima_box (radius 0):
// every neighbour in the 3x3(x3) box, read clamped to the edge, is smaller.
// Clamping reads the pixel itself beyond the edge, so pixels on the border
// of an axis longer than 1 are never maxima, as there.
#include "dtype.glsl"
#extension GL_EXT_shader_8bit_storage : require
#include "grid.glsl"

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) readonly buffer M { uint8_t mask[]; };
layout(std430, binding = 2) writeonly buffer O { uint8_t spots[]; };
layout(push_constant) uniform Push { uint nx, ny, nz; } p;

void main() {
    const uint n = p.nx * p.ny * p.nz;
    const int rx = p.nx > 1 ? 1 : 0, ry = p.ny > 1 ? 1 : 0, rz = p.nz > 1 ? 1 : 0;
    FOR_EACH_ELEMENT(i, n) {
        bool is_max = uint(mask[i]) != 0;
        const T v = a[i];
        const int x = int(i % p.nx), row = int(i / p.nx), y = row % int(p.ny), z = row / int(p.ny);
        for (int dz = -rz; dz <= rz && is_max; ++dz)
            for (int dy = -ry; dy <= ry; ++dy)
                for (int dx = -rx; dx <= rx; ++dx) {
                    if (dx == 0 && dy == 0 && dz == 0) continue;
                    const int xx = clamp(x + dx, 0, int(p.nx) - 1), yy = clamp(y + dy, 0, int(p.ny) - 1),
                              zz = clamp(z + dz, 0, int(p.nz) - 1);
                    if (a[(zz * int(p.ny) + yy) * int(p.nx) + xx] >= v) is_max = false;
                }
        spots[i] = uint8_t(is_max ? 1u : 0u);
    }
}
