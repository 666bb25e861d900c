import numpy as np, cupy as cp
from cupyx.profiler import benchmark as cb
G = 2048; rng = np.random.default_rng(74)
img = rng.random((G, G), dtype=np.float32); co = (rng.random((2, G * G), dtype=np.float32) * G).astype(np.float32)
ca, cc = cp.asarray(img), cp.asarray(co); cd = cp.empty(G * G, cp.float32); n = G * G
body = r'''
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float y = c[i], x = c[n + i];
  if (!(y >= 0.f && y <= h - 1 && x >= 0.f && x <= w - 1)) { d[i] = 0.f; return; }
  float fy = floorf(y), fx = floorf(x), ty = y - fy, tx = x - fx; int iy = (int)fy, ix = (int)fx;
  int iy1 = iy + 1 < h ? iy + 1 : h - 2, ix1 = ix + 1 < w ? ix + 1 : w - 2;
  float a0 = (1 - tx) * LD(s + iy * w + ix) + tx * LD(s + iy * w + ix1);
  float a1 = (1 - tx) * LD(s + iy1 * w + ix) + tx * LD(s + iy1 * w + ix1);
  d[i] = (1 - ty) * a0 + ty * a1; }'''
variants = {
  "restrict const": ('const float* __restrict__ s, const float* __restrict__ c, float* __restrict__ d', '*'),
  "plain": ('float* s, float* c, float* d', '*'),
  "ldg": ('const float* s, const float* c, float* d', '__ldg'),
  "ldcg (L2 only)": ('const float* s, const float* c, float* d', '__ldcg'),
  "ldca": ('const float* s, const float* c, float* d', '__ldca'),
  "ldcv (volatile)": ('const float* s, const float* c, float* d', '__ldcv'),
}
for name, (args, ld) in variants.items():
    src = '#define LD(p) ' + ('(*(p))' if ld == '*' else ld + '(p)') + '\nextern "C" __global__ void k(' + args + ', int h, int w, unsigned n) {' + body
    rk = cp.RawKernel(src, "k")
    for rep in range(2):
        r = cb(lambda: rk(((n + 255) // 256,), (256,), (ca, cc, cd, np.int32(G), np.int32(G), np.uint32(n))), n_repeat=30, n_warmup=3)
    print(f"{name:20s} {float(np.median(r.gpu_times)) * 1e3:.4f} ms")
