#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: int8 uint8 int16 uint16 int32 uint32
// One 1-D pass of scipy.ndimage.uniform_filter1d over integers, the array
// viewed as (outer, n, inner) around the axis:
//   out[o, i, s] = trunc(sum_j in[o, i + lo + j, s] / size),  j < size,
// positions outside mapped as the mode says (the constant: cval), the sum
// exact in integers and the quotient truncated toward zero, as SciPy's C
// conversion of its double mean truncates. (Float inputs take conv_sep.)
// One output per invocation; consecutive invocations make consecutive
// outputs of the same line, so their windows overlap in the cache.
#include "dtype.glsl"
#include "grid.glsl"

#if defined(KILN_DTYPE_int32) || defined(KILN_DTYPE_uint32)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define ACC int64_t
#else
#define ACC int
#endif

layout(std430, binding = 0) readonly buffer In { T src[]; };
layout(std430, binding = 1) writeonly buffer Out { T dst[]; };
layout(push_constant) uniform P {
    uint outer, n, inner;
    uint size;
    int lo;
    uint mode;   // 0 constant, 1 reflect, 2 nearest, 3 mirror, 4 wrap
    uvec2 cval;  // T bits
} p;

#include "boundary.glsl"

void main() {
    const T cval = SCALAR_T(p.cval);
    const uint total = p.outer * p.n * p.inner;
    FOR_EACH_ELEMENT(e, total) {
        // Along x (inner 1) consecutive invocations walk a line; otherwise
        // across lines, which keeps the loads coalesced.
        const uint s = e % p.inner, i = (e / p.inner) % p.n, o = e / (p.inner * p.n);
        const uint base = o * p.n * p.inner + s;
        ACC sum = ACC(0);
        for (uint j = 0; j < p.size; ++j) {
            const int at = ext_index(int(i) + p.lo + int(j), int(p.n), p.mode);
            sum += ACC(at < 0 ? cval : src[base + uint(at) * p.inner]);
        }
        const ACC mag = (sum < ACC(0) ? -sum : sum) / ACC(p.size);
        dst[base + i * p.inner] = T(sum < ACC(0) ? -mag : mag);
    }
}
