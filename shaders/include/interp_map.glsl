// The body of interp_map.comp, and of interp_texture.comp (INTERP_TEXTURE
// defined): see interp_map.comp.
#include "dtype.glsl"
#include "grid.glsl"
#include "real.glsl"
#include "interp_modes.glsl"

layout(constant_id = 3) const int ORDER = 1;
layout(constant_id = 4) const int NDIM = 2;
layout(constant_id = 5) const int SOURCE = 0;  // see above
layout(constant_id = 6) const int MODE = CONSTANT;  // SciPy's code (interp_modes.glsl)

layout(std430, binding = 0) readonly buffer In { T src[]; };
layout(std430, binding = 1) readonly buffer Prm { double prm_buffer[]; };
layout(std430, binding = 2) readonly buffer Co { uint co[]; };     // coordinates' words
layout(std430, binding = 3) writeonly buffer Out { R dst[]; };
#ifdef INTERP_TEXTURE
// The input again as an image of at least its extents (sampled at
// normalized coordinates, so a larger image serves as well).
layout(binding = 4) uniform sampler2D tex;
#endif
layout(push_constant) uniform P {
    double prm[8];  // zoom[NDIM] shift at 3 | m[NDIM][NDIM] offset[NDIM] (dense)
    ivec4 n;        // input extents (NumPy order)
    uvec4 on;       // output extents
    uvec2 cval;     // double bits
    uint flags;     // bits 0-2 axis passes through; 4 shift, 5 zoom, 6 grid mode;
                    // 12-14 axis padded by 12 before the spline filter;
                    // 18 the mapping's doubles in the buffer (a volume's
                    // matrix and offset: 12) rather than in prm (8)
    uint count;     // outputs
} p;
// ORDER, NDIM, SOURCE and MODE are specialization constants: each pipeline
// keeps only its own paths (fewer registers, no index arithmetic that the
// coordinates array makes unneeded); the flags' branches are uniform.

double param(int k) {
    return SOURCE == 1 && (p.flags & (1u << 18)) != 0 ? prm_buffer[k] : p.prm[k];
}

const int TAPS = ORDER + 1;

double coordinate(int a, ivec3 o, uint i) {
    precise double c;
    if (SOURCE == 0) {
        c = double(o[a]);
        if ((p.flags & 16u) != 0) c += param(3 + a);
        if ((p.flags & 32u) != 0) {
            if ((p.flags & 64u) != 0) {
                c += 0.5;
                c *= param(a);
                c -= 0.5;
            } else {
                c *= param(a);
            }
        }
    } else if (SOURCE == 1) {
        c = 0.0;
        [[unroll]] for (int l = 0; l < 3; ++l)
            if (l < NDIM) c += double(o[l]) * param(NDIM * a + l);
        c += param(NDIM * NDIM + a);
    } else if (SOURCE == 2) {
        c = double(uintBitsToFloat(co[uint(a) * p.count + i]));
    } else {
        uint w = 2 * (uint(a) * p.count + i);
        c = packDouble2x32(uvec2(co[w], co[w + 1]));
    }
    if ((p.flags & (4096u << a)) != 0) c += 12.0;  // SciPy's prepadding
    return c;
}

// R4: four R (one slot's tap weights).
#if defined(KILN_DTYPE_float64)
#define R4 dvec4
#else
#define R4 vec4
#endif

// Axis a's taps at output index o (coordinates at i): offsets times
// `stride`, weights, and grid-constant's taps beyond the edges (bit k for tap k;
// a bvec4 written per tap lost its flags on an NVIDIA H200); true where
// the output is cval. Vectors, not arrays, so that the taps stay in
// registers (arrays indexed by loop counters went to local memory).
bool axis_taps(int a, ivec3 o, uint i, uint stride, out uvec4 off, out R4 w, out uint outside) {
    const int SPLINE_MODE = (MODE == CONSTANT || MODE == WRAP) ? MIRROR : MODE;
    const int len = p.n[a];
    off = uvec4(0);
    w = R4(1, 0, 0, 0);
    outside = 0u;
    if ((p.flags & (1u << a)) != 0) {
        // Not interpolated: the index itself, weight 1.
        off = uvec4(uint(o[a]) * stride);
        return false;
    }
    double c = coordinate(a, o, i);
    if (MODE != GRID_CONSTANT && MODE != NEAREST)
        c = map_coord(c, double(len), MODE);
    else
        c = clamp(c, -1e9LF, 1e9LF);  // beyond, every tap is at the edge or outside alike
    // NaN: cval (SciPy's casts of NaN are undefined).
    if (!(c > -1.0 || MODE == GRID_CONSTANT || MODE == NEAREST) || isnan(c)) return true;
    const double f = (ORDER & 1) != 0 ? floor(c) : floor(c + 0.5);
    const int start = int(f) - ORDER / 2;
    const bool edge = start < 0 || start + ORDER >= len;
    [[unroll]] for (int k = 0; k < 4; ++k) {
        if (k >= TAPS) break;
        int j = start + k;
        if (MODE == GRID_CONSTANT) {
            if (j < 0 || j >= len) outside |= 1u << k;
            j = clamp(j, 0, len - 1);
        } else if (edge) {
            j = int(map_coord(double(j), double(len), SPLINE_MODE));
        }
        off[k] = uint(j) * stride;
    }
    const R x = R(c - f);
    if (ORDER == 1) {
        w.x = R(1) - x;
        w.y = R(1) - w.x;
    } else if (ORDER == 3) {
        const R y = x, z = R(1) - x;
        w.y = (y * y * (y - R(2)) * R(3) + R(4)) / R(6);
        w.z = (z * z * (z - R(2)) * R(3) + R(4)) / R(6);
        w.x = z * z * z / R(6);
        w.w = R(1) - w.x - w.y - w.z;
    }
    return false;
}

// One output at i from its taps: slots z, y, x (the missing leading ones a
// single tap of weight 1).
void gather(uint i, uvec4 offz, R4 wz, uint outz, uvec4 offy, R4 wy, uint outy, uvec4 offx, R4 wx,
            uint outx) {
    const R cval = R(packDouble2x32(p.cval));
    const int T0 = NDIM > 2 ? TAPS : 1, T1 = NDIM > 1 ? TAPS : 1;
    R t = R(0);
    [[unroll]] for (int j0 = 0; j0 < 4; ++j0) {
        if (j0 >= T0) break;
        R ty = R(0);
        [[unroll]] for (int j1 = 0; j1 < 4; ++j1) {
            if (j1 >= T1) break;
            const uint row = offz[j0] + offy[j1];
            const bool row_out = ((outz >> j0 | outy >> j1) & 1u) != 0u;
            R tx = R(0);
            [[unroll]] for (int j2 = 0; j2 < 4; ++j2) {
                if (j2 >= TAPS) break;
                const R v = (row_out || (outx >> j2 & 1u) != 0u) ? cval : R(src[row + offx[j2]]);
                tx += wx[j2] * v;
            }
            ty += wy[j1] * tx;
        }
        t += wz[j0] * ty;
    }
    dst[i] = t;
}

// Axis a's stride in the input: slot x 1, y the last extent, z a plane.
uint axis_stride(int a) {
    return a == NDIM - 1 ? 1u : a == NDIM - 2 ? uint(p.n[NDIM - 1]) : uint(p.n[1]) * uint(p.n[2]);
}

// One output: o its index (where SOURCE < 2 or an axis passes through), i
// its offset.
void interpolate(ivec3 o, uint i) {
    uvec4 offz = uvec4(0), offy = uvec4(0), offx;
    R4 wz = R4(1, 0, 0, 0), wy = R4(1, 0, 0, 0), wx;
    uint outz = 0u, outy = 0u, outx;
    bool constant = axis_taps(NDIM - 1, o, i, 1u, offx, wx, outx);
    if (NDIM > 1) constant = axis_taps(NDIM - 2, o, i, axis_stride(NDIM - 2), offy, wy, outy) || constant;
    if (NDIM > 2) constant = axis_taps(0, o, i, axis_stride(0), offz, wz, outz) || constant;
    if (constant)
        dst[i] = R(packDouble2x32(p.cval));
    else
        gather(i, offz, wz, outz, offy, wy, outy, offx, wx, outx);
}

#ifdef INTERP_TEXTURE
// A 2-D coordinates array at order 1: where both axes' two taps are
// neighbours inside the input (all outputs but those at the edges), one
// texture gather fetches the four taps; else they come from the buffer, as
// interpolate's. On an H200 the gather from a 2048^2 image of optimal
// tiling took half the time of four loads from the buffer
// (bench/results/2026-11-27-h200-session14).
void interpolate_quad(uint i) {
    const ivec3 o = ivec3(0);
    uvec4 offy, offx;
    R4 wy, wx;
    uint outy, outx;
    bool constant = axis_taps(1, o, i, 1u, offx, wx, outx);
    constant = axis_taps(0, o, i, 1u, offy, wy, outy) || constant;  // offy in rows
    if (constant) {
        dst[i] = R(packDouble2x32(p.cval));
        return;
    }
    if (offy.y != offy.x + 1u || offx.y != offx.x + 1u || (outy | outx) != 0u) {
        gather(i, uvec4(0), R4(1, 0, 0, 0), 0u, offy * uint(p.n[1]), wy, outy, offx, wx, outx);
        return;
    }
    // The gather's texels, for columns c and rows r: x (c0, r1), y (c1, r1),
    // z (c1, r0), w (c0, r0); sampled where the four texels meet.
    const vec4 g = textureGather(tex, (vec2(offx.x, offy.x) + 1.0) / vec2(textureSize(tex, 0)));
    // gather's sums, in its order.
    R r0 = R(0), r1 = R(0), ty = R(0), t = R(0);
    r0 += wx[0] * R(g.w);
    r0 += wx[1] * R(g.z);
    r1 += wx[0] * R(g.x);
    r1 += wx[1] * R(g.y);
    ty += wy[0] * r0;
    ty += wy[1] * r1;
    t += R(1) * ty;
    dst[i] = t;
}
#endif

// A zoom/shift's leading axes depend on the row alone: their taps are
// worked out once per workgroup (invocation a for axis a), not per output.
shared uvec4 row_off[2];
shared R4 row_w[2];
shared uint row_out[2];  // bits 0-3 the taps outside (grid-constant), bit 4 the output is cval

void zoom_row(ivec3 o, uint row, uint last) {
    const uint a = gl_LocalInvocationIndex;
    if (a < uint(NDIM - 1)) {
        uvec4 off;
        R4 w;
        uint outside;
        const bool constant = axis_taps(int(a), o, 0u, axis_stride(int(a)), off, w, outside);
        row_off[a] = off;
        row_w[a] = w;
        row_out[a] = outside | (constant ? 16u : 0u);
    }
    barrier();
    // Slot y is axis NDIM - 2, slot z axis 0 of a volume.
    const int y = NDIM - 2, z = 0;
    const uvec4 offy = row_off[y], offz = NDIM > 2 ? row_off[z] : uvec4(0);
    const R4 wy = row_w[y], wz = NDIM > 2 ? row_w[z] : R4(1, 0, 0, 0);
    const uint my = row_out[y], mz = NDIM > 2 ? row_out[z] : 0u;
    const uint outy = my & 15u, outz = mz & 15u;
    const bool row_constant = ((my | mz) & 16u) != 0;
    for (uint x = gl_GlobalInvocationID.x; x < last; x += gl_NumWorkGroups.x * gl_WorkGroupSize.x) {
        o[NDIM - 1] = int(x);
        const uint i = row * last + x;
        uvec4 offx;
        R4 wx;
        uint outx;
        if (axis_taps(NDIM - 1, o, i, 1u, offx, wx, outx) || row_constant)
            dst[i] = R(packDouble2x32(p.cval));
        else
            gather(i, offz, wz, outz, offy, wy, outy, offx, wx, outx);
    }
}

void main() {
#ifdef INTERP_TEXTURE
    FOR_EACH_ELEMENT(i, p.count) interpolate_quad(i);
    return;
#endif
    if (SOURCE < 2) {
        // A mapping: rows of the last axis across workgroups y (+ 65535 z),
        // so that the index costs no divisions per output (x strides past
        // the device's workgroup count).
        const uint last = p.on[NDIM - 1];
        const uint row = gl_WorkGroupID.z * 65535u + gl_WorkGroupID.y;
        if (row >= p.count / last) return;  // the last z's spare rows
        ivec3 o = ivec3(0);
        if (NDIM == 3) {
            o[0] = int(row / p.on[1]);
            o[1] = int(row % p.on[1]);
        } else if (NDIM == 2) {
            o[0] = int(row);
        }
        if (SOURCE == 0 && NDIM > 1) {
            zoom_row(o, row, last);
            return;
        }
        for (uint x = gl_GlobalInvocationID.x; x < last; x += gl_NumWorkGroups.x * gl_WorkGroupSize.x) {
            o[NDIM - 1] = int(x);
            interpolate(o, row * last + x);
        }
        return;
    }
    FOR_EACH_ELEMENT(i, p.count) {
        // A coordinates array needs the output's index only where an axis
        // passes through.
        ivec3 o = ivec3(0);
        if ((p.flags & 7u) != 0) {
            uint rest = i;
            [[unroll]] for (int a = 2; a >= 0; --a) {
                if (a >= NDIM) continue;
                o[a] = int(rest % p.on[a]);
                rest /= p.on[a];
            }
        }
        interpolate(o, i);
    }
}
