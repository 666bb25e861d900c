#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: uint8 int8 uint16 int16 uint32 int32 float32 float64
// Pre-processing of azimuthal integration, one invocation per pixel of every
// frame: (signal, variance, normalization, valid) as float4, all zeros for an
// excluded pixel (masked through a zero normalization, dummy, or any term not
// finite). cpu::preprocess computes the same terms in double.
#include "dtype.glsl"
#include "grid.glsl"

layout(constant_id = 3) const uint HAS_DARK = 0;
layout(constant_id = 4) const uint HAS_NORM = 0;
layout(constant_id = 5) const uint ERROR_MODEL = 1;  // 0 none, 1 poisson, 2 given variance, 3 azimuthal (0 here)
layout(constant_id = 6) const uint HAS_DUMMY = 0;
layout(constant_id = 7) const uint DARK_VARIANCE = 1;  // poisson: max(raw, 1) + dark, else max(raw, 1)

layout(std430, binding = 0) readonly buffer Raw { T raw[]; };
layout(std430, binding = 1) readonly buffer Dark { float dark[]; };
layout(std430, binding = 2) readonly buffer Norm { float norm[]; };
layout(std430, binding = 3) readonly buffer Var { float given_var[]; };
layout(std430, binding = 4) writeonly buffer Out { vec4 pre[]; };
layout(push_constant) uniform P {
    uint pixels, total, pad0, pad1;
    uvec2 dummy_lo, dummy_hi;
} p;

#include "raw_value.glsl"

bool finite_f(float x) { return !isnan(x) && !isinf(x); }

void main() {
    FOR_EACH_ELEMENT(i, p.total) {
        const uint px = i % p.pixels;
        const T r = raw[i];
        vec4 q = vec4(0.0);
        bool ok = true;
        if (HAS_DUMMY != 0u) {
            const W w = W(r);
            ok = !(w >= W_OF(p.dummy_lo) && w <= W_OF(p.dummy_hi));
        }
        if (ok) {
            const float rv = float(r);
            const float d = HAS_DARK != 0u ? dark[px] : 0.0;
            const float n = HAS_NORM != 0u ? norm[px] : 1.0;
            float v = 0.0;
            if (ERROR_MODEL == 1u) v = max(rv, 1.0) + (DARK_VARIANCE != 0u ? d : 0.0);
            if (ERROR_MODEL == 2u) v = given_var[px];
            const float s = rv - d;
            if (finite_f(s) && finite_f(n) && finite_f(v) && n != 0.0) q = vec4(s, v, n, 1.0);
        }
        pre[i] = q;
    }
}
