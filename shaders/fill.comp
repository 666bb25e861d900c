#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32 int64 uint64
// Every element set to one value (converted on the host).
#include "dtype.glsl"
#include "grid.glsl"

layout(std430, binding = 0) writeonly buffer O { T o[]; };
layout(push_constant) uniform P { uint n; uint pad; uvec2 value; } p;

void main() {
    T v = SCALAR_T(p.value);
    FOR_EACH_ELEMENT(i, p.n) o[i] = v;
}
