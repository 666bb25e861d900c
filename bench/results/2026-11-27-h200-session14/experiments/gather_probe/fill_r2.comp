#version 450
layout(local_size_x = 64, local_size_y = 4) in;
layout(push_constant) uniform P { int h; int w; uint count; } p;
layout(std430, binding = 0) readonly buffer In { float src[]; };
layout(std430, binding = 1) readonly buffer Co { float co[]; };
layout(r32f, binding = 2) uniform writeonly image2D dst;
void main() {
    const int x0 = int(gl_GlobalInvocationID.x) * 1, y0 = int(gl_GlobalInvocationID.y) * 2;
    if (x0 >= p.w) return;
    for (int r = 0; r < 2; ++r) {
        const int y = y0 + r;
        if (y >= p.h) return;
        imageStore(dst, ivec2(x0, y), vec4(src[y * p.w + x0]));
    }
}
