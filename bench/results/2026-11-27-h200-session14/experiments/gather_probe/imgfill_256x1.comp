#version 450
layout(local_size_x = 256, local_size_y = 1) in;
layout(push_constant) uniform P { int h; int w; uint count; } p;
layout(std430, binding = 0) readonly buffer In { float src[]; };
layout(std430, binding = 1) readonly buffer Co { float co[]; };
layout(r32f, binding = 2) uniform writeonly image2D dst;
void main() {
    ivec2 g = ivec2(gl_GlobalInvocationID.xy);
    if (g.x >= p.w || g.y >= p.h) return;
    imageStore(dst, g, vec4(src[g.y * p.w + g.x]));
}
