"""Peers of bench/distance.cpp (W60-W63) for bench/compare.py: the same
inputs, built from the same integer hashes with NumPy.

W60, W61: cupyx.scipy.ndimage.distance_transform_edt(mask, float64_distances=
False), float32 as kiln's default result (CuPy >= 13, PBA+); the CPU column
is scipy.ndimage.distance_transform_edt (float64, its only dtype).
W63, W64: the same on a 2048^2 (256^3) mask of ones but for 16 hashed zeros
(sparse_mask).
W62: CuPy and cuCIM have no watershed: cupy=None; the CPU column is
skimage.segmentation.watershed(image, markers, connectivity=1).
"""
import numpy as np


def cell_hash(a, b, c):
    a, b, c = (np.asarray(v, dtype=np.uint32) for v in (a, b, c))
    return ((a * np.uint32(73856093)) ^ (b * np.uint32(19349663)) ^ (c * np.uint32(83492791))) * np.uint32(2654435761)


def blob_mask(nz, ny, nx):
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    h = cell_hash(z // 16, y // 16, x // 16).astype(np.int64)
    cz = np.zeros_like(h) if nz == 1 else (h >> 20) & 15
    cy, cx, r = h & 15, (h >> 4) & 15, 5 + (h >> 8) % 6
    dz, dy, dx = z % 16 - cz, y % 16 - cy, x % 16 - cx
    d2 = dy * dy + dx * dx + (dz * dz if nz > 1 else 0)
    m = np.where(d2 < r * r, 0, 1).astype(np.uint8)
    return m[0] if nz == 1 else m


def sparse_mask(side, nz=1):
    k = np.arange(16, dtype=np.uint32)
    m = np.ones((nz, side, side), np.uint8)
    z = np.zeros(16, np.uint32) if nz == 1 else cell_hash(k, 5, 6) % np.uint32(nz)
    m[z, cell_hash(k, 1, 2) % np.uint32(side), cell_hash(k, 3, 4) % np.uint32(side)] = 0
    return m[0] if nz == 1 else m


def bowls(side):
    y, x = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    dy, dx = y % 64 - 32, x % 64 - 32
    rough = (cell_hash(y, x, 7) >> np.uint32(20)).astype(np.int64)
    image = ((dy * dy + dx * dx) * 4096 + rough).astype(np.float32)
    markers = np.zeros((side, side), np.int32)
    centre = (dy == 0) & (dx == 0)
    markers[centre] = np.arange(1, int(centre.sum()) + 1, dtype=np.int32)
    return image, markers


def workloads(cp, cndi, csig, ndi, sig):
    w = {}
    for wid, shape in (("W60", (1, 2048, 2048)), ("W61", (256, 256, 256))):
        def cupy_edt(shape=shape):
            m = cp.asarray(blob_mask(*shape))
            return lambda: cndi.distance_transform_edt(m, float64_distances=False)

        def cpu_edt(shape=shape):
            m = blob_mask(*shape)
            return lambda: ndi.distance_transform_edt(m)
        n = int(np.prod(shape))
        w[wid] = dict(name="distance_transform_edt %s uint8 blobs -> float32" % "x".join(map(str, shape[-3 + (shape[0] == 1):])),
                      cupy=cupy_edt if cp is not None else None, cpu=cpu_edt if ndi is not None else None,
                      bytes=n * 5)

    for wid, side, nz in (("W63", 2048, 1), ("W64", 256, 256)):
        def cupy_sparse(side=side, nz=nz):
            m = cp.asarray(sparse_mask(side, nz))
            return lambda: cndi.distance_transform_edt(m, float64_distances=False)

        def cpu_sparse(side=side, nz=nz):
            m = sparse_mask(side, nz)
            return lambda: ndi.distance_transform_edt(m)
        shape = (side, side) if nz == 1 else (nz, side, side)
        w[wid] = dict(name="distance_transform_edt %s uint8, 16 zeros -> float32" % "x".join(map(str, shape)),
                      cupy=cupy_sparse if cp is not None else None, cpu=cpu_sparse if ndi is not None else None,
                      bytes=nz * side * side * 5)

    def cpu_ws():
        from skimage.segmentation import watershed
        image, markers = bowls(2048)
        return lambda: watershed(image, markers, connectivity=1)
    w["W62"] = dict(name="watershed 2048^2 float32 bowls, 1024 markers (no CuPy peer: skimage on the CPU)",
                    cupy=None, cpu=cpu_ws, bytes=2048 * 2048 * 12)
    return w
