#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: uint8 int8 uint16 int16 uint32 int32 float32 float64
// Separation of frames into amorphous and Bragg parts
// (AzimuthalIntegrator::separate, cpu::separate): per pixel of each frame,
// the background profile interpolated at the pixel's radial position
// (numpy.interp: the host gives each pixel its bin j and fraction f between
// centres j and j + 1, f = 0 at and beyond the ends), times the pixel's
// normalization, plus its dark, is the amorphous part; bragg = frame -
// amorphous. A pixel whose index has the top bit set is masked: with
// RESTORE, both parts take the frame's value there.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint HAS_SCALE = 0;
layout(constant_id = 4) const uint HAS_DARK = 0;
layout(constant_id = 5) const uint RESTORE = 1;

layout(std430, binding = 0) readonly buffer Raw { T raw[]; };
layout(std430, binding = 1) readonly buffer Profile { float profile[]; };
layout(std430, binding = 2) readonly buffer Index { uint index[]; };
layout(std430, binding = 3) readonly buffer Frac { float frac[]; };
layout(std430, binding = 4) readonly buffer Scale { float scale[]; };
layout(std430, binding = 5) readonly buffer Dark { float dark[]; };
layout(std430, binding = 6) writeonly buffer Bragg { float bragg[]; };
layout(std430, binding = 7) writeonly buffer Amorphous { float amorphous[]; };

layout(push_constant) uniform P {
    uint pixels, total, bins, profiles;  // profiles: 1 (one for every frame) or one per frame
} p;

void main() {
    FOR_EACH_ELEMENT(i, p.total) {
        const uint frame = i / p.pixels, px = i - frame * p.pixels;
        const float value = float(raw[i]);
        const uint code = index[px];
        if (RESTORE != 0u && (code & 0x80000000u) != 0u) {
            bragg[i] = value;
            amorphous[i] = value;
            continue;
        }
        const uint j = code & 0x7fffffffu;
        const uint row = (p.profiles == 1u ? 0u : frame) * p.bins;
        const float f = frac[px];
        float curve = profile[row + j];
        if (isnan(f)) curve = f;  // a pixel without a radial position
        else if (f != 0.0) curve += f * (profile[row + j + 1u] - curve);
        float a = curve * (HAS_SCALE != 0u ? scale[px] : 1.0);
        if (HAS_DARK != 0u) a += dark[px];
        amorphous[i] = a;
        bragg[i] = value - a;
    }
}
