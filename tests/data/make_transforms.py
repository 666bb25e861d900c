#!/usr/bin/env python3
"""Writes the fixtures in tests/data/transforms/ for the geometric transforms
(tests/cpu/test_transforms_ref.cpp, tests/ops/test_transforms.cpp).

cases.inc lists each case (the C++ test defines TransformCase before
including it); the arrays are .npy files beside it: in_<name>.npy inputs,
co_<name>.npy coordinates, <case>.npy expected results. Every expected value
is computed by SciPy (made with NumPy 1.24.2 and SciPy 1.10.1, Debian 12's
python3-numpy and python3-scipy):

  shift, zoom, rotate, affine  scipy.ndimage.shift/zoom/rotate/affine_transform
  map                          scipy.ndimage.map_coordinates
                               (all with output=numpy.float32, float64 for
                               float64 input)
  spline                       scipy.ndimage.spline_filter(order=3,
                               output=numpy.float64)

Shapes are small and odd (a longer line for the spline filter's reflect
initial value, which SciPy 1.10.1 computes slightly off on short lines); shifts and coordinates reach past the edges, past
a whole period too, so that every boundary mode's mapping is exercised.

Run from anywhere: /usr/bin/python3 tests/data/make_transforms.py
"""
import os
import warnings

import numpy as np
import scipy
from scipy import ndimage

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "transforms")
rng = np.random.default_rng(20240618)
MODES = ["constant", "grid-constant", "nearest", "reflect", "grid-mirror", "mirror", "wrap", "grid-wrap"]

inputs = {
    "img": (rng.normal(size=(7, 9)) * 10).astype(np.float32),
    "line": (rng.normal(size=15) * 10).astype(np.float32),
    "vol": (rng.normal(size=(5, 6, 7)) * 10).astype(np.float32),
    "u8": rng.integers(0, 256, size=(7, 9)).astype(np.uint8),
    "f64": rng.normal(size=(7, 9)) * 10,
    "f64line": rng.normal(size=41) * 10,
}
coords = {
    "img": rng.uniform(-3, 11, size=(2, 5, 6)),
    "half": (rng.integers(-2, 9, size=(2, 4, 5)) + 0.5).astype(np.float32),
    "line": rng.uniform(-20, 35, size=(1, 20)),
    "vol": rng.uniform(-2, 8, size=(3, 6, 7)).astype(np.float32),
}
cases = []


def num(x):
    return repr(float(x))


def vec(v):
    return "{" + ", ".join(num(x) for x in v) + "}"


def out_dtype(a):
    return np.float64 if a.dtype == np.float64 else np.float32


def add(name, op, inp, result, params=(), offset=(), output_shape=(), angle=0.0, axes=(1, 0),
        reshape=True, grid_mode=False, co="", order=3, mode="constant", cval=0.0, prefilter=True):
    np.save(os.path.join(OUT, name + ".npy"), result)
    cases.append('    {"%s", "%s", "%s", %s, %s, {%s}, %s, {%d, %d}, %s, %s, "%s", %d, "%s", %s, %s, {%s}}'
                 % (name, op, inp, vec(params), vec(offset), ", ".join(str(int(e)) for e in output_shape),
                    num(angle), axes[0], axes[1], str(reshape).lower(), str(grid_mode).lower(), co,
                    order, mode, num(cval), str(prefilter).lower(),
                    ", ".join(str(e) for e in result.shape)))


def kw(order, mode, cval, prefilter, a):
    return dict(order=order, mode=mode, cval=cval, prefilter=prefilter, output=out_dtype(a))


def shift(name, inp, s, order, mode, cval=0.0, prefilter=True):
    a = inputs[inp]
    r = ndimage.shift(a, s, **kw(order, mode, cval, prefilter, a))
    add(name, "shift", inp, r, params=s, order=order, mode=mode, cval=cval, prefilter=prefilter)


def zoom(name, inp, z, order, mode, cval=0.0, grid_mode=False):
    a = inputs[inp]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ndimage.zoom(a, z, grid_mode=grid_mode, **kw(order, mode, cval, True, a))
    add(name, "zoom", inp, r, params=np.atleast_1d(z), grid_mode=grid_mode, order=order, mode=mode, cval=cval)


def rotate(name, inp, angle, axes, reshape, order, mode, cval=0.0):
    a = inputs[inp]
    r = ndimage.rotate(a, angle, axes=axes, reshape=reshape, **kw(order, mode, cval, True, a))
    add(name, "rotate", inp, r, angle=angle, axes=axes, reshape=reshape, order=order, mode=mode,
        cval=cval)


def affine(name, inp, matrix, offset, output_shape, order, mode, cval=0.0):
    a = inputs[inp]
    m = np.asarray(matrix, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ndimage.affine_transform(a, m, offset=offset, output_shape=output_shape or None,
                                     **kw(order, mode, cval, True, a))
    add(name, "affine", inp, r, params=m.ravel(), offset=offset, output_shape=output_shape,
        order=order, mode=mode, cval=cval)


def mapc(name, inp, co, order, mode, cval=0.0, prefilter=True):
    a = inputs[inp]
    r = ndimage.map_coordinates(a, coords[co], **kw(order, mode, cval, prefilter, a))
    add(name, "map", inp, r, co=co, order=order, mode=mode, cval=cval, prefilter=prefilter)


def spline(name, inp, mode):
    r = ndimage.spline_filter(inputs[inp], order=3, output=np.float64, mode=mode)
    add(name, "spline", inp, r, mode=mode)


def make():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))
    for k, a in inputs.items():
        np.save(os.path.join(OUT, "in_%s.npy" % k), a)
    for k, c in coords.items():
        np.save(os.path.join(OUT, "co_%s.npy" % k), c)
    # Every mode and order, near the edges and past whole periods.
    for i, mode in enumerate(MODES):
        for order in (0, 1, 3):
            shift("shift_%s_%d" % (mode, order), "img", (1.3, -2.6), order, mode, cval=-4.5)
        for order in (1, 3):
            shift("far_%s_%d" % (mode, order), "img", (-9.4, 12.2), order, mode, cval=2.0)
    shift("shift_noprefilter", "img", (0.7, -1.2), 3, "mirror", prefilter=False)
    shift("shift_1d", "line", (4.4,), 3, "reflect")
    shift("shift_3d", "vol", (0.6, -1.7, 2.2), 3, "grid-wrap")
    # Integer input: exact halves at order 0 (floor(x + 0.5)), no prefilter.
    shift("u8_half_0", "u8", (0.5, -0.5), 0, "nearest")
    shift("u8_1", "u8", (1.25, -0.75), 1, "reflect")
    shift("u8_3_raw", "u8", (0.3, 0.6), 3, "mirror", prefilter=False)
    shift("u8_3", "u8", (0.3, 0.6), 3, "grid-constant", cval=7)
    zoom("zoom_half_0", "img", (13 / 7, 17 / 9), 0, "constant")  # coordinates k / 2
    zoom("zoom_1", "img", (1.7, 0.6), 1, "mirror")
    zoom("zoom_3", "img", (1.7, 0.6), 3, "constant", cval=1.5)
    zoom("zoom_grid_3", "img", (2.0, 1.4), 3, "grid-wrap", grid_mode=True)
    zoom("zoom_grid_0", "img", (2.0, 2.0), 0, "grid-constant", grid_mode=True)
    zoom("zoom_nearest_3", "img", (1.5, 2.5), 3, "nearest")
    zoom("zoom_3d_1", "vol", 1.5, 1, "reflect")
    zoom("zoom_3d_3", "vol", (0.8, 1.5, 1.3), 3, "wrap")
    zoom("zoom_1d", "line", (2.3,), 3, "mirror")
    rotate("rot_30_1", "img", 30, (1, 0), True, 1, "constant")
    rotate("rot_30_3_same", "img", 30, (1, 0), False, 3, "reflect")
    rotate("rot_90_0", "img", 90, (0, 1), True, 0, "constant")
    rotate("rot_m45_3", "img", -45, (1, 0), True, 3, "grid-constant", cval=2.5)
    rotate("rot_3d_02", "vol", 25, (0, 2), True, 3, "nearest")
    rotate("rot_3d_21", "vol", -70, (2, 1), False, 1, "wrap")
    rotate("rot_f64", "f64", 30, (1, 0), True, 3, "mirror")
    affine("aff_2x2_3", "img", [[0.8, 0.3], [-0.2, 1.1]], (1.5, -2.0), (8, 10), 3, "mirror")
    affine("aff_hom_1", "img", [[0.9, -0.4, 2.0], [0.4, 0.9, -1.5], [0, 0, 1]], (), (), 1, "wrap")
    affine("aff_diag_0", "img", [0.7, 1.3], (0.5, 1.0), (), 0, "nearest")
    affine("aff_2x3_3", "img", [[1.1, 0.2, -0.5], [0.1, 0.95, 3.0]], (), (9, 8), 3, "grid-wrap")
    affine("aff_3d_1", "vol", [[1, 0.1, 0], [0.2, 0.9, 0.1], [0, -0.3, 1.1]], (0.5, -1, 0.25), (), 1,
           "reflect")
    mapc("map_3_constant", "img", "img", 3, "constant", cval=-1.0)
    mapc("map_3_gridconst", "img", "img", 3, "grid-constant", cval=-1.0)
    mapc("map_3_wrap", "img", "img", 3, "wrap")
    mapc("map_1_gridwrap", "img", "img", 1, "grid-wrap")
    mapc("map_half_0", "img", "half", 0, "reflect")
    mapc("map_1d_3", "line", "line", 3, "mirror")
    mapc("map_3d_1", "vol", "vol", 1, "reflect")
    mapc("map_3d_3", "vol", "vol", 3, "nearest")
    for mode in ("mirror", "grid-wrap", "constant"):
        spline("spline_" + mode, "f64", mode)
    # SciPy 1.10.1's reflect initial value reads c[0] after changing it
    # (fixed in 1.12): off by z^(2n-1) of the line, nothing on 41 elements.
    for mode in ("reflect", "nearest"):
        spline("spline_" + mode, "f64line", mode)
    with open(os.path.join(OUT, "cases.inc"), "w") as f:
        f.write("// Generated by tests/data/make_transforms.py with NumPy %s and SciPy %s; do not edit.\n"
                % (np.__version__, scipy.__version__))
        f.write("\nconst TransformCase transform_cases[] = {\n%s};\n" % ",\n".join(cases))


make()
