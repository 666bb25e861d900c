#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// The mask of kappa-sigma clipping: uint8 1 where a value is finite and
// inside the final interval (lo, hi) (clip_loop's bounds), 0 elsewhere and
// everywhere when nothing was kept.
#include "dtype.glsl"
#include "grid.glsl"

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) readonly buffer C { double lo, hi; uint count, pad; } cs;
layout(std430, binding = 2) writeonly buffer M { uint8_t mask[]; };
layout(push_constant) uniform Push { uint n; } p;

void main() {
    const double lo = cs.lo, hi = cs.hi;
    const bool any = cs.count != 0u;
    FOR_EACH_ELEMENT(i, p.n) {
#if defined(T_FLOAT)
        double x = double(a[i]);
        bool keep = any && !isinf(x) && x > lo && x < hi;  // NaN fails the comparisons
#elif defined(T_INT)
        double x = double(int(a[i]));
        bool keep = any && x > lo && x < hi;
#else
        double x = double(uint(a[i]));
        bool keep = any && x > lo && x < hi;
#endif
        mask[i] = uint8_t(keep ? 1u : 0u);
    }
}
