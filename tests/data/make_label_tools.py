#!/usr/bin/env python3
"""Writes tests/data/label_tools/: label images (int32, with gaps in the
numbering) and what scikit-image, NumPy and SciPy make of them, for
tests/ops/test_label_tools.cpp and tests/cpu/test_label_tools_ref.cpp:
<name>.npy the labels, <name>_relabel.npy skimage's relabel_sequential,
<name>_sizes.npy numpy.bincount(labels)[1:], <name>_objects.npy
scipy.ndimage.find_objects as (N, 2*ndim) start/stop, -1 -1 for None.
Run with /usr/bin/python3:
    /usr/bin/python3 tests/data/make_label_tools.py
"""
import os

import numpy as np
from scipy import ndimage
from skimage.segmentation import relabel_sequential

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "label_tools")


def labels():
    rng = np.random.default_rng(5)
    for name, shape in (("l2", (13, 17)), ("l3", (9, 11, 7))):
        lab, n = ndimage.label(rng.random(shape) < 0.45)
        # Gaps and large values: drop every third label, spread the rest out.
        lab[np.isin(lab, np.arange(3, n + 1, 3))] = 0
        lab = np.where(lab > 0, lab * 3 + 1, 0).astype(np.int32)
        yield name, lab


def objects(lab):
    nd = lab.ndim
    rows = []
    for sl in ndimage.find_objects(lab):
        rows.append([-1] * (2 * nd) if sl is None else [v for s in sl for v in (s.start, s.stop)])
    return np.array(rows, dtype=np.int32).reshape(-1, 2 * nd)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, lab in labels():
        np.save(os.path.join(OUT, name + ".npy"), lab)
        np.save(os.path.join(OUT, name + "_relabel.npy"), relabel_sequential(lab)[0].astype(np.int32))
        np.save(os.path.join(OUT, name + "_sizes.npy"), np.bincount(lab.ravel())[1:].astype(np.int32))
        np.save(os.path.join(OUT, name + "_objects.npy"), objects(lab))
        print(name, lab.shape, lab.max())


if __name__ == "__main__":
    main()
