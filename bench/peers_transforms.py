"""CuPy's side of kiln-bench's W70-W75 (bench/transforms.cpp): the same
cupyx.scipy.ndimage calls on inputs of the same shapes, dtypes and
parameters (order, mode constant, prefilter), for bench/compare.py."""
import numpy as np

LINEAR = dict(order=1, mode="constant", cval=0.0, prefilter=True)
CUBIC = dict(order=3, mode="constant", cval=0.0, prefilter=True)
W73_MATRIX = np.array([[1.02, 0.15], [-0.12, 0.98]])
W73_OFFSET = (20.0, -30.0)


def workloads(cp, cndi, csig, ndi, sig):
    rng = np.random.default_rng(70)

    def uniform(shape):
        return rng.random(shape, dtype=np.float32)

    img2k, img1k, vol = uniform((2048, 2048)), uniform((1024, 1024)), uniform((128, 128, 128))
    coords = uniform((2, 2048 * 2048)) * 2048

    def on_device(fn, *arrays):
        def maker():
            dev = [cp.asarray(a) for a in arrays]
            return lambda: fn(cp, cndi, *dev)
        return maker

    def on_host(fn, *arrays):
        return lambda: (lambda: fn(np, ndi, *arrays))

    def w(name, fn, nbytes, *arrays):
        return dict(name=name, cupy=on_device(fn, *arrays), cpu=on_host(fn, *arrays), bytes=nbytes)

    mb = 2048 * 2048 * 4
    return {
        "W70": w("shift (10.3, -7.7) order 1, 2048^2 float32",
                 lambda xp, nd, a: nd.shift(a, (10.3, -7.7), **LINEAR), 2 * mb, img2k),
        "W71": w("zoom 2x order 3 with prefilter, 1024^2 -> 2048^2 float32",
                 lambda xp, nd, a: nd.zoom(a, 2.0, **CUBIC), mb + mb // 4, img1k),
        "W72": w("rotate 30 degrees order 1 reshape=False, 2048^2 float32",
                 lambda xp, nd, a: nd.rotate(a, 30, reshape=False, **LINEAR), 2 * mb, img2k),
        "W73": w("affine_transform order 3 with prefilter, 2048^2 float32",
                 lambda xp, nd, a: nd.affine_transform(a, xp.asarray(W73_MATRIX), offset=W73_OFFSET, **CUBIC),
                 2 * mb, img2k),
        "W74": w("map_coordinates order 1, 4M float32 coordinates into 2048^2 float32",
                 lambda xp, nd, a, c: nd.map_coordinates(a, c, **LINEAR), 4 * mb, img2k, coords),
        "W75": w("zoom 2x order 1, 128^3 -> 256^3 float32",
                 lambda xp, nd, a: nd.zoom(a, 2.0, **LINEAR), 128 ** 3 * 4 * 9, vol),
    }
