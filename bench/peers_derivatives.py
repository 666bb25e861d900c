"""CuPy's side of kiln-bench's W40-W46, the derivative filters
(bench/derivatives.cpp): cupyx.scipy.ndimage with the same shapes, dtypes and
parameters (float32, mode reflect unless said; W45, skimage's difference of
Gaussians, as two gaussian_filter calls in its mode nearest and a subtraction).
Loaded by bench/compare.py (family_peers)."""
import numpy as np


def workloads(cp, cndi, csig, ndi, sig):
    img = np.random.default_rng(1).random((2048, 2048), dtype=np.float32)
    vol = np.random.default_rng(2).random((256, 256, 256), dtype=np.float32)
    image_bytes = 2 * img.nbytes  # read once, write once: the floor of every 2-D workload

    def on_gpu(data, fn):
        def maker():
            a = cp.asarray(data)
            return lambda: fn(cndi, a)
        return maker

    def on_cpu(data, fn):
        return lambda: (lambda: fn(ndi, data))

    def dog(nd, a):
        return nd.gaussian_filter(a, 1.0, mode="nearest") - nd.gaussian_filter(a, 1.6, mode="nearest")

    table = {
        "W40": ("sobel axis 0, 2048^2 float32", img, lambda nd, a: nd.sobel(a, axis=0)),
        "W41": ("laplace, 2048^2 float32", img, lambda nd, a: nd.laplace(a)),
        "W42": ("gaussian_laplace sigma 2, 2048^2 float32", img, lambda nd, a: nd.gaussian_laplace(a, 2)),
        "W43": ("gaussian_gradient_magnitude sigma 2, 2048^2 float32", img,
                lambda nd, a: nd.gaussian_gradient_magnitude(a, 2)),
        "W44": ("gaussian_filter sigma 2 order (0, 1), 2048^2 float32", img,
                lambda nd, a: nd.gaussian_filter(a, 2, order=(0, 1))),
        "W45": ("difference_of_gaussians (1, 1.6), 2048^2 float32", img, dog),
        "W46": ("sobel axis 0, 256^3 float32", vol, lambda nd, a: nd.sobel(a, axis=0)),
    }
    return {wid: dict(name=name, cupy=on_gpu(data, fn), cpu=on_cpu(data, fn),
                      bytes=image_bytes if data is img else 2 * vol.nbytes)
            for wid, (name, data, fn) in table.items()}
