#version 450
layout(local_size_x = 64, local_size_y = 4) in;
layout(push_constant) uniform P { int h; int w; uint count; } p;
layout(std430, binding = 0) readonly buffer In { float src[]; };
layout(std430, binding = 1) readonly buffer Co { float co[]; };
layout(r32f, binding = 2) uniform writeonly image2D dst;
// Four rows per invocation.
void main() {
    ivec2 g = ivec2(gl_GlobalInvocationID.x, gl_GlobalInvocationID.y * 4u);
    if (g.x >= p.w) return;
    for (int r = 0; r < 4; ++r)
        if (g.y + r < p.h) imageStore(dst, ivec2(g.x, g.y + r), vec4(src[(g.y + r) * p.w + g.x]));
}
