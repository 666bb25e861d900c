#version 450
#extension GL_GOOGLE_include_directive : require
// exclude_labels_on_edges, pass 1: flags[l] = 1 for every label l on a
// face of the image. Invocations enumerate the face pixels only: the two x
// faces (nz * ny * 2), then the two y faces (nz * nx * 2), then the two z
// faces (ny * nx * 2); the host zeroes the count of an axis it leaves out.
#include "grid.glsl"

layout(std430, binding = 0) readonly buffer L { int labels[]; };
layout(std430, binding = 1) writeonly buffer F { uint flags[]; };
layout(push_constant) uniform Push { uint nx, ny, nz, fx, fy, fz; } p;

void main() {
    const uint total = p.fx + p.fy + p.fz;
    FOR_EACH_ELEMENT(k, total) {
        uint x, y, z;
        if (k < p.fx) {
            const uint side = k & 1u, row = k >> 1;
            x = side == 0 ? 0 : p.nx - 1, y = row % p.ny, z = row / p.ny;
        } else if (k < p.fx + p.fy) {
            const uint j = k - p.fx, side = j & 1u, row = j >> 1;
            y = side == 0 ? 0 : p.ny - 1, x = row % p.nx, z = row / p.nx;
        } else {
            const uint j = k - p.fx - p.fy, side = j & 1u, row = j >> 1;
            z = side == 0 ? 0 : p.nz - 1, x = row % p.nx, y = row / p.nx;
        }
        const int l = labels[(z * p.ny + y) * p.nx + x];
        if (l > 0) flags[l] = 1u;
    }
}
