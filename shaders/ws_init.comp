#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
//! variants: float32 int8 uint8 int16 uint16 int32 uint32
// Watershed set-up: every element's order key (a uint32 that orders as the
// image's values; NaN above +inf), the flood level F (the key on a marker,
// the top otherwise), the labels (the marker's, else 0) and which elements
// are fixed (markers and elements outside the mask). Outside the mask the
// key is the top too, so no flood passes through.
#include "dtype.glsl"
#include "grid.glsl"

layout(std430, binding = 0) readonly buffer Image { T image[]; };
layout(std430, binding = 1) readonly buffer Mask { uint8_t mask[]; };
layout(std430, binding = 2) readonly buffer Markers { int markers[]; };
layout(std430, binding = 3) writeonly buffer Key { uint key[]; };
layout(std430, binding = 4) writeonly buffer Level { uint level[]; };
layout(std430, binding = 5) writeonly buffer Labels { int labels[]; };
layout(std430, binding = 6) writeonly buffer Fixed { uint8_t fixed_[]; };
layout(push_constant) uniform Push { uint n, has_mask; } p;

uint order_key(T v) {
#if defined(T_FLOAT)
    if (isnan(v)) return 0xFFFFFFFFu;
    const uint u = floatBitsToUint(v == T(0) ? T(0) : v);  // -0 and 0 alike
    return (u & 0x80000000u) != 0 ? ~u : u | 0x80000000u;
#elif defined(T_INT)
    return uint(int(v)) ^ 0x80000000u;
#else
    return uint(v);
#endif
}

void main() {
    FOR_EACH_ELEMENT(i, p.n) {
        const bool inside = p.has_mask == 0 || uint(mask[i]) != 0;
        const int m = inside ? markers[i] : 0;
        const uint k = inside ? order_key(image[i]) : 0xFFFFFFFFu;
        key[i] = k;
        level[i] = m != 0 ? k : 0xFFFFFFFFu;
        labels[i] = m;
        fixed_[i] = uint8_t(m != 0 || !inside ? 1 : 0);
    }
}
