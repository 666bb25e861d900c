"""CuPy's side of kiln-bench's rank and box filter workloads (W30-W36,
bench/rank_filters.cpp): the same shapes, dtype (float32), parameters and
mode (reflect), on uniform random input in [0, 1)."""
import numpy as np


def workloads(cp, cndi, csig, ndi, sig):
    rng = np.random.default_rng(1)
    img = rng.random((2048, 2048), dtype=np.float32)
    vol = rng.random((256, 256, 256), dtype=np.float32)

    def maker(host, fn):
        def make():
            a = cp.asarray(host)
            return lambda: fn(a)
        return make

    def cpu(host, fn):
        return lambda: (lambda: fn(host))

    img_bytes, vol_bytes = 2 * img.nbytes, 2 * vol.nbytes
    w = {}
    for wid, box in [("W30", 3), ("W31", 7), ("W32", 15)]:
        w[wid] = dict(name="median_filter %dx%d, 2048^2 float32" % (box, box),
                      cupy=maker(img, lambda a, box=box: cndi.median_filter(a, size=box)),
                      cpu=cpu(img, lambda a, box=box: ndi.median_filter(a, size=box)) if box <= 7 else None,
                      bytes=img_bytes)
    w["W33"] = dict(name="percentile_filter 25 5x5, 2048^2 float32",
                    cupy=maker(img, lambda a: cndi.percentile_filter(a, 25, size=5)),
                    cpu=cpu(img, lambda a: ndi.percentile_filter(a, 25, size=5)), bytes=img_bytes)
    w["W34"] = dict(name="uniform_filter size 15, 2048^2 float32",
                    cupy=maker(img, lambda a: cndi.uniform_filter(a, 15)),
                    cpu=cpu(img, lambda a: ndi.uniform_filter(a, 15)), bytes=img_bytes)
    w["W35"] = dict(name="median_filter 3x3x3, 256^3 float32",
                    cupy=maker(vol, lambda a: cndi.median_filter(a, size=3)),
                    cpu=None, bytes=vol_bytes)
    w["W36"] = dict(name="uniform_filter 5x5x5, 256^3 float32",
                    cupy=maker(vol, lambda a: cndi.uniform_filter(a, 5)),
                    cpu=cpu(vol, lambda a: ndi.uniform_filter(a, 5)), bytes=vol_bytes)
    return w
