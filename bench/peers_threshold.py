"""CuPy's side of bench/threshold.cpp (W50-W55) for bench/compare.py: the same
synthetic 2048^2 blob image and blob labels (bench/threshold.cpp's blobs(),
repeated here with NumPy), and the CuPy composite of each op:

W50 threshold_otsu: cp.histogram(256 bins) + skimage's Otsu steps in CuPy ops.
W51 relabel_sequential: cp.bincount, cumsum of the present labels, gather.
W52 exclude_labels_on_edges: border labels flagged by indexing, cumsum, gather.
W53 label_sizes: cp.bincount(labels)[1:].
W54 find_objects: cupyx.scatter_min/scatter_max of the coordinates per label
    (cupyx.scipy.ndimage has no find_objects before CuPy 14).
W55 voronoi_otsu_labeling: gaussian_filter, maxima as blur == maximum_filter
    3x3 (not strict: CuPy has no strict local maximum), Otsu as W50, label
    (8-connectivity), then masked growth: grey_dilation with the 3x3 box and
    the cross alternately, written only into background foreground pixels,
    until a step changes nothing (one cp.any read back per step, as
    pyclesperanto reads its flag).
"""
import numpy as np

N = 2048


def _hash(x):
    x = x.astype(np.uint32)
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    return x


def blobs(n=N):
    i = np.arange(n * n, dtype=np.uint64)
    img = (10.0 + 5.0 * (i % n).astype(np.float32) / np.float32(n)
           + (_hash(i.astype(np.uint32)) % 1000).astype(np.float32) / np.float32(500.0)).astype(np.float32)
    img = img.reshape(n, n)
    lab = np.zeros((n, n), np.int32)
    cells = n // 32
    for cy in range(cells):
        for cx in range(cells):
            k = cy * cells + cx
            h = int(_hash(np.array([k + 12345]))[0])
            y0 = cy * 32 + 4 + h % 24
            x0 = cx * 32 + 4 + (h >> 8) % 24
            peak = np.float32(50 + (h >> 16) % 50)
            ys, xs = slice(max(y0 - 15, 0), min(y0 + 16, n)), slice(max(x0 - 15, 0), min(x0 + 16, n))
            yy, xx = np.mgrid[ys, xs]
            r2 = (yy - y0) ** 2 + (xx - x0) ** 2
            img[ys, xs] += peak * np.exp(-r2 / 50.0).astype(np.float32)
            lab[ys, xs] = np.where(r2 <= 81, 3 * k + 1, lab[ys, xs])
    return img, lab


def workloads(cp, cndi, csig, ndi, sig):
    import cupyx

    img_h, lab_h = blobs()
    n = img_h.size

    def otsu(a):
        counts, edges = cp.histogram(a, bins=256)
        centers = (edges[:-1] + edges[1:]) / 2
        counts = counts.astype(cp.float64)
        w1 = cp.cumsum(counts)
        w2 = cp.cumsum(counts[::-1])[::-1]
        cb = counts * centers
        m1 = cp.cumsum(cb) / w1
        m2 = (cp.cumsum(cb[::-1]) / w2[::-1])[::-1]
        var = w1[:-1] * w2[1:] * (m1[:-1] - m2[1:]) ** 2
        return float(centers[cp.argmax(var)])

    def w50():
        a = cp.asarray(img_h)
        return lambda: otsu(a)

    def renumber(lab, keep):
        keep[0] = False
        table = (cp.cumsum(keep) * keep).astype(cp.int32)
        return table[lab]

    def w51():
        lab = cp.asarray(lab_h)
        return lambda: renumber(lab, cp.bincount(lab.ravel()) > 0)

    def w52():
        lab = cp.asarray(lab_h)

        def run():
            m = int(lab.max())
            keep = cp.ones(m + 1, dtype=bool)
            keep[cp.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])] = False
            return renumber(lab, keep)
        return run

    def w53():
        lab = cp.asarray(lab_h)
        return lambda: cp.bincount(lab.ravel())[1:]

    def w54():
        lab = cp.asarray(lab_h)
        yy, xx = cp.mgrid[0:N, 0:N]
        yy, xx = yy.astype(cp.int32).ravel(), xx.astype(cp.int32).ravel()

        def run():
            m = int(lab.max())
            idx = lab.ravel()
            out = []
            for c in (yy, xx):
                lo = cp.full(m + 1, N, cp.int32)
                hi = cp.full(m + 1, -1, cp.int32)
                cupyx.scatter_min(lo, idx, c)
                cupyx.scatter_max(hi, idx, c)
                out += [lo[1:], hi[1:] + 1]
            return cp.stack(out, axis=1)
        return run

    def w55():
        a = cp.asarray(img_h)
        box = cp.ones((3, 3), bool)
        cross = cp.asarray(ndi.generate_binary_structure(2, 1))

        def run():
            blur = cndi.gaussian_filter(a, 2)
            t = otsu(blur)
            binary = blur > t
            spots = (blur == cndi.maximum_filter(blur, size=3)) & binary
            lab, _ = cndi.label(spots, structure=box)
            lab = cp.where(binary, lab, -1).astype(cp.int32)
            step = 0
            while True:
                grown = cndi.grey_dilation(lab, footprint=box if step % 2 == 0 else cross)
                new = cp.where(lab == 0, grown, lab)
                changed = bool(cp.any(new != lab))
                lab = new
                step += 1
                if not changed:
                    break
            return cp.maximum(lab, 0)
        return run

    return {
        "W50": dict(name="threshold_otsu 2048^2 float32 (256 bins)", cupy=w50, cpu=None, bytes=4 * n),
        "W51": dict(name="relabel_sequential 2048^2 int32 blob labels", cupy=w51, cpu=None, bytes=8 * n),
        "W52": dict(name="exclude_labels_on_edges 2048^2 int32 blob labels", cupy=w52, cpu=None, bytes=8 * n),
        "W53": dict(name="label_sizes 2048^2 int32 blob labels", cupy=w53, cpu=None, bytes=4 * n),
        "W54": dict(name="find_objects 2048^2 int32 blob labels", cupy=w54, cpu=None, bytes=4 * n),
        "W55": dict(name="voronoi_otsu_labeling 2048^2 float32 blobs, sigmas 2 2", cupy=w55, cpu=None,
                    bytes=8 * n),
    }
