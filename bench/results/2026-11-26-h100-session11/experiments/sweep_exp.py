"""Experiment (not committed): the minimal bilinear gather in Vulkan (kiln.Kernel) and CUDA (CuPy RawKernel)
over images of 256^2..8192^2 with 4M random coordinates: does the gap grow with the footprint?"""
import numpy as np
import kiln
import cupy as cp
from cupyx.profiler import benchmark as cb
VK = r"""#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer In { float src[]; };
layout(std430, binding = 1) readonly buffer Co { float co[]; };
layout(std430, binding = 2) writeonly buffer Out { float dst[]; };
layout(push_constant) uniform P { int h; int w; uint count; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= p.count) return;
    float y = co[i], x = co[p.count + i];
    if (!(y >= 0.0 && y <= float(p.h - 1) && x >= 0.0 && x <= float(p.w - 1))) { dst[i] = 0.0; return; }
    float fy = floor(y), fx = floor(x), ty = y - fy, tx = x - fx;
    int iy = int(fy), ix = int(fx);
    int iy1 = iy + 1 < p.h ? iy + 1 : p.h - 2, ix1 = ix + 1 < p.w ? ix + 1 : p.w - 2;
    float a0 = (1.0 - tx) * src[iy * p.w + ix] + tx * src[iy * p.w + ix1];
    float a1 = (1.0 - tx) * src[iy1 * p.w + ix] + tx * src[iy1 * p.w + ix1];
    dst[i] = (1.0 - ty) * a0 + ty * a1;
}
"""
CU = r'''extern "C" __global__ void k(const float* s, const float* c, float* d, int h, int w, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float y = c[i], x = c[n + i];
  if (!(y >= 0.f && y <= h - 1 && x >= 0.f && x <= w - 1)) { d[i] = 0.f; return; }
  float fy = floorf(y), fx = floorf(x), ty = y - fy, tx = x - fx; int iy = (int)fy, ix = (int)fx;
  int iy1 = iy + 1 < h ? iy + 1 : h - 2, ix1 = ix + 1 < w ? ix + 1 : w - 2;
  float a0 = (1 - tx) * s[iy * w + ix] + tx * s[iy * w + ix1];
  float a1 = (1 - tx) * s[iy1 * w + ix] + tx * s[iy1 * w + ix1];
  d[i] = (1 - ty) * a0 + ty * a1; }'''
vk = kiln.Kernel(VK, name="gather")
rk = cp.RawKernel(CU, "k")
n = 1 << 22
rng = np.random.default_rng(5)
u = rng.random((2, n), dtype=np.float32)
out = kiln.asarray(np.zeros(n, np.float32))
cd = cp.empty(n, cp.float32)
for G in (256, 512, 1024, 2048, 4096, 8192):
    img = rng.random((G, G), dtype=np.float32)
    co = (u * G).astype(np.float32)
    a, c = kiln.asarray(img), kiln.asarray(co)
    f = lambda: vk(a, c, out, G, G, n, grid=n)
    t_vk = kiln.benchmark(f, n_repeat=30, n_warmup=3).gpu_median_ms
    ca, cc = cp.asarray(img), cp.asarray(co)
    r = cb(lambda: rk(((n + 255) // 256,), (256,), (ca, cc, cd, np.int32(G), np.int32(G), np.uint32(n))), n_repeat=30, n_warmup=3)
    t_cu = float(np.median(r.gpu_times)) * 1e3
    # sorted coordinates (row-major order of the taps): locality, same work
    order = np.lexsort((co[1], co[0]))
    cs = np.ascontiguousarray(co[:, order])
    c2 = kiln.asarray(cs)
    f2 = lambda: vk(a, c2, out, G, G, n, grid=n)
    t_vk_s = kiln.benchmark(f2, n_repeat=30, n_warmup=3).gpu_median_ms
    cc2 = cp.asarray(cs)
    r = cb(lambda: rk(((n + 255) // 256,), (256,), (ca, cc2, cd, np.int32(G), np.int32(G), np.uint32(n))), n_repeat=30, n_warmup=3)
    t_cu_s = float(np.median(r.gpu_times)) * 1e3
    print(f"G={G:5d} ({G*G*4/2**20:7.1f} MiB)  vulkan {t_vk:.4f}  cuda {t_cu:.4f}  ratio {t_vk/t_cu:.2f}   sorted: vulkan {t_vk_s:.4f} cuda {t_cu_s:.4f}", flush=True)
