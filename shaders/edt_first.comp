#version 450
#extension GL_GOOGLE_include_directive : require
//! variants2: float32 float64 int8 uint8 int16 uint16 int32 uint32 x float32 float64
// Exact EDT, first pass: along the array's first axis, the squared distance
// (s k)^2 to the nearest zero of the line, +inf when the line has none. One
// invocation per run of EDT_CHUNK elements of a line (edt_chunks' runs):
// it reads its run's mask into a bit set (independent loads, so they
// overlap), finds the last zero before the run and the first after it by
// hopping over the other runs' summaries (only where the run's ends need
// them), and then each element's nearest zero is a bit scan. Neighbouring
// invocations take neighbouring lines (the axis is the outermost, never the
// innermost unless the array is 1-D), so every load and store coalesces.
#include "dtype.glsl"
#include "grid.glsl"
#define D U
#if defined(U_FLOAT) && defined(KILN_DTYPE2_float64)
#define EDT_DOUBLE 1
#endif
#include "edt_common.glsl"
#include "edt_chunk.glsl"

layout(std430, binding = 0) readonly buffer In { T mask[]; };
layout(std430, binding = 1) readonly buffer Summary { uint summary[]; };
layout(std430, binding = 2) writeonly buffer Out { D dist[]; };

bool is_zero(uint i) { return mask[i] == T(0); }  // NaN is not: foreground, as SciPy

void main() {
    const uint inner = stride_of(p.axis), len = p.dims[p.axis], chunks = p.chunks;
    FOR_EACH_ELEMENT(j, inner * chunks) {
        const uint r = j % inner, c = j / inner;  // the line (its offset), the run
        const uint l0 = c * EDT_CHUNK, count = min(EDT_CHUNK, len - l0);
        uint zeros = 0;  // bit k: element l0 + k is zero
        [[unroll]] for (uint k = 0; k < EDT_CHUNK; ++k)
            if (k < count && is_zero(r + (l0 + k) * inner)) zeros |= 1u << k;
        // The nearest zeros outside the run, where its first or last
        // element has none inside it before or after.
        uint before = NONE, after = NONE;  // their positions along the line
        if ((zeros & 1u) == 0)
            for (uint cc = c; cc-- > 0;) {
                const uint s = summary[cc * inner + r];
                if (s != NONE) { before = cc * EDT_CHUNK + (s >> 16); break; }
            }
        if ((zeros >> (count - 1) & 1u) == 0)
            for (uint cc = c + 1; cc < chunks; ++cc) {
                const uint s = summary[cc * inner + r];
                if (s != NONE) { after = cc * EDT_CHUNK + (s & 0xFFFFu); break; }
            }
        [[unroll]] for (uint k = 0; k < EDT_CHUNK; ++k) {
            if (k >= count) break;
            const uint l = l0 + k;
            const uint below = zeros & (0xFFFFFFFFu >> (31 - k)), above = zeros & (0xFFFFFFFFu << k);
            const uint up = below != 0 ? k - uint(findMSB(below)) : before != NONE ? l - before : NONE;
            const uint down = above != 0 ? uint(findLSB(above)) - k : after != NONE ? after - l : NONE;
            const uint best = min(up, down);
            const uint i = r + l * inner;
            const D d2 = best == NONE ? D_INF : offset_sq(p.axis, best);
            dist[i] = p.final_ != 0 ? finish(i, d2) : d2;
        }
    }
}
