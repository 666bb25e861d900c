"""CuPy's equivalents of bench/morphology.cpp (W20-W25) for bench/compare.py:
the same inputs (a hashed float32 field, rings around holes as bool), shapes
and parameters; cupyx.scipy.ndimage's binary ops take bool arrays."""
import numpy as np


def hashed(shape):
    i = np.arange(int(np.prod(shape)), dtype=np.uint64)
    v = ((i * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)) >> np.uint64(8)
    return (v.astype(np.float32) / np.float32(1 << 24)).reshape(shape)


def rings(n):
    y, x = np.mgrid[0:n, 0:n]
    dy, dx = y % 32 - 16, x % 32 - 16
    r2 = dy * dy + dx * dx
    rin = 6 + ((y // 32) * 7 + (x // 32) * 3) % 5
    return (r2 >= rin * rin) & (r2 < (rin + 3) ** 2)


def workloads(cp, cndi, csig, ndi, sig):
    def grey(shape, size, fn_name):
        host = hashed(shape)

        def cupy():
            a = cp.asarray(host)
            fn = getattr(cndi, fn_name)
            return lambda: fn(a, size=size)

        def cpu():
            fn = getattr(ndi, fn_name)
            return lambda: fn(host, size=size)
        return dict(cupy=cupy, cpu=cpu, bytes=2 * host.nbytes)

    def binary(fn_name):
        host = rings(2048)

        def cupy():
            a = cp.asarray(host)
            fn = getattr(cndi, fn_name)
            return lambda: fn(a)

        def cpu():
            fn = getattr(ndi, fn_name)
            return lambda: fn(host)
        return dict(cupy=cupy, cpu=cpu, bytes=2 * host.nbytes)

    return {
        "W20": dict(name="grey_erosion size 3x3, 2048^2 float32", **grey((2048, 2048), 3, "grey_erosion")),
        "W21": dict(name="grey_erosion size 15x15, 2048^2 float32", **grey((2048, 2048), 15, "grey_erosion")),
        "W22": dict(name="binary_erosion 3x3 cross, 2048^2 bool rings", **binary("binary_erosion")),
        "W23": dict(name="binary_fill_holes, 2048^2 bool rings", **binary("binary_fill_holes")),
        "W24": dict(name="grey_erosion size 3x3x3, 256^3 float32", **grey((256, 256, 256), 3, "grey_erosion")),
        "W25": dict(name="maximum_filter size 5x5, 2048^2 float32", **grey((2048, 2048), 5, "maximum_filter")),
    }
