#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform P { int h; int w; uint count; } p;
layout(std430, binding = 1) readonly buffer Co { float co[]; };
layout(std430, binding = 2) writeonly buffer Out { float dst[]; };
layout(std430, binding = 0) restrict readonly buffer In { float src[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= p.count) return;
    float y = co[i], x = co[p.count + i];
    if (!(y >= 0.0 && y <= float(p.h - 1) && x >= 0.0 && x <= float(p.w - 1))) { dst[i] = 0.0; return; }
    float fy = floor(y), fx = floor(x), ty = y - fy, tx = x - fx;
    int iy = int(fy), ix = int(fx);
    int iy1 = iy + 1 < p.h ? iy + 1 : p.h - 2, ix1 = ix + 1 < p.w ? ix + 1 : p.w - 2;
    float v00 = src[iy * p.w + ix], v01 = src[iy * p.w + ix1];
    float v10 = src[iy1 * p.w + ix], v11 = src[iy1 * p.w + ix1];
    float a0 = (1.0 - tx) * v00 + tx * v01;
    float a1 = (1.0 - tx) * v10 + tx * v11;
    dst[i] = (1.0 - ty) * a0 + ty * a1;
}
