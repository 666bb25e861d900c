#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
// binary_fill_holes from the labels of the background (kiln::label of
// input == 0, the structure's connectivity): a background component is a
// hole unless it touches the array's edge, where every standard structure
// reaches outside (scipy's dilation from a border of 1s starts there).
// STAGE 0: touch[label] = 1 for each label on the edge (only edge elements
//          read their label).
// STAGE 1: out = 1 where the label is 0 (foreground) or its touch flag is 0.
#include "grid.glsl"

layout(constant_id = 3) const uint STAGE = 0;

layout(std430, binding = 0) readonly buffer Labels { int labels[]; };
layout(std430, binding = 1) buffer Touch { uint8_t touch[]; };
layout(std430, binding = 2) writeonly buffer Out { uint8_t dst[]; };
layout(push_constant) uniform P {
    uint nz, ny, nx, ndim;
} p;

void main() {
    const uint plane = p.ny * p.nx;
    FOR_EACH_ELEMENT(i, p.nz * plane) {
        if (STAGE == 0) {
            const uint z = i / plane, y = (i % plane) / p.nx, x = i % p.nx;
            const bool edge = x == 0 || x == p.nx - 1 || (p.ndim >= 2 && (y == 0 || y == p.ny - 1)) ||
                              (p.ndim == 3 && (z == 0 || z == p.nz - 1));
            if (edge) {
                const int l = labels[i];
                if (l > 0) touch[l] = uint8_t(1u);
            }
        } else {
            const int l = labels[i];
            dst[i] = uint8_t(l == 0 || uint(touch[l]) == 0u ? 1u : 0u);
        }
    }
}
