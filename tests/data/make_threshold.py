#!/usr/bin/env python3
"""Writes tests/data/threshold/: small images and scikit-image's thresholds
of them, for tests/ops/test_threshold.cpp and tests/cpu/test_threshold_ref.cpp.

<name>.npy is the image; <name>_thresholds.npy is float64
[otsu, yen, triangle, li (defaults), tolerance, li (that tolerance)], where
the tolerance is scikit-image's float default (half the smallest gap between
distinct values) or 0.5 for integers. Run with /usr/bin/python3 (NumPy 1.24,
scikit-image 0.19):
    /usr/bin/python3 tests/data/make_threshold.py
"""
import os

import numpy as np
from skimage import filters

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "threshold")


def images():
    rng = np.random.default_rng(18)
    two = lambda shape, a, b, s: np.where(rng.random(shape) < 0.35, rng.normal(a, s, shape), rng.normal(b, s, shape))
    yield "f32", two((13, 17), 10.0, 40.0, 6.0).astype(np.float32)
    yield "f32_skew", (rng.gamma(2.0, 3.0, (15, 11)) + 1000).astype(np.float32)
    yield "f64_3d", two((9, 11, 7), -3.0, 5.0, 2.0)
    yield "u8", np.clip(two((13, 17), 60, 170, 25), 0, 255).astype(np.uint8)
    yield "i16", np.round(two((11, 13), -400, 900, 150)).astype(np.int16)
    yield "u16", np.round(two((17, 19), 2000, 30000, 4000)).clip(0, 65535).astype(np.uint16)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, image in images():
        np.save(os.path.join(OUT, name + ".npy"), image)
        shifted = image - image.min()
        tol = 0.5 if image.dtype.kind in "iu" else float(np.min(np.diff(np.unique(shifted))) / 2)
        t = [filters.threshold_otsu(image), filters.threshold_yen(image), filters.threshold_triangle(image),
             filters.threshold_li(image), tol, filters.threshold_li(image, tolerance=tol)]
        np.save(os.path.join(OUT, name + "_thresholds.npy"), np.array(t, dtype=np.float64))
        print(name, image.dtype, t)


if __name__ == "__main__":
    main()
