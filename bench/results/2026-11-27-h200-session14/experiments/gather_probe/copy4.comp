#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform P { int h; int w; uint count; } p;
layout(std430, binding = 0) readonly buffer In { vec4 src[]; };
layout(std430, binding = 1) readonly buffer Co { float co[]; };
layout(std430, binding = 2) writeonly buffer Out { vec4 dst[]; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < uint(p.h * p.w / 4)) dst[i] = src[i]; }
