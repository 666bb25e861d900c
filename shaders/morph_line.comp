#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// One axis of a box minimum or maximum (scipy.ndimage's minimum_filter1d /
// maximum_filter1d) over an array viewed as (outer, n, inner), the axis of
// n elements with stride `inner`:
//   out[o, m, q] = min_{j < k} in[o, m + lo + j, q]
// positions outside as the mode says. Consecutive invocations take
// consecutive q (or m where inner is 1), so loads coalesce along either.
#include "dtype.glsl"
#include "grid.glsl"
#include "boundary.glsl"
#include "morph.glsl"

layout(constant_id = 3) const uint MINIMUM = 1;

layout(std430, binding = 0) readonly buffer In { T src[]; };
layout(std430, binding = 1) writeonly buffer Out { T dst[]; };
layout(push_constant) uniform P {
    uvec2 cval;  // T bits
    uint outer, n, inner, k, mode;
    int lo;
} p;

void main() {
    const bool minimum = MINIMUM != 0;
    const W cval = W(SCALAR_T(p.cval));
    FOR_EACH_ELEMENT(i, p.outer * p.n * p.inner) {
        const uint q = i % p.inner, m = (i / p.inner) % p.n;
        const uint base = i - m * p.inner;
        const int first = int(m) + p.lo;
        W best;
        if (first >= 0 && first + int(p.k) <= int(p.n)) {
            uint at = base + uint(first) * p.inner;
            best = W(src[at]);
            for (uint j = 1; j < p.k; ++j) best = pick(best, W(src[at + j * p.inner]), minimum);
        } else {
            for (uint j = 0; j < p.k; ++j) {
                const int r = ext_index(first + int(j), int(p.n), p.mode);
                const W v = r < 0 ? cval : W(src[base + uint(r) * p.inner]);
                best = j == 0 ? v : pick(best, v, minimum);
            }
        }
        dst[i] = T(best);
    }
}
