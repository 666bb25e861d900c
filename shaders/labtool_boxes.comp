#version 450
#extension GL_GOOGLE_include_directive : require
// find_objects. MODE 0: the bounding boxes, 6 words per label l (slot l - 1):
// z, y, x lower bounds stored as extent - start and upper bounds as stop,
// both by atomicMax on a zeroed table, so 0 means "no pixel". Only the
// first pixel of each run of equal labels along x updates the lower bounds
// and the y/z bounds, and only its last pixel the x stop: one pair of
// updates per run instead of per pixel.
// MODE 1: the (N, 2 * ndim) int32 result, axes in (z,) y, x order, start
// and stop per axis; a label with no pixel gets -1 -1.
#include "grid.glsl"

layout(constant_id = 3) const uint MODE = 0;

layout(std430, binding = 0) readonly buffer L { int labels[]; };
layout(std430, binding = 1) buffer B { int boxes[]; };
layout(std430, binding = 2) writeonly buffer O { int outv[]; };
layout(push_constant) uniform Push { uint nx, ny, nz, n, count, ndim; } p;

void record() {
    FOR_EACH_ELEMENT(i, p.n) {
        const int l = labels[i];
        if (l <= 0) continue;
        const uint x = i % p.nx, row = i / p.nx, y = row % p.ny, z = row / p.ny;
        const uint b = 6u * uint(l - 1);
        if (x == 0 || labels[i - 1] != l) {
            atomicMax(boxes[b + 0], int(p.nz - z));
            atomicMax(boxes[b + 1], int(z + 1));
            atomicMax(boxes[b + 2], int(p.ny - y));
            atomicMax(boxes[b + 3], int(y + 1));
            atomicMax(boxes[b + 4], int(p.nx - x));
        }
        if (x == p.nx - 1 || labels[i + 1] != l) atomicMax(boxes[b + 5], int(x + 1));
    }
}

void finish() {
    const uint extent[3] = uint[3](p.nz, p.ny, p.nx);
    FOR_EACH_ELEMENT(l, p.count) {
        for (uint a = 3 - p.ndim, k = 0; a < 3; ++a, ++k) {
            const int lo = boxes[6 * l + 2 * a], hi = boxes[6 * l + 2 * a + 1];
            outv[l * 2 * p.ndim + 2 * k] = hi == 0 ? -1 : int(extent[a]) - lo;
            outv[l * 2 * p.ndim + 2 * k + 1] = hi == 0 ? -1 : hi;
        }
    }
}

void main() {
    if (MODE == 0) record();
    else finish();
}
