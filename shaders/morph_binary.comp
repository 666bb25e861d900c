#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// One binary erosion or dilation (scipy.ndimage's binary_erosion and
// binary_dilation with the reflected structure) of a (nz, ny, nx) array of
// any dtype, nonzero true, into uint8 0/1:
//   erosion:  out[p] = all_k in[p + off[k]],  dilation: any_k
// positions outside read `border`. MASKED: where mask[p] is 0 the input
// is kept. CHANGED: flag[0] = 1 where an element changes (the until-stable
// iterations test it on the host every few applications).
#include "dtype.glsl"
#include "grid.glsl"
#include "morph.glsl"

layout(constant_id = 3) const uint DILATE = 0;
layout(constant_id = 4) const uint MASKED = 0;
layout(constant_id = 5) const uint CHANGED = 0;

layout(std430, binding = 0) readonly buffer In { T src[]; };
layout(std430, binding = 1) readonly buffer Offsets { ivec4 off[]; };
layout(std430, binding = 2) readonly buffer Mask { uint8_t mask[]; };
layout(std430, binding = 3) writeonly buffer Out { uint8_t dst[]; };
layout(std430, binding = 4) buffer Flag { uint flag[]; };
layout(push_constant) uniform P {
    uint nz, ny, nx, count, border;
    int lz, ly, lx, hz, hy, hx;
} p;

// Widened first: no 8- or 16-bit arithmetic needed.
bool truth(uint i) { return W(src[i]) != W(0); }

void main() {
    const bool dilate = DILATE != 0;
    FOR_EACH_ZYX(uz, uy, ux, p.nz, p.ny, p.nx) {
        const uint i = (uz * p.ny + uy) * p.nx + ux;
        const int z = int(uz), y = int(uy), x = int(ux);
        const bool own = truth(i);
        bool v = own;
        if (MASKED == 0 || uint(mask[i]) != 0u) {
            const bool inside = z + p.lz >= 0 && z + p.hz < int(p.nz) && y + p.ly >= 0 &&
                                y + p.hy < int(p.ny) && x + p.lx >= 0 && x + p.hx < int(p.nx);
            // erosion: stop at the first false; dilation: at the first true
            v = !dilate;
            for (uint k = 0; k < p.count && v != dilate; ++k) {
                const ivec4 o = off[k];
                bool b;
                if (inside) {
                    b = truth(uint(int(i) + o.w));
                } else {
                    const int zz = z + o.x, yy = y + o.y, xx = x + o.z;
                    b = (zz < 0 || zz >= int(p.nz) || yy < 0 || yy >= int(p.ny) || xx < 0 || xx >= int(p.nx))
                            ? p.border != 0u
                            : truth((uint(zz) * p.ny + uint(yy)) * p.nx + uint(xx));
                }
                if (b == dilate) v = dilate;
            }
        }
        dst[i] = uint8_t(v ? 1u : 0u);
        if (CHANGED != 0 && v != own) flag[0] = 1u;
    }
}
