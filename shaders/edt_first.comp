#version 450
#extension GL_GOOGLE_include_directive : require
//! variants2: float32 float64 int8 uint8 int16 uint16 int32 uint32 x float32 float64
// Exact EDT, first pass: along the array's first axis, the squared distance
// (s k)^2 to the nearest zero of the line, +inf when the line has none. Each
// invocation walks up and down its own run of EDT_CHUNK elements, stopping
// at a zero, and past the run hops from summary to summary (edt_chunks): at
// most EDT_CHUNK + len / EDT_CHUNK steps each way, however far the zero.
// Neighbouring invocations read neighbouring addresses (the axis is never
// the innermost unless the array is 1-D).
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
    const uint stride = stride_of(p.axis), len = p.dims[p.axis], chunks = p.chunks;
    FOR_EACH_ELEMENT(i, p.n) {
        const uint l = (i / stride) % len, c = l / EDT_CHUNK;
        // Where this line's run summaries start (run cc at s0 + cc * stride).
        const uint line0 = i - l * stride;
        const uint s0 = (line0 / (len * stride)) * chunks * stride + line0 % stride;
        uint best = NONE;  // distance in elements
        if (is_zero(i)) best = 0;
        else {
            // Up: the rest of this run, then earlier runs' last zeros.
            for (uint k = 1; k <= l - c * EDT_CHUNK; ++k)
                if (is_zero(i - k * stride)) { best = k; break; }
            if (best == NONE)
                for (uint cc = c; cc-- > 0;) {
                    const uint s = summary[s0 + cc * stride];
                    if (s != NONE) { best = l - (cc * EDT_CHUNK + (s >> 16)); break; }
                }
            // Down, no further than the best so far.
            const uint end = min((c + 1) * EDT_CHUNK, len);
            for (uint k = 1; l + k < end && k < best; ++k)
                if (is_zero(i + k * stride)) { best = k; break; }
            if (best >= end - l)  // nothing nearer in this run: later runs' first zeros
                for (uint cc = c + 1; cc < chunks && cc * EDT_CHUNK - l < best; ++cc) {
                    const uint s = summary[s0 + cc * stride];
                    if (s != NONE) { best = min(best, cc * EDT_CHUNK + (s & 0xFFFFu) - l); break; }
                }
        }
        const D d2 = best == NONE ? D_INF : offset_sq(p.axis, best);
        dist[i] = p.final_ != 0 ? finish(i, d2) : d2;
    }
}
