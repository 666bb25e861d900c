"""Every op generated from kiln's manifest against NumPy/SciPy on random data
with odd shapes and every dtype it accepts, with the dtype rules the C++
headers (engine/include/kiln/*.hpp) document; and the generated functions'
signatures, docstrings, aliases and errors.

Tolerances: float results are compared against a float64 computation on the
same (exactly converted) inputs. A sum of n products formed in a float type
of unit roundoff u = eps / 2 differs from the exact sum by at most about
n u sum|terms| (Higham's bound for recursive summation, one rounding per
product and per addition); the tests allow n eps sum|terms|, with sum|terms|
computed by the same NumPy/SciPy function on |input| and |weights|.
"""
import inspect
import re
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi
import scipy.signal

import kiln
from conftest import DTYPES, random_array

SHAPES = [(1, 1), (7,), (5, 13), (3, 4, 9), (17, 31)]
FLOATS = [np.float32, np.float64]
INTEGERS = [t for t in DTYPES if t not in FLOATS]


def eps(dtype):
    return float(np.finfo(dtype).eps)


def conv_dtype(*dtypes):
    """convolve/convolve1d/convolve2d/gaussian_filter: float64 when an input
    is float64, else float32 (integers are converted first)."""
    return np.dtype(np.float64 if any(np.dtype(t) == np.float64 for t in dtypes) else np.float32)


def assert_sum_close(got, ref, magnitude, n_terms, dtype):
    """got (kiln, dtype) against ref (float64): |got - ref| <= n_terms eps
    magnitude, magnitude being sum|terms| per element (module docstring)."""
    assert got.dtype == np.dtype(dtype) and got.shape == ref.shape
    bound = n_terms * eps(dtype) * magnitude + np.finfo(dtype).tiny
    err = np.abs(got.astype(np.float64) - ref)
    bad = ~(err <= bound)
    assert not bad.any(), (f"{bad.sum()} of {bad.size} elements off: worst {err[bad].max()} "
                           f"(bound {bound[bad][np.argmax(err[bad])]}) at {np.argwhere(bad)[0]}")


def cast_scalar(s, dtype):
    """A number converted to dtype as kiln's cast converts it: to float
    rounded to nearest; to an integer NaN -> 0, truncated toward zero and
    saturated at the type's range."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return dtype.type(s)
    info = np.iinfo(dtype)
    if np.isnan(s):
        return dtype.type(0)
    return dtype.type(min(max(np.trunc(s), info.min), info.max))


def cast_ref(x, to):
    """kiln.cast in NumPy (elementwise.hpp): to float rounds to nearest;
    float to integer maps NaN to 0, truncates and saturates; integer to
    integer wraps modulo 2^bits (NumPy's astype)."""
    to = np.dtype(to)
    if to.kind == "f" or x.dtype.kind != "f":
        return x.astype(to)
    info = np.iinfo(to)
    t = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0, posinf=info.max, neginf=info.min))
    return np.clip(t, info.min, info.max).astype(to)


# -- the generated functions ---------------------------------------------------

def manifest():
    return {e["name"]: e for e in kiln._kiln.manifest()}


def test_ops_lists_every_manifest_entry():
    names = kiln.ops()
    assert sorted(names) == sorted(manifest())
    for name in names:
        assert callable(getattr(kiln, name)), name


@pytest.mark.parametrize("name", [n for n in kiln.ops() if n not in ("full", "copy")])
def test_signature_and_docstring_come_from_the_manifest(name):
    entry = manifest()[name]
    fn = getattr(kiln, name)
    params = inspect.signature(fn).parameters
    arg_names = [a["name"] for a in entry["args"]]
    extra = [p for p in params if p not in arg_names]
    assert [p for p in params if p in arg_names] == arg_names
    assert list(params)[:len(arg_names)] == arg_names  # in the manifest's order, first
    has_array = any(a["kind"] in ("array", "operand") for a in entry["args"])
    assert set(extra) <= {"context", "aliases"} and (("context" in extra) != has_array)
    alternatives = {n for g in entry["alternatives"] for n in g}
    for a in entry["args"]:
        p = params[a["name"]]
        if a["default"] and a["name"] not in alternatives:
            lists = {"numbers": float, "integers": int}
            if a["kind"] in lists:  # the command line's text: "1,0" or "3"
                want = [lists[a["kind"]](v) for v in re.split(r"[ ,]+", a["default"])]
            else:
                want = {"number": float, "integer": int}.get(a["kind"], lambda t: t)(a["default"])
            assert p.default == want, a["name"]
        elif a["optional"] or a["name"] in alternatives:
            assert p.default is None, a["name"]
    doc = fn.__doc__
    assert doc.split()[:2] == entry["doc"].split()[:2]  # the manifest's doc first, then the arguments
    for a in entry["args"]:
        assert f"\n{a['name']} : " in doc, a["name"]
        for c in a["choices"]:
            assert c in doc
    assert fn.__module__ == "kiln" and fn.__name__ == name


def test_gaussian_filter_signature_is_the_manifests():
    assert list(inspect.signature(kiln.gaussian_filter).parameters) == [
        "input", "sigma", "sigma_z", "sigma_y", "sigma_x", "mode", "cval", "truncate", "order"]
    assert inspect.signature(kiln.gaussian_filter).parameters["mode"].default == "reflect"
    assert "scipy.ndimage.gaussian_filter" in kiln.gaussian_filter.__doc__
    # The CLI's spelling (--sigma-x) is rewritten as Python's (sigma_x).
    assert not re.search(r"--[a-z]", kiln.gaussian_filter.__doc__)
    assert "sigma_x/sigma_y/sigma_z" in kiln.gaussian_filter.__doc__


def test_scipy_aliases(rng):
    img = random_array(rng, (5, 6), np.float32)
    ker = random_array(rng, (2, 3), np.float32)
    np.testing.assert_array_equal(kiln.convolve2d(in1=img, in2=ker).get(), kiln.convolve2d(img, ker).get())
    x = random_array(rng, (9,), np.float32)
    np.testing.assert_array_equal(kiln.clip(x, a_min=-2, a_max=3).get(), kiln.clip(x, -2, 3).get())
    c = (x > 0).astype(np.uint8)
    y = random_array(rng, (9,), np.float32)
    np.testing.assert_array_equal(kiln.where(condition=c, x=x, y=y).get(), np.where(c, x, y))
    assert "in1= for image" in kiln.convolve2d.__doc__
    with pytest.raises(TypeError, match="unexpected keyword argument 'a_mid'"):
        kiln.clip(x, a_mid=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'sigmaa'"):
        kiln.gaussian_filter(x, sigmaa=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'sigmaa'; it takes input, sigma"):
        kiln._kiln.invoke("gaussian_filter", {"input": x, "sigmaa": 1.0})


def test_argument_errors_name_the_argument(rng):
    x = random_array(rng, (9,), np.float32)
    with pytest.raises(kiln.InvalidArgument, match="clip: argument 'max'.*required"):
        kiln.clip(x, 1.0)
    with pytest.raises(kiln.InvalidArgument, match="mode.*'nope'.*full, same, valid"):
        kiln.convolve(x, x, mode="nope")
    with pytest.raises(TypeError, match="axis must be a whole number"):
        kiln.sum(x, axis=1.5)
    with pytest.raises(TypeError, match="axis must be a whole number"):
        kiln.sum(x, axis=True)
    with pytest.raises(TypeError, match="above must be a number"):
        kiln.threshold(x, "1")
    with pytest.raises(kiln.InvalidArgument, match="sigma.*sigma_x"):
        kiln.gaussian_filter(x)
    with pytest.raises(kiln.InvalidArgument, match="only one of"):
        kiln.gaussian_filter(x, sigma=1, sigma_x=1)
    with pytest.raises(kiln.InvalidArgument, match="at least one of A and B must be an array"):
        kiln.add(1, 2)
    with pytest.raises(kiln.InvalidArgument, match="median: argument 'a' .* is required"):
        kiln.median(None)  # None leaves an argument out
    with pytest.raises(TypeError, match="weights must be a number, not 'a'"):
        kiln.convolve1d(x, weights=["a"])
    assert issubclass(kiln.InvalidArgument, kiln.Error)


# -- convolutions --------------------------------------------------------------

@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.float64, np.float32), (np.int16, np.uint8),
                                    (np.int32, np.float64), (np.uint32, np.int8), (np.uint16, np.float32)])
@pytest.mark.parametrize("lengths", [(1, 1), (7, 3), (4, 13), (31, 31), (17, 6)])
def test_convolve_matches_numpy(rng, mode, dtypes, lengths):
    a = random_array(rng, lengths[0], dtypes[0])
    v = random_array(rng, lengths[1], dtypes[1])
    out = conv_dtype(*dtypes)
    got = kiln.convolve(a, v, mode=mode).get()
    a64, v64 = a.astype(np.float64), v.astype(np.float64)
    ref = np.convolve(a64, v64, mode)
    assert_sum_close(got, ref, np.convolve(np.abs(a64), np.abs(v64), mode), min(lengths) + 1, out)


def test_convolve_refuses_what_numpy_refuses(rng):
    with pytest.raises(kiln.InvalidArgument, match="1-D"):
        kiln.convolve(np.ones((2, 3), np.float32), np.ones(3, np.float32))


NDI_MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]


@pytest.mark.parametrize("mode", NDI_MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((1, 1), -1), ((7,), 0), ((5, 13), 0), ((3, 4, 9), 1), ((17, 31), -1)])
def test_convolve1d_matches_scipy(rng, mode, dtype, shape, axis):
    x = random_array(rng, shape, dtype)
    weights = [0.25, -1.5, 2.0, 0.125, 3.0]
    out = conv_dtype(dtype)
    # Weights are used in the result dtype; cval 1.5 is exact in both.
    w = np.array(weights, out).astype(np.float64)
    got = kiln.convolve1d(x, weights, axis=axis, mode=mode, cval=1.5).get()
    x64 = x.astype(np.float64)
    ref = ndi.convolve1d(x64, w, axis=axis, mode=mode, cval=1.5)
    mag = ndi.convolve1d(np.abs(x64), np.abs(w), axis=axis, mode=mode, cval=1.5)
    assert_sum_close(got, ref, mag, len(w) + 1, out)


@pytest.mark.parametrize("size", [1, 2, 4, 5])
def test_convolve1d_origins_and_even_sizes_match_scipy(rng, size):
    x = random_array(rng, (6, 11), np.float64)
    w = rng.standard_normal(size)
    for origin in range(-(size // 2), (size - 1) // 2 + 1):
        for mode in NDI_MODES:
            got = kiln.convolve1d(x, list(w), axis=1, mode=mode, origin=origin).get()
            ref = ndi.convolve1d(x, w, axis=1, mode=mode, origin=origin)
            mag = ndi.convolve1d(np.abs(x), np.abs(w), axis=1, mode=mode, origin=origin)
            assert_sum_close(got, ref, mag, size + 1, np.float64)
    np.testing.assert_array_equal(kiln.convolve1d(x, w).get(), kiln.convolve1d(x, list(w)).get())  # an ndarray
    with pytest.raises(kiln.InvalidArgument, match="origin"):
        kiln.convolve1d(x, list(w), origin=size)
    with pytest.raises(kiln.InvalidArgument, match="axis"):
        kiln.convolve1d(x, list(w), axis=2)


BOUNDARIES = ["fill", "wrap", "symm"]


@pytest.mark.parametrize("boundary", BOUNDARIES)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shapes", [((5, 13), (3, 4)), ((17, 31), (5, 2)), ((1, 1), (1, 1)), ((4, 3), (6, 7)),
                                    ((3, 9), (3, 9))])
def test_convolve2d_matches_scipy(rng, boundary, mode, shapes):
    img = random_array(rng, shapes[0], np.float32)
    ker = random_array(rng, shapes[1], np.float32)
    got = kiln.convolve2d(img, ker, mode=mode, boundary=boundary, fillvalue=-2.5).get()
    i64, k64 = img.astype(np.float64), ker.astype(np.float64)
    ref = scipy.signal.convolve2d(i64, k64, mode, boundary, -2.5)
    mag = scipy.signal.convolve2d(np.abs(i64), np.abs(k64), mode, boundary, 2.5)
    n = min(img.size, ker.size) if mode == "valid" else ker.size
    assert_sum_close(got, ref, mag, n + 1, np.float32)


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.uint8, np.int16), (np.int32, np.float64),
                                    (np.uint32, np.uint16), (np.int8, np.float32)])
def test_convolve2d_dtypes(rng, dtypes):
    img = random_array(rng, (9, 14), dtypes[0])
    ker = random_array(rng, (3, 5), dtypes[1])
    out = conv_dtype(*dtypes)
    for boundary in BOUNDARIES:
        got = kiln.convolve2d(img, ker, mode="same", boundary=boundary, fillvalue=3).get()
        i64, k64 = img.astype(np.float64), ker.astype(np.float64)
        ref = scipy.signal.convolve2d(i64, k64, "same", boundary, 3)
        mag = scipy.signal.convolve2d(np.abs(i64), np.abs(k64), "same", boundary, 3)
        assert_sum_close(got, ref, mag, ker.size + 1, out)


@pytest.mark.parametrize("dtype", FLOATS)
def test_convolve2d_rank_one_kernel(rng, dtype):
    # A separable kernel runs as two 1-D passes: the same result.
    img = random_array(rng, (13, 21), dtype)
    ker = np.outer([1.0, 2.0, -1.0], [0.5, 0.0, -1.5, 3.0]).astype(dtype)
    for mode in ["full", "same", "valid"]:
        for boundary in BOUNDARIES:
            got = kiln.convolve2d(img, ker, mode=mode, boundary=boundary).get()
            i64, k64 = img.astype(np.float64), ker.astype(np.float64)
            ref = scipy.signal.convolve2d(i64, k64, mode, boundary)
            mag = scipy.signal.convolve2d(np.abs(i64), np.abs(k64), mode, boundary)
            # Two passes: each rounds (3 + 1 and 4 + 1 terms).
            assert_sum_close(got, ref, mag, 3 + 4 + 2, dtype)


def test_convolve2d_errors(rng):
    with pytest.raises(kiln.InvalidArgument, match="2-D"):
        kiln.convolve2d(np.ones(5, np.float32), np.ones((2, 2), np.float32))
    # Neither at least as large as the other in every dimension (SciPy's ValueError).
    with pytest.raises(ValueError):
        scipy.signal.convolve2d(np.ones((3, 5)), np.ones((4, 2)), "valid")
    with pytest.raises(kiln.InvalidArgument, match="valid"):
        kiln.convolve2d(np.ones((3, 5), np.float32), np.ones((4, 2), np.float32), mode="valid")
    with pytest.raises(kiln.InvalidArgument, match="boundary"):
        kiln.convolve2d(np.ones((3, 5), np.float32), np.ones((2, 2), np.float32), boundary="reflect")


# -- gaussian filters ----------------------------------------------------------

def gaussian_bound(x64, sigmas, mode, cval, truncate, dtype):
    """Magnitude and term count for assert_sum_close: each axis pass sums
    2r + 1 positive weights (rounded to dtype, one more unit) and rounds."""
    mag = ndi.gaussian_filter(np.abs(x64), sigmas, mode=mode, cval=abs(cval), truncate=truncate)
    taps = [2 * int(truncate * s + 0.5) + 1 for s in sigmas if s > 1e-15]
    return mag, sum(t + 2 for t in taps)


@pytest.mark.parametrize("mode", NDI_MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_gaussian_filter_matches_scipy(rng, mode, dtype, shape):
    x = random_array(rng, shape, dtype)
    out = conv_dtype(dtype)
    got = kiln.gaussian_filter(x, sigma=1.5, mode=mode, cval=2.5).get()
    x64 = x.astype(np.float64)
    ref = ndi.gaussian_filter(x64, 1.5, mode=mode, cval=2.5)
    mag, n = gaussian_bound(x64, [1.5] * x.ndim, mode, 2.5, 4.0, out)
    assert_sum_close(got, ref, mag, n, out)


@pytest.mark.parametrize("shape", [(6, 11), (3, 4, 9), (23,)])
def test_gaussian_filter_per_axis_sigma_and_truncate(rng, shape):
    x = random_array(rng, shape, np.float32)
    x64 = x.astype(np.float64)
    zyx = {"sigma_z": 0.7, "sigma_y": 2.0, "sigma_x": 1.2}
    names = ["sigma_z", "sigma_y", "sigma_x"][3 - x.ndim:]
    kwargs = {n: zyx[n] for n in names}
    sigmas = [zyx[n] for n in names]
    for truncate in [4.0, 1.3, 0.2]:
        got = kiln.gaussian_filter(x, **kwargs, truncate=truncate).get()
        ref = ndi.gaussian_filter(x64, sigmas, truncate=truncate)
        mag, n = gaussian_bound(x64, sigmas, "reflect", 0, truncate, np.float32)
        assert_sum_close(got, ref, mag, n, np.float32)
    # An axis whose sigma is not given is left alone (sigma 0).
    got = kiln.gaussian_filter(x, sigma_x=1.2).get()
    sig = [0.0] * (x.ndim - 1) + [1.2]
    mag, n = gaussian_bound(x64, sig, "reflect", 0, 4.0, np.float32)
    assert_sum_close(got, ndi.gaussian_filter(x64, sig), mag, n, np.float32)
    # Every sigma 0: a copy.
    np.testing.assert_array_equal(kiln.gaussian_filter(x, sigma=0).get(), x)


def test_gaussian_filter_errors(rng):
    x = random_array(rng, (5, 5), np.float32)
    for bad in [-1.0, float("nan"), float("inf")]:
        with pytest.raises(kiln.InvalidArgument):
            kiln.gaussian_filter(x, sigma=bad)
    with pytest.raises(kiln.InvalidArgument, match="truncate"):
        kiln.gaussian_filter(x, sigma=1, truncate=-1)
    with pytest.raises(kiln.InvalidArgument, match="mode"):
        kiln.gaussian_filter(x, sigma=1, mode="grid-wrap")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint16, np.int8])
@pytest.mark.parametrize("shape", [(9,), (5, 13), (3, 4, 9)])
def test_gaussian_blur_is_gaussian_filter_in_xyz(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    out = conv_dtype(dtype)
    x64 = x.astype(np.float64)
    for sx, sy, sz in [(1.0, -1, -1), (1.0, 2.0, -1), (0.8, 1.5, 2.5)]:
        zyx = [sz if sz != -1 else sx, sy if sy != -1 else sx, sx][3 - x.ndim:]
        got = kiln.gaussian_blur(x, sx, sy, sz).get()
        ref = ndi.gaussian_filter(x64, zyx)
        mag, n = gaussian_bound(x64, zyx, "reflect", 0, 4.0, out)
        assert_sum_close(got, ref, mag, n, out)
    for bad in [0.0, -2.0, float("nan")]:
        with pytest.raises(kiln.InvalidArgument):
            kiln.gaussian_blur(x, bad)
    with pytest.raises(kiln.InvalidArgument):
        kiln.gaussian_blur(x, 1.0, sigma_y=-2.0)


# -- element-wise ----------------------------------------------------------------

def test_clip_aliases_and_semantics(rng):
    x = random_array(rng, (5, 13), np.float32)
    x[0, :3] = np.nan
    got = kiln.clip(x, a_min=-3.5, a_max=4.25).get()
    np.testing.assert_array_equal(got, np.clip(x, np.float32(-3.5), np.float32(4.25)))
    # A lower bound above the upper one gives the upper everywhere (NaN stays).
    got = kiln.clip(x, 5, 1).get()
    np.testing.assert_array_equal(got, np.clip(x, np.float32(5), np.float32(1)))
    with pytest.raises(kiln.InvalidArgument, match="NaN"):
        kiln.clip(x, float("nan"), 1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_clip_matches_numpy(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    for lo, hi in [(-3.7, 250.5), (7.0, 7.0), (-1e12, 1e12), (20.9, 1e10)]:
        got = kiln.clip(x, lo, hi).get()
        # Bounds converted to the dtype as cast converts them.
        want = np.clip(x, cast_scalar(lo, dtype), cast_scalar(hi, dtype))
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want)


BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "minimum": np.minimum,
          "maximum": np.maximum}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (7,), (3, 4, 9), (17, 31)])
def test_binary_ops_match_numpy(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    y = random_array(rng, shape, dtype)
    if np.dtype(dtype).kind == "f":
        x.flat[0] = np.nan  # minimum/maximum propagate NaN, as NumPy's
    with np.errstate(all="ignore"):
        for name, ufunc in BINARY.items():
            fn = getattr(kiln, name)
            for got, want in [(fn(x, y), ufunc(x, y)),
                              (fn(a=x, b=-2.75), ufunc(x, cast_scalar(-2.75, dtype))),
                              (fn(300.5, y), ufunc(cast_scalar(300.5, dtype), y))]:
                got = got.get()
                assert got.dtype == np.dtype(dtype), name
                # Exact: one correctly rounded operation (integers wrap as NumPy's).
                np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize("dtype", DTYPES)
def test_divide_is_true_division(rng, dtype):
    x = random_array(rng, (5, 13), dtype)
    y = random_array(rng, (5, 13), dtype)
    y[y == 0] = 1
    out = np.dtype(np.float64 if np.dtype(dtype) == np.float64 else np.float32)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    # Vulkan's precision for OpFDiv is 2.5 ULP; the operands are exact in out.
    for got, want in [(kiln.divide(x, y), x64 / y64), (kiln.divide(x, 2.5), x64 / 2.5),
                      (kiln.divide(-3, y), -3 / y64)]:
        got = got.get()
        assert got.dtype == out
        np.testing.assert_allclose(got, want.astype(out), rtol=2.5 * eps(out), atol=0)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int16, np.uint16])
def test_integer_arithmetic_wraps(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.max, info.min, info.max - 1, 12345 % info.max], dtype)
    y = np.array([1, 1, info.max, 3], dtype)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(kiln.add(x, y).get(), x + y)
        np.testing.assert_array_equal(kiln.subtract(y, x).get(), y - x)
        np.testing.assert_array_equal(kiln.multiply(x, y).get(), x * y)


def test_binary_operands_must_match(rng):
    x = random_array(rng, (4, 5), np.float32)
    for other, why in [(np.ones((5, 4), np.float32), r"shapes \(4, 5\) and \(5, 4\) differ.*does not broadcast"),
                       (np.ones((4, 5), np.int32), "dtypes float32 and int32 differ")]:
        for name in BINARY:
            with pytest.raises(kiln.InvalidArgument, match=why):
                getattr(kiln, name)(x, other)


COMPARE = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
           "greater": np.greater, "greater_equal": np.greater_equal}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (7,), (3, 4, 9), (17, 31)])
def test_comparisons_match_numpy(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    y = random_array(rng, shape, dtype)
    y.flat[::3] = x.flat[::3]
    if np.dtype(dtype).kind == "f":
        x.flat[-1] = np.nan
    x64 = x.astype(np.float64)
    for name, ufunc in COMPARE.items():
        fn = getattr(kiln, name)
        got = fn(x, y).get()
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, ufunc(x, y).astype(np.uint8), err_msg=name)
        # With a scalar the comparison is exact, as in float64 (a NaN scalar
        # compares false, except not_equal).
        for s in [2.5, -1.0, 0.1, 1e10, x64.flat[0], float("nan")]:
            got = fn(x, b=s).get()
            with np.errstate(invalid="ignore"):
                np.testing.assert_array_equal(got, ufunc(x64, s).astype(np.uint8), err_msg=f"{name} {s}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_where_matches_numpy(rng, dtype):
    shape = (5, 13)
    a = random_array(rng, shape, dtype)
    b = random_array(rng, shape, dtype)
    for cdtype in [np.uint8, np.float32, np.int16, np.float64]:
        cond = random_array(rng, shape, cdtype) % 3
        if np.dtype(cdtype).kind == "f":
            cond.flat[:4] = [np.nan, -0.0, 0.0, 0.5]  # NaN is true, -0.0 false
        truth = cond != 0
        if np.dtype(cdtype).kind == "f":
            truth |= np.isnan(cond)
        np.testing.assert_array_equal(kiln.where(cond, a, b).get(), np.where(truth, a, b))
        got = kiln.where(cond, a, 7.9).get()
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, np.where(truth, a, cast_scalar(7.9, dtype)))
        np.testing.assert_array_equal(kiln.where(cond, -2.2, b).get(), np.where(truth, cast_scalar(-2.2, dtype), b))
    got = kiln.where(cond, 1.5, -300.7, dtype=dtype).get()
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.where(truth, cast_scalar(1.5, dtype), cast_scalar(-300.7, dtype)))


def test_where_scalars_default_to_float32(rng):
    cond = np.array([1, 0, 2], np.uint8)
    got = kiln.where(cond, 1.5, 2.5).get()
    assert got.dtype == np.float32 and got.tolist() == [1.5, 2.5, 1.5]
    assert kiln.where(cond, 1, 2, dtype="int16").dtype == np.int16


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_threshold_matches_numpy(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    if np.dtype(dtype).kind == "f":
        x.flat[0] = np.nan  # NaN gives 0
    for t in [0.5, -2.0, 100.0]:
        got = kiln.threshold(x, t).get()
        assert got.dtype == np.uint8
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(got, (x.astype(np.float64) > t).astype(np.uint8))


@pytest.mark.parametrize("to", DTYPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cast_matches_documented_rules(rng, dtype, to):
    x = random_array(rng, (5, 13), dtype)
    if np.dtype(dtype).kind == "f":
        info = np.finfo(dtype)
        x.flat[:12] = [np.nan, np.inf, -np.inf, -0.5, 0.5, -1.9, 2.9, 3e9, -3e9, 7e4, -7e4, info.max]
    else:
        info = np.iinfo(dtype)
        x.flat[:2] = [info.min, info.max]
    got = kiln.cast(x, dtype=to).get()
    assert got.dtype == np.dtype(to)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got, cast_ref(x, to))
    np.testing.assert_array_equal(kiln.cast(x, np.dtype(to)).get(), got)  # numpy dtypes too


def test_cast_errors(rng):
    with pytest.raises(kiln.InvalidArgument, match="dtype.*'float16'"):
        kiln.cast(np.ones(3, np.float32), "float16")
    with pytest.raises(kiln.InvalidArgument, match="'complex64'; accepted: float32"):
        kiln.cast(np.ones(3, np.float32), np.complex64)


# -- reductions ------------------------------------------------------------------

def reduction_data(rng, shape, dtype, nan):
    """Random values with a zero, the dtype's extremes for integers (min and
    max are exact for every dtype), a NaN when asked (floats only)."""
    x = random_array(rng, shape, dtype)
    x.flat[1 % x.size] = 0
    if np.dtype(dtype).kind != "f":
        info = np.iinfo(dtype)
        x.flat[0] = info.max
        x.flat[-1] = info.min
    elif nan:
        x.flat[x.size // 2] = np.nan
    return x


def check_float_reduction(got, want, n, mag):
    """Float64 sums in another order than NumPy's: n eps64 mag; NaN and
    infinities (var with ddof >= n) exactly where NumPy has them."""
    got, want = np.asarray(got, np.float64), np.asarray(want)
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite], want[~finite])
    err = np.abs(got - want)[finite]
    assert np.all(err <= n * eps(np.float64) * np.broadcast_to(mag, want.shape)[finite]), (got, want)


@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_reductions_match_numpy(rng, dtype, shape, nan):
    x = reduction_data(rng, shape, dtype, nan)
    x64 = x.astype(np.float64)
    n = x.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        s = kiln.sum(x)
        assert isinstance(s, float)
        check_float_reduction(s, np.sum(x64), n, np.sum(np.abs(x64)))
        m = kiln.mean(x)
        check_float_reduction(m, np.mean(x64), n, np.mean(np.abs(x64)))
        for ddof in [0, 1, -1, n, n + 2]:  # divided by max(n - ddof, 0), as NumPy
            v, sd = kiln.var(x, ddof=ddof), kiln.std(x, ddof=ddof)
            want_v = np.var(x64, ddof=ddof)
            # Two passes: the mean, then the squared deviations (4 n eps64).
            dev2 = np.mean((x64 - np.mean(x64)) ** 2) + np.mean(np.abs(x64)) ** 2
            check_float_reduction(v, want_v, 4 * n, dev2 * n / max(n - ddof, 1))
            check_float_reduction(sd, np.std(x64, ddof=ddof), 4 * n, np.sqrt(dev2 * n / max(n - ddof, 1)))
        mn, mx = kiln.min(x), kiln.max(x)
        if np.isnan(x).any():
            assert np.isnan(mn) and np.isnan(mx)
        else:
            assert mn == np.min(x64) and mx == np.max(x64)
        am, aM = kiln.argmin(x), kiln.argmax(x)
        assert isinstance(am, int) and am == np.argmin(x) and aM == np.argmax(x)
        cz = kiln.count_nonzero(x)
        assert isinstance(cz, int) and cz == np.count_nonzero(x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7,), (5, 13), (3, 4, 9), (17, 31), (1, 1)])
def test_axis_reductions_match_numpy(rng, dtype, shape):
    x = reduction_data(rng, shape, dtype, nan=np.dtype(dtype).kind == "f")
    x64 = x.astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for axis in range(-x.ndim, x.ndim):
            n = x.shape[axis]
            want_shape = tuple(d for i, d in enumerate(x.shape) if i != axis % x.ndim) or (1,)

            def check(got, want, out_dtype):
                assert isinstance(got, kiln.Array)
                got = got.get()
                assert got.dtype == np.dtype(out_dtype) and got.shape == want_shape
                return got, np.asarray(want).reshape(want_shape)

            got, want = check(kiln.sum(x, axis=axis), np.sum(x64, axis), np.float64)
            check_float_reduction(got, want, n, np.sum(np.abs(x64), axis).reshape(want_shape))
            got, want = check(kiln.mean(x, axis=axis), np.mean(x64, axis), np.float64)
            check_float_reduction(got, want, n, np.mean(np.abs(x64), axis).reshape(want_shape))
            for ddof in [0, 1, n]:
                got, want = check(kiln.var(x, axis=axis, ddof=ddof), np.var(x64, axis, ddof=ddof), np.float64)
                mag = (np.var(x64, axis) + np.mean(np.abs(x64), axis) ** 2) * n / max(n - ddof, 1)
                check_float_reduction(got, want, 4 * n, mag.reshape(want_shape))
                got, want = check(kiln.std(x, axis=axis, ddof=ddof), np.std(x64, axis, ddof=ddof), np.float64)
                check_float_reduction(got, want, 4 * n, np.sqrt(mag).reshape(want_shape))
            for name in ["min", "max"]:
                got, want = check(getattr(kiln, name)(x, axis=axis), getattr(np, name)(x, axis), dtype)
                np.testing.assert_array_equal(got, want)
            for name in ["argmin", "argmax"]:
                got, want = check(getattr(kiln, name)(x, axis=axis), getattr(np, name)(x, axis), np.int32)
                np.testing.assert_array_equal(got, want)
            got, want = check(kiln.count_nonzero(x, axis=axis), np.count_nonzero(x, axis), np.int32)
            np.testing.assert_array_equal(got, want)
        with pytest.raises(kiln.InvalidArgument, match="axis"):
            kiln.sum(x, axis=x.ndim)


def test_count_nonzero_counts_nan_not_negative_zero():
    x = np.array([0.0, -0.0, np.nan, 1.0, -np.inf], np.float32)
    assert kiln.count_nonzero(x) == 3 == np.count_nonzero(x)
    assert kiln.argmin(x) == 2 == np.argmin(x) and kiln.argmax(x) == 2


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [(4,), (2, 2, 2)])
def test_median_matches_numpy(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    m = kiln.median(x)
    assert isinstance(m, float)
    assert m == np.median(x.astype(np.float64))  # exact: the middle values themselves
    if np.dtype(dtype).kind == "f":
        x.flat[-1] = np.nan
        assert np.isnan(kiln.median(x))


# -- full and copy -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_full_converts_as_cast(dtype):
    for value in [2.7, -2.7, 300.0, -1e12, 1e12, float("nan"), 0.1]:
        got = kiln.full((3, 4), value, dtype).get()
        assert got.dtype == np.dtype(dtype) and got.shape == (3, 4)
        want = np.full((3, 4), cast_scalar(value, dtype), dtype)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_copy_is_independent(rng, dtype):
    x = random_array(rng, (3, 4, 9), dtype)
    a = kiln.asarray(x)
    c = kiln.copy(a)
    assert c.dtype == np.dtype(dtype) and c.shape == x.shape
    a.set(np.zeros_like(x))
    np.testing.assert_array_equal(c.get(), x)
    np.testing.assert_array_equal(kiln.copy(x).get(), x)
