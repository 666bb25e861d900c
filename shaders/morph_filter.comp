#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// The minimum or maximum over a footprint of any shape (scipy.ndimage's
// min_or_max_filter with a footprint, and grey_erosion / grey_dilation with
// a structure): one output per invocation over a (nz, ny, nx) array.
//   out[p] = min_k in(p + off[k]), or with HEIGHTS the minimum of
//   in + h[k] (h already negated for a minimum) as SciPy's C loop adds
//   (see add_in_type), converted to T at the end
// Positions outside read cval (constant mode) or the mode's mirror image.
// off[k].w is the offset's linear index step, used where the whole footprint
// lies inside (lo/hi: the offsets' extremes per axis).
#include "dtype.glsl"
#include "grid.glsl"
#include "boundary.glsl"
#include "morph.glsl"

layout(constant_id = 3) const uint MINIMUM = 1;
layout(constant_id = 4) const uint HEIGHTS = 0;

layout(std430, binding = 0) readonly buffer In { T src[]; };
layout(std430, binding = 1) readonly buffer Offsets { ivec4 off[]; };
layout(std430, binding = 2) readonly buffer Heights { double h[]; };
layout(std430, binding = 3) writeonly buffer Out { T dst[]; };
layout(push_constant) uniform P {
    uvec2 cval;  // T bits
    uint nz, ny, nx, count, mode;
    int lz, ly, lx, hz, hy, hx;
} p;

// v + T(s) as SciPy's C loop adds (`T v; v += (T)s;`): integers wrap,
// float32 adds in float.
double add_in_type(W v, double s) {
#if defined(T_FLOAT)
    return double(v + T(s));
#else
    return double(from_double(double(v) + trunc(s)));
#endif
}

void main() {
    const bool minimum = MINIMUM != 0;
    const W cval = W(SCALAR_T(p.cval));
    FOR_EACH_ZYX(uz, uy, ux, p.nz, p.ny, p.nx) {
        const uint i = (uz * p.ny + uy) * p.nx + ux;
        const int z = int(uz), y = int(uy), x = int(ux);
        const bool inside = z + p.lz >= 0 && z + p.hz < int(p.nz) && y + p.ly >= 0 &&
                            y + p.hy < int(p.ny) && x + p.lx >= 0 && x + p.hx < int(p.nx);
        W best = W(0);
        double best_d = 0.0;
        for (uint k = 0; k < p.count; ++k) {
            const ivec4 o = off[k];
            W v;
            if (inside) {
                v = W(src[int(i) + o.w]);
            } else {
                const int zz = ext_index(z + o.x, int(p.nz), p.mode),
                          yy = ext_index(y + o.y, int(p.ny), p.mode),
                          xx = ext_index(x + o.z, int(p.nx), p.mode);
                v = (zz < 0 || yy < 0 || xx < 0) ? cval : W(src[(uint(zz) * p.ny + uint(yy)) * p.nx + uint(xx)]);
            }
            if (HEIGHTS != 0) {
                // SciPy's C loop: the first element plus its value in double,
                // the others plus theirs in T; compared in double.
                const double d = k == 0 ? double(v) + h[0] : add_in_type(v, h[k]);
                best_d = k == 0 ? d : (minimum ? min(best_d, d) : max(best_d, d));
            } else {
                best = k == 0 ? v : pick(best, v, minimum);
            }
        }
        if (HEIGHTS != 0) best = from_double(best_d);
        dst[i] = T(best);
    }
}
