"""Experiment (not committed): does where the 2048^2 image lies in memory change the gather's time?"""
import numpy as np
import kiln
exec(open(__file__.replace("place_exp.py", "sweep_exp.py")).read().split("vk = kiln.Kernel")[0].split("import cupy")[0])
VKsrc = open(__file__.replace("place_exp.py", "sweep_exp.py")).read().split('VK = r"""')[1].split('"""')[0]
vk = kiln.Kernel(VKsrc, name="gather")
n = 1 << 22
G = 2048
rng = np.random.default_rng(5)
u = rng.random((2, n), dtype=np.float32)
img = rng.random((G, G), dtype=np.float32)
co = (u * G).astype(np.float32)
for d1 in (0, 256, 65536, 1 << 20, (2 << 20) + 256, 8 << 20, 24 << 20, 100 << 20):
    for d2 in (0, 4 << 20):
        keep = []
        if d1: keep.append(kiln.asarray(np.zeros(d1 // 4, np.float32)))
        a = kiln.asarray(img)
        if d2: keep.append(kiln.asarray(np.zeros(d2 // 4, np.float32)))
        c = kiln.asarray(co)
        out = kiln.asarray(np.zeros(n, np.float32))
        f = lambda: vk(a, c, out, G, G, n, grid=n)
        t = kiln.benchmark(f, n_repeat=30, n_warmup=3).gpu_median_ms
        print(f"dummy before image {d1:>10d} B, before coords {d2:>8d} B: {t:.4f} ms", flush=True)
        del keep, a, c, out
# the image padded to a row stride of 2048 + 16, 2048 + 32
for pad in (16, 32, 64):
    W = G + pad
    padded = np.zeros((G, W), np.float32); padded[:, :G] = img
    a = kiln.asarray(padded); c = kiln.asarray(co); out = kiln.asarray(np.zeros(n, np.float32))
    VKP = VKsrc.replace("iy * p.w + ix", "iy * (p.w + PAD) + ix").replace("iy1 * p.w + ix", "iy1 * (p.w + PAD) + ix")
    VKP = VKP.replace("iy * p.w + ix1", "iy * (p.w + PAD) + ix1").replace("iy1 * p.w + ix1", "iy1 * (p.w + PAD) + ix1")
    k = kiln.Kernel(VKP, defines=[f"PAD={pad}"], name=f"gather_pad{pad}")
    t = kiln.benchmark(lambda: k(a, c, out, G, G, n, grid=n), n_repeat=30, n_warmup=3).gpu_median_ms
    print(f"row stride {W}: {t:.4f} ms", flush=True)
print(kiln.default_context().memory_stats())
