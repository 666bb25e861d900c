"""W74 experiment: where does Vulkan's bilinear gather lose to CUDA's at 2048^2?"""
import sys
import numpy as np
import kiln
try:
    import cupy as cp
    from cupyx.profiler import benchmark as cb
except ImportError:
    cp = None
HEAD = r"""#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer In { float src[]; };
layout(std430, binding = 1) readonly buffer Co { float co[]; };
layout(std430, binding = 2) writeonly buffer Out { float dst[]; };
layout(push_constant) uniform P { int h; int w; uint count; } p;
"""
BODY = r"""
    float fy = floor(y), fx = floor(x), ty = y - fy, tx = x - fx;
    int iy = int(fy), ix = int(fx);
    int iy1 = iy + 1 < p.h ? iy + 1 : p.h - 2, ix1 = ix + 1 < p.w ? ix + 1 : p.w - 2;
    float a0 = (1.0 - tx) * src[iy * p.w + ix] + tx * src[iy * p.w + ix1];
    float a1 = (1.0 - tx) * src[iy1 * p.w + ix] + tx * src[iy1 * p.w + ix1];
    float r = (1.0 - ty) * a0 + ty * a1;
"""
VK_BASE = HEAD + r"""void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= p.count) return;
    float y = co[i], x = co[p.count + i];
    if (!(y >= 0.0 && y <= float(p.h - 1) && x >= 0.0 && x <= float(p.w - 1))) { dst[i] = 0.0; return; }
""" + BODY + "    dst[i] = r;\n}\n"
HASH = r"""uint hash(uint v) { v ^= v >> 16; v *= 0x7feb352du; v ^= v >> 15; v *= 0x846ca68bu; v ^= v >> 16; return v; }
"""
VK_HASH = HEAD + HASH + r"""void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= p.count) return;
    float y = float(hash(2u * i) >> 8) * (1.0 / 16777216.0) * float(p.h - 1);
    float x = float(hash(2u * i + 1u) >> 8) * (1.0 / 16777216.0) * float(p.w - 1);
""" + BODY + "    if (r < -1.0) dst[i] = r;\n}\n"
CU_BODY = r"""
  float fy = floorf(y), fx = floorf(x), ty = y - fy, tx = x - fx; int iy = (int)fy, ix = (int)fx;
  int iy1 = iy + 1 < h ? iy + 1 : h - 2, ix1 = ix + 1 < w ? ix + 1 : w - 2;
  float a0 = (1 - tx) * s[iy * w + ix] + tx * s[iy * w + ix1];
  float a1 = (1 - tx) * s[iy1 * w + ix] + tx * s[iy1 * w + ix1];
  float r = (1 - ty) * a0 + ty * a1;
"""
CU_BASE = r'''extern "C" __global__ void k(const float* __restrict__ s, const float* __restrict__ c, float* d, int h, int w, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float y = c[i], x = c[n + i];
  if (!(y >= 0.f && y <= h - 1 && x >= 0.f && x <= w - 1)) { d[i] = 0.f; return; }''' + CU_BODY + "  d[i] = r; }"
CU_STREAM = r'''extern "C" __global__ void k(const float* __restrict__ s, const float* __restrict__ c, float* d, int h, int w, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float y = __ldcs(c + i), x = __ldcs(c + n + i);
  if (!(y >= 0.f && y <= h - 1 && x >= 0.f && x <= w - 1)) { __stcs(d + i, 0.f); return; }''' + CU_BODY + "  __stcs(d + i, r); }"
CU_HASH = r'''__device__ unsigned hsh(unsigned v) { v ^= v >> 16; v *= 0x7feb352du; v ^= v >> 15; v *= 0x846ca68bu; v ^= v >> 16; return v; }
extern "C" __global__ void k(const float* __restrict__ s, const float* __restrict__ c, float* d, int h, int w, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float y = (float)(hsh(2u * i) >> 8) * (1.0f / 16777216.0f) * (float)(h - 1);
  float x = (float)(hsh(2u * i + 1u) >> 8) * (1.0f / 16777216.0f) * (float)(w - 1);''' + CU_BODY + "  if (r < -1.f) d[i] = r; }"


VK_ILP = HEAD.replace("#version 450", "#version 450\n#extension GL_EXT_control_flow_attributes : require") + r"""layout(constant_id = 3) const uint K = 2;
void main() {
    uint base = gl_WorkGroupID.x * 256u * K + gl_LocalInvocationID.x;
    float r[K];
    uint idx[K];
    [[unroll]] for (uint k = 0; k < K; ++k) {
        uint i = base + k * 256u;
        idx[k] = i;
        r[k] = 0.0;
        if (i >= p.count) continue;
        float y = co[i], x = co[p.count + i];
        if (!(y >= 0.0 && y <= float(p.h - 1) && x >= 0.0 && x <= float(p.w - 1))) continue;
""" + BODY.replace("float r =", "r[k] =") + r"""    }
    [[unroll]] for (uint k = 0; k < K; ++k) if (idx[k] < p.count) dst[idx[k]] = r[k];
}
"""
variants = {"base": VK_BASE, "hash": VK_HASH}
extra = sys.argv[1:]
kernels = {k: kiln.Kernel(v, name="g_" + k) for k, v in variants.items()}
ilp = {K: kiln.Kernel(VK_ILP.replace("const uint K = 2", f"const uint K = {K}"), name=f"g_ilp{K}") for K in (2, 4)}
cuk = {}
if cp is not None:
    cuk = {"base": cp.RawKernel(CU_BASE, "k"), "hash": cp.RawKernel(CU_HASH, "k"), "stream": cp.RawKernel(CU_STREAM, "k")}
n = 1 << 22
rng = np.random.default_rng(5)
u = rng.random((2, n), dtype=np.float32)
out = kiln.asarray(np.zeros(n, np.float32))
cd = cp.empty(n, cp.float32) if cp is not None else None
sizes = [int(s) for s in extra] or [1024, 1448, 1774, 2048, 2290, 2508, 2896, 3547, 4096]
for G in sizes:
    img = rng.random((G, G), dtype=np.float32)
    co = (u * (G - 1)).astype(np.float32)
    a, c = kiln.asarray(img), kiln.asarray(co)
    line = f"G={G:5d} ({G*G*4/2**20:6.1f} MiB)"
    for name, k in kernels.items():
        t = kiln.benchmark(lambda: k(a, c, out, G, G, n, grid=n), n_repeat=30, n_warmup=3).gpu_median_ms
        line += f"  vk-{name} {t:.4f}"
    for K, k in ilp.items():
        t = kiln.benchmark(lambda: k(a, c, out, G, G, n, grid=(n + K - 1) // K), n_repeat=30, n_warmup=3).gpu_median_ms
        line += f"  vk-ilp{K} {t:.4f}"
    if cp is not None:
        ca, cc = cp.asarray(img), cp.asarray(co)
        for name, k in cuk.items():
            r = cb(lambda: k(((n + 255) // 256,), (256,), (ca, cc, cd, np.int32(G), np.int32(G), np.uint32(n))), n_repeat=30, n_warmup=3)
            line += f"  cu-{name} {float(np.median(r.gpu_times)) * 1e3:.4f}"
    print(line, flush=True)
