#!/usr/bin/python3
"""Writes the fixtures in tests/data/derivatives/ for the derivative filters
(tests/cpu/test_derivatives_ref.cpp, tests/ops/test_derivatives.cpp):
scipy.ndimage's sobel, prewitt, laplace, gaussian_laplace,
gaussian_gradient_magnitude and gaussian_filter with orders, and
skimage.filters.difference_of_gaussians, of a few small inputs.

  inputs:    in1.npy (23), in2.npy (13 x 17), in3.npy (5 x 7 x 9), float32
             in [-100, 100); u8.npy (13 x 17 uint8)
  cases.txt: one case a line,
             name op input axis mode cval sz sy sx oz oy ox truncate
             (sigmas and orders in (z, y, x) order; axis for sobel/prewitt,
             low and high sigma in sy, sx for dog); the expected result is
             <name>.npy, float32 (integer input filtered with
             output=numpy.float32, as kiln does)

Run with Debian's Python (NumPy 1.24, SciPy 1.10, scikit-image 0.19):
    /usr/bin/python3 tests/data/make_derivatives.py
"""
import os

import numpy as np
from scipy import ndimage as ndi
from skimage import filters

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "derivatives")
MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]

rng = np.random.default_rng(18)
inputs = {
    "in1": rng.uniform(-100, 100, 23).astype(np.float32),
    "in2": rng.uniform(-100, 100, (13, 17)).astype(np.float32),
    "in3": rng.uniform(-100, 100, (5, 7, 9)).astype(np.float32),
    "u8": rng.integers(0, 256, (13, 17)).astype(np.uint8),
}
lines = []


def add(name, op, inp, result, axis=0, mode="reflect", cval=0.0, sigma=(0, 0, 0), order=(0, 0, 0),
        truncate=4.0):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(result, dtype=np.float32))
    lines.append(" ".join(str(v) for v in [name, op, inp, axis, mode, repr(float(cval)), *sigma, *order,
                                          truncate]))


def per_axis(zyx, ndim):
    return list(zyx[3 - ndim:])


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    for k, v in inputs.items():
        np.save(os.path.join(OUT, k + ".npy"), v)

    def edge(op, inp, axis, mode, cval=0.0):
        a = inputs[inp]
        fn = getattr(ndi, op)
        r = fn(a, axis=axis, output=np.float32, mode=mode, cval=cval)
        add("%s_%s_a%d_%s" % (op, inp, axis, mode), op, inp, r, axis, mode, cval)

    for axis in (0, 1):
        for mode in MODES:
            edge("sobel", "in2", axis, mode, 2.5 if mode == "constant" else 0.0)
    for axis in (0, 1, 2):
        edge("sobel", "in3", axis, "constant", -3.0)
        edge("sobel", "in3", axis, "mirror")
    edge("sobel", "in1", 0, "constant", 4.0)
    edge("sobel", "u8", 0, "reflect")
    for axis in (0, 1):
        edge("prewitt", "in2", axis, "constant", 1.5)
        edge("prewitt", "in2", axis, "wrap")
    edge("prewitt", "in3", 1, "constant", 1.5)

    def lap(inp, mode, cval=0.0):
        r = ndi.laplace(inputs[inp], output=np.float32, mode=mode, cval=cval)
        add("laplace_%s_%s" % (inp, mode), "laplace", inp, r, 0, mode, cval)

    for mode in MODES:
        lap("in2", mode, -2.0 if mode == "constant" else 0.0)
    lap("in3", "reflect")
    lap("in3", "constant", 5.0)
    lap("in1", "mirror")
    lap("u8", "nearest")

    def gauss(op, inp, sigma, mode, cval=0.0, truncate=4.0, tag=""):
        a = inputs[inp]
        s = per_axis(sigma, a.ndim)
        r = getattr(ndi, op)(a, s, output=np.float32, mode=mode, cval=cval, truncate=truncate)
        add("%s_%s_%s%s" % (op, inp, mode, tag), op, inp, r, 0, mode, cval, sigma, (0, 0, 0), truncate)

    for mode in MODES:
        gauss("gaussian_laplace", "in2", (0, 1.5, 1.0), mode, 3.0 if mode == "constant" else 0.0)
        gauss("gaussian_gradient_magnitude", "in2", (0, 1.0, 2.0), mode, 3.0 if mode == "constant" else 0.0)
    gauss("gaussian_laplace", "in2", (0, 0, 1.2), "reflect", tag="_sigma0")
    gauss("gaussian_laplace", "in3", (1.0, 0.7, 1.3), "constant", 2.0)
    gauss("gaussian_laplace", "in1", (0, 0, 2.0), "nearest")
    gauss("gaussian_gradient_magnitude", "in3", (0.8, 1.0, 1.2), "wrap")
    gauss("gaussian_gradient_magnitude", "in1", (0, 0, 1.5), "reflect", truncate=2.5)
    gauss("gaussian_gradient_magnitude", "u8", (0, 1.0, 1.0), "reflect")

    def order(inp, sigma, orders, mode, cval=0.0, tag=""):
        a = inputs[inp]
        r = ndi.gaussian_filter(a, per_axis(sigma, a.ndim), order=per_axis(orders, a.ndim), output=np.float32,
                                mode=mode, cval=cval)
        add("gaussian_order_%s_%s%s" % (inp, mode, tag), "gaussian_filter", inp, r, 0, mode, cval, sigma, orders)

    order("in2", (0, 2.0, 2.0), (0, 0, 1), "reflect", tag="_01")
    order("in2", (0, 1.0, 1.5), (0, 1, 0), "constant", 2.0, tag="_10")
    order("in2", (0, 1.5, 1.0), (0, 2, 1), "mirror", tag="_21")
    order("in2", (0, 1.0, 1.0), (0, 3, 0), "wrap", tag="_30")
    order("in2", (0, 1.0, 0.8), (0, 1, 3), "nearest", tag="_13")
    order("in1", (0, 0, 1.5), (0, 0, 3), "reflect", tag="_3")
    order("in3", (1.0, 0.8, 1.2), (1, 0, 2), "constant", -1.0, tag="_102")
    order("in2", (0, 0, 1.0), (0, 2, 1), "reflect", tag="_skipped")  # sigma 0 skips y's order

    def dog(inp, low, high, mode, cval=0.0):
        a = inputs[inp].astype(np.float32)
        r = filters.difference_of_gaussians(a, low, high, mode=mode, cval=cval)
        add("dog_%s_%s" % (inp, mode), "difference_of_gaussians", inp, r, 0, mode, cval,
            (0, low, -1 if high is None else high))

    dog("in2", 1.0, None, "nearest")
    dog("in2", 1.0, 2.0, "constant", 1.0)
    dog("in3", 0.8, None, "reflect")
    dog("in1", 1.5, 3.0, "wrap")

    with open(os.path.join(OUT, "cases.txt"), "w") as f:
        f.write("# name op input axis mode cval sz sy sx oz oy ox truncate (tests/data/make_derivatives.py)\n")
        f.write("\n".join(lines) + "\n")


main()
