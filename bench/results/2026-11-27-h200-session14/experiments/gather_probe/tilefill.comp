#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform P { int h; int w; uint count; } p;
layout(std430, binding = 0) readonly buffer In { float src[]; };
layout(std430, binding = 1) readonly buffer Co { float co[]; };
layout(std430, binding = 2) writeonly buffer Out { float dst[]; };
layout(constant_id = 0) const int LX = 3;
layout(constant_id = 1) const int LY = 2;
void main() {
    // Invocation i writes tiled element i (consecutive writes), reading its source.
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(p.h * p.w)) return;
    int t = int(i) >> (LX + LY), r = int(i) & ((1 << (LX + LY)) - 1);
    int tw = p.w >> LX;
    int y = ((t / tw) << LY) + (r >> LX), x = ((t % tw) << LX) + (r & ((1 << LX) - 1));
    dst[i] = src[y * p.w + x];
}
