#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform P { int h; int w; uint count; } p;
layout(std430, binding = 1) readonly buffer Co { float co[]; };
layout(std430, binding = 2) writeonly buffer Out { float dst[]; };
layout(std430, binding = 0) readonly buffer In { float src[]; };
layout(constant_id = 0) const int LX = 3;  // log2 tile width
layout(constant_id = 1) const int LY = 2;  // log2 tile height
uint at(int y, int x) {
    int tw = p.w >> LX;  // w a multiple of the tile width
    return uint((((y >> LY) * tw + (x >> LX)) << (LX + LY)) + ((y & ((1 << LY) - 1)) << LX) + (x & ((1 << LX) - 1)));
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= p.count) return;
    float y = co[i], x = co[p.count + i];
    if (!(y >= 0.0 && y <= float(p.h - 1) && x >= 0.0 && x <= float(p.w - 1))) { dst[i] = 0.0; return; }
    float fy = floor(y), fx = floor(x), ty = y - fy, tx = x - fx;
    int iy = int(fy), ix = int(fx);
    int iy1 = iy + 1 < p.h ? iy + 1 : p.h - 2, ix1 = ix + 1 < p.w ? ix + 1 : p.w - 2;
    float v00 = src[at(iy, ix)], v01 = src[at(iy, ix1)];
    float v10 = src[at(iy1, ix)], v11 = src[at(iy1, ix1)];
    float a0 = (1.0 - tx) * v00 + tx * v01;
    float a1 = (1.0 - tx) * v10 + tx * v11;
    dst[i] = (1.0 - ty) * a0 + ty * a1;
}
