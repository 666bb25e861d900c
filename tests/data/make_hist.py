#!/usr/bin/env python3
"""Writes tests/data/hist/hist_cases.inc: inputs and numpy.histogram /
numpy.bincount results for tests/cpu/test_histogram_ref.cpp.

Every expected count and edge comes from numpy.histogram(data, bins, range)
(or numpy.bincount(data, minlength)) of the NumPy this runs under (made with
NumPy 1.24.2, Debian 12's python3-numpy). Floats are stored as their IEEE bit
patterns so the C++ test sees exactly the values NumPy saw.

For inputs holding NaN or infinities with an automatic range NumPy raises;
kiln drops the non-finite values instead, so the expected result there is
numpy.histogram(data[numpy.isfinite(data)], bins).

Run: python3 tests/data/make_hist.py   (from the repository root)
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hist", "hist_cases.inc")
rng = np.random.default_rng(20240611)

DTYPES = {
    np.float32: "float32", np.float64: "float64", np.int8: "int8", np.uint8: "uint8",
    np.int16: "int16", np.uint16: "uint16", np.int32: "int32", np.uint32: "uint32",
}


def literals(a):
    """Float values as hex IEEE bit patterns, integers as decimal values."""
    if a.dtype == np.float32:
        return ["0x%x" % x for x in a.view(np.uint32)]
    if a.dtype == np.float64:
        return ["0x%x" % x for x in a.view(np.uint64)]
    return [str(int(x)) for x in a]


def f64bits(x):
    return int(np.array([x], np.float64).view(np.uint64)[0])


def neighbours32(v):
    v = np.asarray(v, np.float32)
    return np.concatenate([v, np.nextafter(v, np.float32(-np.inf)),
                           np.nextafter(v, np.float32(np.inf))])


def neighbours64(v):
    v = np.asarray(v, np.float64)
    return np.concatenate([v, np.nextafter(v, -np.inf), np.nextafter(v, np.inf)])


data = []   # (dtype name, values)
cases = []  # (name, data index, bins, range or None, counts, edges)


def add_data(a):
    data.append((DTYPES[a.dtype.type], a))
    return len(data) - 1


def add_case(name, di, bins, rng_=None):
    a = data[di][1]
    finite = a if a.dtype.kind != "f" or rng_ is not None else a[np.isfinite(a)]
    counts, edges = np.histogram(finite, bins, range=rng_)
    cases.append((name, di, bins, rng_, counts, edges.astype(np.float64)))


k = np.arange(11)
f32_uniform = add_data(rng.uniform(-3, 5, 509).astype(np.float32))
add_case("float32 uniform, auto range", f32_uniform, 13)
add_case("float32 uniform, range inside the data", f32_uniform, 7, (-1.0, 2.5))

tenths32 = np.concatenate([neighbours32(k / 10), np.float32(k * 0.1),
                           np.float32(k) * np.float32(0.1)]).astype(np.float32)
d = add_data(tenths32)
add_case("float32 tenths and neighbours, 10 bins on [0, 1]", d, 10, (0.0, 1.0))
add_case("float32 tenths and neighbours, 3 bins on [0, 1]", d, 3, (0.0, 1.0))
add_case("float32 tenths and neighbours, 10 bins auto", d, 10)
add_case("float32 tenths and neighbours, 7 bins auto", d, 7)

d = add_data(np.concatenate([neighbours64(k / 10), k * 0.1]))
add_case("float64 tenths and neighbours, 10 bins on [0, 1]", d, 10, (0.0, 1.0))
add_case("float64 tenths and neighbours, 3 bins auto", d, 3)

d = add_data(rng.standard_normal(257))
add_case("float64 normal, 20 bins auto", d, 20)
add_case("float64 normal, 131 bins on [-1.5, 0.25]", d, 131, (-1.5, 0.25))

bytes_i32 = add_data(rng.integers(0, 256, 509).astype(np.int32))
add_case("int32 in [0, 256), 256 bins auto", bytes_i32, 256)
add_case("int32 in [0, 256), 256 bins on [0, 256]", bytes_i32, 256, (0.0, 256.0))

for a, bins, name in [(np.array([3.7], np.float32), 5, "float32 single value"),
                      (np.array([1e10], np.float32), 4, "float32 single large value"),
                      (np.array([-2.25], np.float64), 3, "float64 single value"),
                      (np.array([7], np.int16), 4, "int16 single value"),
                      (np.array([0], np.uint8), 1, "uint8 single value, one bin")]:
    add_case(name, add_data(a), bins)

with_nan = rng.uniform(-3, 3, 127).astype(np.float32)
with_nan[::9] = np.nan
d = add_data(with_nan)
add_case("float32 with NaN, range given", d, 9, (-2.0, 2.0))
add_case("float32 with NaN, auto range over the finite values", d, 9)

with_inf = rng.uniform(-20, 20, 127)
with_inf[3], with_inf[50], with_inf[77] = np.inf, -np.inf, np.nan
d = add_data(with_inf)
add_case("float64 with inf and NaN, auto range", d, 5)
add_case("float64 with inf and NaN, range given", d, 4, (-10.0, 10.0))

add_case("int8 full range, 17 bins auto",
         add_data(rng.integers(-128, 128, 301).astype(np.int8)), 17)
add_case("uint16, 10 bins auto", add_data(rng.integers(0, 65536, 301).astype(np.uint16)), 10)
add_case("uint32 near 2^32, 6 bins auto",
         add_data(rng.integers(4_000_000_000, 2**32, 127, dtype=np.uint64).astype(np.uint32)), 6)
add_case("int32 signed, 11 bins on [-1000.5, 1000.25]",
         add_data(rng.integers(-1500, 1500, 301).astype(np.int32)), 11, (-1000.5, 1000.25))

wide = np.concatenate([[-1e-3, 1e7], rng.uniform(-1e-3, 1e7, 255)]).astype(np.float32)
add_case("float32 wide span, 257 bins auto", add_data(wide), 257)
narrow = (np.float32(1) + np.arange(51, dtype=np.float32) * np.finfo(np.float32).eps)
add_case("float32 50 ulp span, 7 bins auto", add_data(narrow.astype(np.float32)), 7)
add_case("float32 tenth and nine tenths, 4 bins on [0.1, 0.9]",
         add_data(neighbours32([0.1, 0.5, 0.9])), 4, (0.1, 0.9))

edges32 = np.histogram(np.zeros(1, np.float32), 127, range=(-1.0, 1.0))[1]
d = add_data(neighbours32(edges32))
add_case("float32 every edge and its neighbours, 127 bins on [-1, 1]", d, 127, (-1.0, 1.0))
add_case("float32 every edge and its neighbours, 127 bins auto", d, 127)
edges64 = np.histogram(np.zeros(1), 53, range=(-3.0, 7.0))[1]
d = add_data(neighbours64(edges64))
add_case("float64 every edge and its neighbours, 53 bins on [-3, 7]", d, 53, (-3.0, 7.0))

bincounts = []  # (data index, minlength, counts)
for di, minlength in [(add_data(rng.integers(0, 256, 509).astype(np.uint8)), 0),
                      (add_data(rng.integers(0, 300, 509).astype(np.int16)), 400),
                      (bytes_i32, 0)]:
    bincounts.append((di, minlength, np.bincount(data[di][1], minlength=minlength)))


def wrap(items, per_line=8):
    items = list(items)
    return ",\n".join("    " + ", ".join(items[i:i + per_line])
                      for i in range(0, len(items), per_line))


lines = ["// Generated by tests/data/make_hist.py with NumPy %s; do not edit." % np.__version__,
         "// Expected values are numpy.histogram / numpy.bincount results (see the script).",
         "", "const HistData hist_data[] = {"]
for dt, a in data:
    if dt in ("float32", "float64"):
        lines.append("{kiln::DType::%s, {\n%s},\n {}}," % (dt, wrap(literals(a), 6)))
    else:
        lines.append("{kiln::DType::%s, {},\n {\n%s}}," % (dt, wrap(literals(a), 16)))
lines += ["};", "", "const HistCase hist_cases[] = {"]
for name, di, bins, r, counts, edges in cases:
    rr = "true, 0x%x, 0x%x" % (f64bits(r[0]), f64bits(r[1])) if r else "false, 0, 0"
    lines.append('{"%s", %d, %d, %s,\n {%s},\n {%s}},' % (
        name, di, bins, rr, ", ".join(str(int(c)) for c in counts),
        ", ".join("0x%x" % f64bits(e) for e in edges)))
lines += ["};", "", "const BincountCase bincount_cases[] = {"]
for di, minlength, counts in bincounts:
    lines.append("{%d, %d, {%s}}," % (di, minlength, ", ".join(str(int(c)) for c in counts)))
lines += ["};", ""]

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    f.write("\n".join(lines))
print("wrote", OUT, len(data), "arrays,", len(cases), "histogram cases,", len(bincounts),
      "bincount cases")
