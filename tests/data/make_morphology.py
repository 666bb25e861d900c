#!/usr/bin/env python3
"""Writes tests/data/morphology/: scipy.ndimage's morphology and minimum /
maximum filters on small arrays, for tests/cpu/test_morphology_ref.cpp and
tests/ops/test_morphology.cpp (made with NumPy 1.24.2 and SciPy 1.10.1).

cases.inc lists the cases (C++ data; the tests define MorphCase first); each
names .npy files in this folder: the input (a few shared ones), the
footprint (grey) or structure (binary) as uint8, the grey structure's values
(float64), the mask, and the expected result (bool results as uint8).
Every expected array is the SciPy function named in the case, called with the
keywords the case lists.

Run from anywhere: /usr/bin/python3 tests/data/make_morphology.py
"""
import os

import numpy as np
import scipy
from scipy import ndimage as ndi

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "morphology")
rng = np.random.default_rng(20261126)
files = set()


def save(name, a):
    if a.dtype == bool:
        a = a.astype(np.uint8)
    np.save(os.path.join(OUT, name + ".npy"), a)
    files.add(name + ".npy")
    return name + ".npy"


inputs = {
    "f32_2d": (rng.random((13, 17)) * 200 - 100).astype(np.float32),
    "u8_2d": rng.integers(0, 256, (13, 17)).astype(np.uint8),
    "i16_2d": rng.integers(-300, 300, (13, 17)).astype(np.int16),
    "f64_1d": rng.random(23) * 10,
    "i32_3d": rng.integers(-1000, 1000, (9, 11, 7)).astype(np.int32),
    "f32_3d": (rng.random((7, 9, 8)) * 10).astype(np.float32),
    # blobs, so that erosions and dilations both leave something
    "bin_2d": ndi.gaussian_filter(rng.random((13, 17)), 1.2) > 0.5,
    "bin_3d": ndi.gaussian_filter(rng.random((9, 11, 7)), 1.0) > 0.5,
    "holes_2d": None,
    "f32_2d_int": rng.integers(0, 9, (11, 12)).astype(np.float32),
}
# rings with holes, one opening onto the border, for fill_holes
holes = np.zeros((14, 18), bool)
holes[1:6, 1:6], holes[2:5, 2:5] = True, False
holes[7:13, 3:10], holes[9:11, 5:7] = True, False
holes[3:8, 11:18], holes[4:6, 12:17], holes[5, 17] = True, False, False
holes[10, 12:16], holes[11, 14] = True, True  # corner-connected only
inputs["holes_2d"] = holes ^ (rng.random((14, 18)) > 0.95)
for k, v in inputs.items():
    save("in_" + k, v)

fp_cross = ndi.generate_binary_structure(2, 1)
fp_odd = np.array([[1, 0, 1, 1], [0, 1, 0, 0], [1, 1, 0, 1]], bool)  # 3x4, not a box
fp_3d = ndi.generate_binary_structure(3, 2)
fp_line = np.array([[1, 1, 0, 1]], bool)
save("fp_cross", fp_cross)
save("fp_odd", fp_odd)
save("fp_3d", fp_3d)
save("fp_line", fp_line)
save("fp_1d", np.array([1, 0, 1, 1, 0, 1], bool))
save("fp_full", np.ones((3, 3), bool))
save("st_3x3", np.array([[0.5, 1, 0], [2, 0, 1.5], [0, 3, 1]]))
save("st_2x3", np.array([[1, 0, 2], [0, 3, 1]], float))
save("bs_nocentre", np.array([[0, 1, 0], [1, 0, 1], [0, 0, 0]], bool))
save("bs_even", np.array([[1, 1], [0, 1]], bool))
save("bs_3d_6", ndi.generate_binary_structure(3, 1))
save("bs_3d_26", ndi.generate_binary_structure(3, 3))
save("bs_full", np.ones((3, 3), bool))
save("bs_wide", np.array([[0, 1, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 1, 1, 0]], bool))
mask_2d = rng.random((13, 17)) > 0.3
save("mask_2d", mask_2d)

grey = {
    "minimum_filter": ndi.minimum_filter, "maximum_filter": ndi.maximum_filter,
    "grey_erosion": ndi.grey_erosion, "grey_dilation": ndi.grey_dilation,
    "grey_opening": ndi.grey_opening, "grey_closing": ndi.grey_closing,
    "white_tophat": ndi.white_tophat, "black_tophat": ndi.black_tophat,
    "morphological_gradient": ndi.morphological_gradient,
}
binary = {
    "binary_erosion": ndi.binary_erosion, "binary_dilation": ndi.binary_dilation,
    "binary_opening": ndi.binary_opening, "binary_closing": ndi.binary_closing,
}
cases = []


def load(name):
    return np.load(os.path.join(OUT, name + ".npy"))


def grey_case(op, inp, size=(), footprint="", structure="", mode="reflect", cval=0.0, origin=()):
    kw = dict(mode=mode, cval=cval, origin=list(origin) if origin else 0)
    if size:
        kw["size"] = list(size)
    if footprint:
        kw["footprint"] = load(footprint).astype(bool)
    if structure:
        kw["structure"] = load(structure)
    name = "%s_%d" % (op, len(cases))
    out = grey[op](inputs[inp], **kw)
    cases.append('{"%s", "%s", "in_%s.npy", {%s}, "%s", "%s", "%s", %r, {%s}, 1, 0, "", "%s"}' % (
        name, op, inp, ", ".join(map(str, size)), footprint and footprint + ".npy",
        structure and structure + ".npy", mode, float(cval), ", ".join(map(str, origin)),
        save(name, out)))


def binary_case(op, inp, structure="", iterations=1, border_value=0, origin=(), mask=""):
    kw = dict(iterations=iterations, border_value=border_value, origin=list(origin) if origin else 0)
    if structure:
        kw["structure"] = load(structure).astype(bool)
    if mask:
        kw["mask"] = load(mask).astype(bool)
    name = "%s_%d" % (op, len(cases))
    if op == "binary_fill_holes":
        out = ndi.binary_fill_holes(inputs[inp], structure=kw.get("structure"), origin=kw["origin"])
    else:
        out = binary[op](inputs[inp], **kw)
    cases.append('{"%s", "%s", "in_%s.npy", {}, "%s", "", "reflect", 0.0, {%s}, %d, %d, "%s", "%s"}' % (
        name, op, inp, structure and structure + ".npy", ", ".join(map(str, origin)), iterations,
        border_value, mask and mask + ".npy", save(name, out)))


# minimum / maximum filter: every mode, odd and even boxes, footprints, origins, dtypes
for mode in ["reflect", "constant", "nearest", "mirror", "wrap"]:
    grey_case("minimum_filter", "f32_2d", size=(3, 4), mode=mode, cval=-7.5)
    grey_case("maximum_filter", "i16_2d", footprint="fp_odd", mode=mode, cval=250, origin=(1, -1))
grey_case("minimum_filter", "u8_2d", size=(5, 2), origin=(-2, 0))
grey_case("maximum_filter", "u8_2d", size=(1, 6), mode="constant", cval=3, origin=(0, 2))
grey_case("maximum_filter", "f32_2d", size=(15, 15), mode="mirror")
grey_case("minimum_filter", "f32_2d", footprint="fp_line", mode="wrap", origin=(0, 1))
grey_case("minimum_filter", "f64_1d", size=(4,), origin=(1,))
grey_case("maximum_filter", "f64_1d", footprint="fp_1d", mode="nearest", origin=(-3,))
grey_case("minimum_filter", "i32_3d", size=(3, 2, 4), mode="nearest")
grey_case("maximum_filter", "i32_3d", footprint="fp_3d", mode="constant", cval=-5, origin=(0, 1, -1))
grey_case("maximum_filter", "f32_3d", size=(3, 3, 3), mode="reflect")
# grey morphology: dilation reflects the footprint and moves the origin
for op in ["grey_erosion", "grey_dilation"]:
    grey_case(op, "f32_2d", size=(4, 3), origin=(1, 0))
    grey_case(op, "u8_2d", footprint="fp_odd", origin=(-1, 1), mode="nearest")
    grey_case(op, "i16_2d", footprint="fp_line", mode="constant", cval=17, origin=(0, -2))
    grey_case(op, "f32_2d", structure="st_3x3", mode="mirror")
    grey_case(op, "f32_2d", structure="st_2x3", mode="constant", cval=2.5, origin=(0, 1))
    grey_case(op, "u8_2d", structure="st_3x3")  # wraps below 0 / above 255 as SciPy's cast
    grey_case(op, "i32_3d", footprint="fp_3d", mode="wrap", origin=(1, 0, -1))
    grey_case(op, "f64_1d", size=(2,), mode="mirror")
for op in ["grey_opening", "grey_closing", "white_tophat", "black_tophat", "morphological_gradient"]:
    grey_case(op, "f32_2d_int", size=(3, 2), mode="reflect")
    grey_case(op, "u8_2d", footprint="fp_cross", mode="constant", cval=100)
    grey_case(op, "i16_2d", structure="st_2x3", origin=(0, -1))
# binary morphology
for op in ["binary_erosion", "binary_dilation"]:
    binary_case(op, "bin_2d")
    binary_case(op, "bin_2d", border_value=1)
    binary_case(op, "bin_2d", structure="bs_nocentre", origin=(1, 0))
    binary_case(op, "bin_2d", structure="bs_even", origin=(-1, 0), iterations=2)
    binary_case(op, "bin_2d", structure="bs_full", iterations=3, border_value=1)
    binary_case(op, "bin_2d", iterations=0)
    binary_case(op, "bin_2d", structure="bs_wide", iterations=-1, mask="mask_2d")
    binary_case(op, "u8_2d", structure="bs_even", iterations=2, mask="mask_2d", origin=(0, -1))
    binary_case(op, "bin_3d", structure="bs_3d_6", iterations=2)
    binary_case(op, "bin_3d", structure="bs_3d_26", border_value=1, origin=(1, -1, 0))
for op in ["binary_opening", "binary_closing"]:
    binary_case(op, "bin_2d")
    binary_case(op, "bin_2d", structure="bs_full", border_value=1, iterations=2)
    binary_case(op, "bin_2d", structure="bs_even", origin=(-1, -1))
    binary_case(op, "bin_3d", iterations=2)
    binary_case(op, "bin_2d", structure="bs_wide", iterations=-1, mask="mask_2d")
binary_case("binary_fill_holes", "holes_2d")
binary_case("binary_fill_holes", "holes_2d", structure="bs_full")
binary_case("binary_fill_holes", "bin_2d")
binary_case("binary_fill_holes", "bin_3d", structure="bs_3d_26")
binary_case("binary_fill_holes", "holes_2d", structure="bs_even", origin=(-1, 0))
binary_case("binary_fill_holes", "f32_2d_int")

with open(os.path.join(OUT, "cases.inc"), "w") as f:
    f.write("// Generated by tests/data/make_morphology.py with NumPy %s and SciPy %s; do not edit.\n"
            % (np.__version__, scipy.__version__))
    f.write("// {name, op, input, size, footprint or structure, grey structure, mode, cval, origin,\n"
            "//  iterations, border_value, mask, expected}\n")
    f.write("const MorphCase morph_cases[] = {\n")
    for c in cases:
        f.write("    " + c + ",\n")
    f.write("};\n")
for stale in set(os.listdir(OUT)) - files - {"cases.inc"}:
    os.remove(os.path.join(OUT, stale))
