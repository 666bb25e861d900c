#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// B-spline interpolation of order ORDER (0, 1, 3) at mapped coordinates, as
// scipy.ndimage's NI_ZoomShift and NI_GeometricTransform: one output per
// invocation (a mapping's rows of the last axis from workgroups y and z; a
// coordinates array's outputs grid-stride). Per axis the input coordinate comes from (SOURCE)
//   SOURCE 0: zoom/shift   c = o; c += shift; c = grid ? (c + 0.5) * zoom - 0.5 : c * zoom
//   SOURCE 1: matrix       c = sum_l o[l] * m[a][l] + offset[a]
//   SOURCE 2, 3: a coordinates array (float32, float64) of NDIM rows of count
// computed in double with `precise` (no fused multiply-adds), so that order 0
// picks the element SciPy picks at exact halves; the weights are R. Taps
// beyond the edges follow the mode (constant and wrap read mirrored taps,
// grid-constant reads cval), as SciPy's; the mode (SciPy's code) is in
// flags. An axis flagged in `flags` passes
// its output index through (rotate of a volume, plane by plane).
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
    return (p.flags & (1u << 18)) != 0 ? prm_buffer[k] : p.prm[k];
}

const int TAPS = ORDER + 1;

double coordinate(int a, int o[3], uint i) {
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
        [[unroll]] for (int l = 0; l < NDIM; ++l) c += double(o[l]) * param(NDIM * a + l);
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

// One output: o its index (where SOURCE < 2 or an axis passes through), i
// its offset.
void interpolate(int o[3], uint i) {
    const R cval = R(packDouble2x32(p.cval));
    const int SPLINE_MODE = (MODE == CONSTANT || MODE == WRAP) ? MIRROR : MODE;
    {
        // Per slot (z, y, x; the missing leading ones a single tap): tap
        // offsets, weights, and grid-constant's taps beyond the edges.
        uint off[3][4];
        R w[3][4];
        bool outside[3][4];
        [[unroll]] for (int s = 0; s < 3; ++s)
            [[unroll]] for (int k = 0; k < 4; ++k) {
                off[s][k] = 0;
                w[s][k] = R(k == 0 ? 1 : 0);
                outside[s][k] = false;
            }
        bool constant = false;
        uint stride = 1;
        [[unroll]] for (int a = NDIM - 1; a >= 0; --a) {
            const int s = 3 - NDIM + a, len = p.n[a];
            if ((p.flags & (1u << a)) != 0) {
                // Not interpolated: the index itself, weight 1.
                [[unroll]] for (int k = 0; k < TAPS; ++k) off[s][k] = uint(o[a]) * stride;
                stride *= uint(len);
                continue;
            }
            double c = coordinate(a, o, i);
            if (MODE != GRID_CONSTANT && MODE != NEAREST)
                c = map_coord(c, double(len), MODE);
            else
                c = clamp(c, -1e9LF, 1e9LF);  // beyond, every tap is at the edge or outside alike
            // NaN: cval (SciPy's casts of NaN are undefined).
            if (!(c > -1.0 || MODE == GRID_CONSTANT || MODE == NEAREST) || isnan(c)) {
                constant = true;
                continue;
            }
            const double f = (ORDER & 1) != 0 ? floor(c) : floor(c + 0.5);
            const int start = int(f) - ORDER / 2;
            const bool edge = start < 0 || start + ORDER >= len;
            [[unroll]] for (int k = 0; k < TAPS; ++k) {
                int j = start + k;
                if (MODE == GRID_CONSTANT) {
                    outside[s][k] = j < 0 || j >= len;
                    j = clamp(j, 0, len - 1);
                } else if (edge) {
                    j = int(map_coord(double(j), double(len), SPLINE_MODE));
                }
                off[s][k] = uint(j) * stride;
            }
            const R x = R(c - f);
            if (ORDER == 1) {
                w[s][0] = R(1) - x;
                w[s][1] = R(1) - w[s][0];
            } else if (ORDER == 3) {
                const R y = x, z = R(1) - x;
                w[s][1] = (y * y * (y - R(2)) * R(3) + R(4)) / R(6);
                w[s][2] = (z * z * (z - R(2)) * R(3) + R(4)) / R(6);
                w[s][0] = z * z * z / R(6);
                w[s][3] = R(1) - w[s][0] - w[s][1] - w[s][2];
            }
            stride *= uint(len);
        }
        if (constant) {
            dst[i] = cval;
            return;
        }
        const int T0 = NDIM > 2 ? TAPS : 1, T1 = NDIM > 1 ? TAPS : 1;
        R t = R(0);
        [[unroll]] for (int j0 = 0; j0 < T0; ++j0) {
            R ty = R(0);
            [[unroll]] for (int j1 = 0; j1 < T1; ++j1) {
                const uint row = off[0][j0] + off[1][j1];
                const bool row_out = outside[0][j0] || outside[1][j1];
                R tx = R(0);
                [[unroll]] for (int j2 = 0; j2 < TAPS; ++j2) {
                    const R v = (row_out || outside[2][j2]) ? cval : R(src[row + off[2][j2]]);
                    tx += w[2][j2] * v;
                }
                ty += w[1][j1] * tx;
            }
            t += w[0][j0] * ty;
        }
        dst[i] = t;
    }
}

void main() {
    if (SOURCE < 2) {
        // A mapping: rows of the last axis across workgroups y (+ 65535 z),
        // so that the index costs no divisions per output (x strides past
        // the device's workgroup count).
        const uint last = p.on[NDIM - 1];
        const uint row = gl_WorkGroupID.z * 65535u + gl_WorkGroupID.y;
        if (row >= p.count / last) return;  // the last z's spare rows

        int o[3] = int[3](0, 0, 0);
        if (NDIM == 3) {
            o[0] = int(row / p.on[1]);
            o[1] = int(row % p.on[1]);
        } else if (NDIM == 2) {
            o[0] = int(row);
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
        int o[3] = int[3](0, 0, 0);
        if ((p.flags & 7u) != 0) {
            uint rest = i;
            [[unroll]] for (int a = NDIM - 1; a >= 0; --a) {
                o[a] = int(rest % p.on[a]);
                rest /= p.on[a];
            }
        }
        interpolate(o, i);
    }
}
