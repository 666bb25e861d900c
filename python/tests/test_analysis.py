"""The hand-written analysis functions against SciPy/NumPy on random data:
label, measure, histogram, bincount, percentile/quantile, median,
kappa_sigma_clip, primes and prime_flags, with their documented semantics
(engine/include/kiln/*.hpp) and errors."""
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

import kiln
from conftest import DTYPES, random_array

EPS64 = float(np.finfo(np.float64).eps)
# kiln's neighbour count for each rank of scipy.ndimage.generate_binary_structure.
CONNECTIVITY = {1: {1: 2}, 2: {1: 4, 2: 8}, 3: {1: 6, 2: 18, 3: 26}}
SHAPES = [(1,), (1, 1), (7,), (5, 13), (3, 4, 9), (17, 31), (6, 7, 8)]


def random_mask(rng, shape, dtype, density=0.5):
    """A mask of dtype: random nonzero values (any sign) on about `density`
    of the elements, zeros elsewhere; float masks get NaN (foreground) and
    -0.0 (background) too."""
    values = random_array(rng, shape, dtype)
    values[values == 0] = 1
    mask = np.where(rng.random(shape) < density, values, 0).astype(dtype)
    if np.dtype(dtype).kind == "f" and mask.size > 2:
        mask.flat[0], mask.flat[-1] = np.nan, -0.0
    return mask


# -- label -----------------------------------------------------------------------

@pytest.mark.parametrize("density", [0.3, 0.6])
@pytest.mark.parametrize("shape", SHAPES)
def test_label_matches_scipy_every_connectivity(rng, shape, density):
    mask = random_mask(rng, shape, np.uint8, density)
    for rank, conn in CONNECTIVITY[len(shape)].items():
        structure = ndi.generate_binary_structure(len(shape), rank)
        want, n = ndi.label(mask, structure)
        for labels, count in [kiln.label(mask, connectivity=conn), kiln.label(mask, structure)]:
            assert isinstance(labels, kiln.Array) and labels.dtype == np.int32 and labels.shape == shape
            assert count == n
            np.testing.assert_array_equal(labels.get(), want)
    # The default is SciPy's: faces only.
    labels, count = kiln.label(mask)
    want, n = ndi.label(mask)
    assert count == n
    np.testing.assert_array_equal(labels.get(), want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_label_every_mask_dtype_and_nan_foreground(rng, dtype):
    mask = random_mask(rng, (9, 23), dtype)
    want, n = ndi.label(mask)  # NaN is nonzero: foreground, as in SciPy
    labels, count = kiln.label(kiln.asarray(mask))
    assert count == n
    np.testing.assert_array_equal(labels.get(), want)
    if np.dtype(dtype).kind == "f":
        assert labels.get().flat[0] != 0 and labels.get().flat[-1] == 0


def test_label_empty_full_and_worst_case_masks():
    labels, n = kiln.label(np.zeros((4, 5), np.uint8))
    assert n == 0 and not labels.get().any()
    labels, n = kiln.label(np.ones((3, 4, 5), np.float32))
    assert n == 1 and (labels.get() == 1).all()
    # A checkerboard: every pixel its own component with 4-connectivity, one with 8.
    board = (np.indices((15, 16)).sum(axis=0) % 2).astype(np.uint8)
    for conn in (4, 8):
        want, n = ndi.label(board, ndi.generate_binary_structure(2, conn // 4))
        labels, count = kiln.label(board, connectivity=conn)
        assert count == n
        np.testing.assert_array_equal(labels.get(), want)
    # A spiral: one long component whose pixels meet late in the union-find.
    spiral = np.zeros((21, 21), np.uint8)
    r0, r1, c0, c1 = 0, 20, 0, 20
    while r0 <= r1 and c0 <= c1:
        spiral[r0, c0:c1 + 1] = 1
        spiral[r0:r1 + 1, c1] = 1
        if r1 > r0 + 1:
            spiral[r1, c0:c1 + 1] = 1
        if c1 > c0 + 1:
            spiral[r0 + 2:r1 + 1, c0] = 1
        r0, r1, c0, c1 = r0 + 2, r1 - 2, c0 + 2, c1 - 2
    want, n = ndi.label(spiral)
    labels, count = kiln.label(spiral)
    assert count == n
    np.testing.assert_array_equal(labels.get(), want)


def test_label_errors():
    mask = np.ones((4, 4), np.uint8)
    with pytest.raises(kiln.InvalidArgument, match="connectivity"):
        kiln.label(mask, connectivity=6)
    with pytest.raises(kiln.InvalidArgument, match="generate_binary_structure"):
        kiln.label(mask, np.array([[0, 1, 0], [1, 1, 0], [0, 1, 0]]))
    with pytest.raises(kiln.InvalidArgument, match="3-wide array of the input's rank 2"):
        kiln.label(mask, np.ones((3, 3, 3)))
    with pytest.raises(TypeError, match="structure or connectivity"):
        kiln.label(mask, np.ones((3, 3)), connectivity=8)
    assert issubclass(kiln.InvalidArgument, ValueError)


# -- measure ---------------------------------------------------------------------

def labelled(rng, shape, dtype, nan=False):
    image = random_array(rng, shape, dtype)
    if nan and np.dtype(dtype).kind == "f":
        image.flat[::7] = np.nan
    labels, n = ndi.label(rng.random(shape) < 0.5)
    return image, labels.astype(np.int32), n


def check_measure(got, image, labels, index, ndim):
    """kiln.measure's columns against scipy.ndimage on the non-NaN pixels."""
    image64 = image.astype(np.float64)
    valid = ~np.isnan(image64)
    ref_labels = np.where(valid, labels, -1)  # NaN pixels are skipped
    idx = list(index)
    assert got["label"].tolist() == idx and got["label"].dtype == np.int32
    count = ndi.sum_labels(np.ones_like(image64), ref_labels, idx)
    np.testing.assert_array_equal(got["count"], count.astype(np.int64))
    img = np.where(valid, image64, 0)
    present = count > 0
    if not present.any():
        return
    p = np.asarray(idx)[present]
    n = count[present]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        abs_sum = ndi.sum_labels(np.abs(img), ref_labels, p)
        # float64 sums in another order: n eps sum|v| (exact for integers).
        ulps = n * EPS64 if image.dtype.kind == "f" else 0
        assert np.all(np.abs(got["sum"][present] - ndi.sum_labels(img, ref_labels, p)) <= ulps * abs_sum)
        assert np.all(np.abs(got["mean"][present] - ndi.mean(img, ref_labels, p)) <= n * EPS64 * abs_sum / n)
        # The variance from sums of (v - first v of the label): 4 n eps mean((v - v0)^2).
        v0 = np.array([img[ref_labels == k].ravel()[0] for k in p])
        spread = np.array([np.mean((img[ref_labels == k] - v0[i]) ** 2) for i, k in enumerate(p)])
        var = ndi.variance(img, ref_labels, p)
        var_bound = 4 * n * EPS64 * spread
        assert np.all(np.abs(got["variance"][present] - var) <= var_bound)
        # |sqrt(a) - sqrt(b)| = |a - b| / (sqrt(a) + sqrt(b)), and one rounding of the root.
        sd, want_sd = got["std"][present], ndi.standard_deviation(img, ref_labels, p)
        sd_bound = np.where(sd + want_sd > 0, var_bound / np.maximum(sd + want_sd, 1e-300), 0) + EPS64 * want_sd
        assert np.all(np.abs(sd - want_sd) <= sd_bound)
        np.testing.assert_array_equal(got["min"][present], ndi.minimum(img, ref_labels, p))
        np.testing.assert_array_equal(got["max"][present], ndi.maximum(img, ref_labels, p))
        # center_of_mass = sum(v coord) / sum(v), both float64 sums.
        com = np.asarray(ndi.center_of_mass(img, ref_labels, p)).reshape(-1, ndim)
        coords = np.indices(image.shape).reshape(ndim, -1).T
        for i, k in enumerate(p):
            sel = (ref_labels == k).ravel()
            v = img.ravel()[sel]
            c = coords[sel]
            bound = len(v) * EPS64 * (np.abs(v) @ c + np.abs(com[i]) * np.abs(v).sum()) / abs(v.sum())
            assert np.all(np.abs(got["center_of_mass"][present][i] - com[i]) <= bound + 1e-300)
            # Positions: the first pixel in raster order holding the min / max.
            flat = np.flatnonzero(sel)
            vals = img.ravel()[flat]
            for col, fn in [("min_pos", np.argmin), ("max_pos", np.argmax)]:
                want = np.unravel_index(flat[fn(vals)], image.shape)
                np.testing.assert_array_equal(got[col][present][i], want)
    # Bounding boxes as find_objects' slices.
    objects = ndi.find_objects(np.where(np.isin(ref_labels, p), ref_labels, 0))
    for i, k in enumerate(p):
        sl = objects[k - 1] if k > 0 else tuple(slice(a.min(), a.max() + 1) for a in np.nonzero(ref_labels == 0))
        np.testing.assert_array_equal(got["bbox_start"][present][i], [s.start for s in sl])
        np.testing.assert_array_equal(got["bbox_stop"][present][i], [s.stop for s in sl])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7,), (5, 13), (3, 4, 9), (17, 31)])
def test_measure_matches_scipy(rng, dtype, shape):
    image, labels, n = labelled(rng, shape, dtype)
    got = kiln.measure(image, labels)
    assert set(got) == {"label", "count", "sum", "mean", "variance", "std", "min", "max", "min_pos", "max_pos",
                        "center_of_mass", "bbox_start", "bbox_stop"}
    assert got["min_pos"].shape == (n, len(shape)) and got["center_of_mass"].dtype == np.float64
    check_measure(got, image, labels, range(1, n + 1), len(shape))
    # Float images: scipy's positions too (no ties in random floats).
    if np.dtype(dtype).kind == "f" and n:
        idx = list(range(1, n + 1))
        np.testing.assert_array_equal(got["min_pos"], np.array(ndi.minimum_position(image, labels, idx)).reshape(n, -1))
        np.testing.assert_array_equal(got["max_pos"], np.array(ndi.maximum_position(image, labels, idx)).reshape(n, -1))


@pytest.mark.parametrize("label_dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32])
def test_measure_with_index_and_label_dtypes(rng, label_dtype):
    image, labels, n = labelled(rng, (11, 19), np.float32, nan=True)
    assert n > 5
    # Duplicates, 0 (the background) and a label absent from the image.
    index = [3, 1, 3, 0, n + 5, 2]
    got = kiln.measure(image, labels.astype(label_dtype), index=np.array(index))
    check_measure(got, image, labels, index, 2)
    absent = got["label"] == n + 5
    assert got["count"][absent] == 0 and got["sum"][absent] == 0
    for col in ["mean", "variance", "std", "min", "max"]:
        assert np.isnan(got[col][absent]).all(), col
    assert np.isnan(got["center_of_mass"][absent]).all()
    assert (got["bbox_start"][absent] == 0).all() and (got["bbox_stop"][absent] == 0).all()
    # kiln.label's result as it is.
    mask = ~np.isnan(image) & (image > 0)
    lab, count = kiln.label(mask)
    got = kiln.measure(image, lab)
    want_labels, _ = ndi.label(mask)
    check_measure(got, image, want_labels, range(1, count + 1), 2)


def test_measure_errors(rng):
    image = random_array(rng, (4, 5), np.float32)
    for labels, index, why in [(np.ones((5, 4), np.int32), None, r"shape \(4, 5\) and labels shape \(5, 4\) differ"),
                               (np.ones((4, 5), np.float32), None, "labels are float32; give an integer label"),
                               (np.ones((4, 5), np.int32), [2**31], "beyond the int32 labels")]:
        with pytest.raises(kiln.InvalidArgument, match=why):
            kiln.measure(image, labels, index)


# -- histogram and bincount ---------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (7,), (5, 13), (3, 4, 9), (17, 31)])
def test_histogram_matches_numpy(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    for bins, rng_ in [(10, None), (7, None), (1, None), (13, (-3.3, 100.1)), (256, (0, 256)), (5, (-1000, 1000))]:
        counts, edges = kiln.histogram(x, bins, rng_)
        # kiln computes edges as NumPy 1.x does: linspace in float64, rounded
        # to float32 for float32 input. NumPy 2 (NEP 50) computes a float32
        # array's own extent in float32 arithmetic, while a range of Python
        # floats still goes through float64: NumPy 1.x's result is NumPy 2's
        # with the extent passed as Python floats.
        ref_range = rng_
        if rng_ is None and np.dtype(dtype) == np.float32 and int(np.__version__.split(".")[0]) >= 2:
            ref_range = (float(x.min()), float(x.max()))
        want_counts, want_edges = np.histogram(x, bins, ref_range)
        assert isinstance(counts, kiln.Array) and counts.dtype == np.uint32 and counts.shape == (bins,)
        np.testing.assert_array_equal(counts.get(), want_counts)
        assert edges.dtype == np.float64 and edges.shape == (bins + 1,)
        np.testing.assert_array_equal(edges, want_edges.astype(np.float64))  # exactly


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_values_on_edges_and_non_finite(dtype):
    # Every edge itself, as NumPy computes it: each lands where NumPy puts it.
    for bins, lo, hi in [(10, 0.0, 1.0), (7, -0.3, 0.7), (100, -5.5, 12.25), (3, 1e-3, 2e-3)]:
        _, edges = np.histogram(np.zeros(1, dtype), bins, (lo, hi))
        x = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)]).astype(dtype)
        counts, got_edges = kiln.histogram(x, bins, (lo, hi))
        want_counts, want_edges = np.histogram(x, bins, (lo, hi))
        np.testing.assert_array_equal(counts.get(), want_counts)
        np.testing.assert_array_equal(got_edges, want_edges.astype(np.float64))
    # NaN and infinities are dropped; without a range it is the finite extent.
    x = np.array([np.nan, -np.inf, 1.0, 2.5, np.inf, 4.0, 4.0], dtype)
    counts, edges = kiln.histogram(x, 4, (0, 5))
    np.testing.assert_array_equal(counts.get(), np.histogram(x, 4, (0, 5))[0])
    counts, edges = kiln.histogram(x, 4)
    want_counts, want_edges = np.histogram(x[np.isfinite(x)], 4)
    np.testing.assert_array_equal(counts.get(), want_counts)
    np.testing.assert_array_equal(edges, want_edges.astype(np.float64))
    # A constant array: the range widened by 0.5 each side, as NumPy's.
    counts, edges = kiln.histogram(np.full(5, 3, dtype), 4)
    want_counts, want_edges = np.histogram(np.full(5, 3, dtype), 4)
    np.testing.assert_array_equal(counts.get(), want_counts)
    np.testing.assert_array_equal(edges, want_edges.astype(np.float64))


def test_histogram_errors():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(TypeError, match="whole number"):
        kiln.histogram(x, bins=[0, 1, 2])
    with pytest.raises(kiln.InvalidArgument):
        kiln.histogram(x, 0)
    with pytest.raises(kiln.InvalidArgument):
        kiln.histogram(x, 5, (3, 3))
    with pytest.raises(kiln.InvalidArgument):
        kiln.histogram(x, 5, (0, float("inf")))
    with pytest.raises(kiln.InvalidArgument, match="not finite"):
        kiln.histogram(np.full(3, np.nan, np.float32), 5)


@pytest.mark.parametrize("dtype", [t for t in DTYPES if np.dtype(t).kind != "f"])
def test_bincount_matches_numpy(rng, dtype):
    x = np.abs(random_array(rng, (5, 13), dtype).astype(np.int64)) % 200
    x = x.astype(dtype)
    for minlength in [0, 10, 300]:
        got = kiln.bincount(x, minlength=minlength)
        assert isinstance(got, kiln.Array) and got.dtype == np.uint32
        np.testing.assert_array_equal(got.get(), np.bincount(x.ravel(), minlength=minlength))


def test_bincount_errors():
    with pytest.raises(kiln.InvalidArgument):
        kiln.bincount(np.array([1.0, 2.0], np.float32))
    with pytest.raises(kiln.InvalidArgument, match="-3.*index 2|index 2.*-3"):
        kiln.bincount(np.array([1, 2, -3, 4], np.int16))
    # The context stays usable.
    np.testing.assert_array_equal(kiln.bincount(np.array([1, 1], np.int16)).get(), [0, 2])


# -- order statistics -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (2,), (7,), (5, 13), (3, 4, 9), (17, 31)])
def test_percentile_and_quantile_match_numpy(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    x64 = x.astype(np.float64)  # any dtype, taken as float64
    qs = [0, 12.3, 25, 37.5, 50, 66.6, 99.9, 100]
    for q in qs:
        got = kiln.percentile(x, q)
        assert isinstance(got, float)
        assert got == np.percentile(x64, q), q  # exact: NumPy's interpolation
    got = kiln.percentile(x, qs)
    assert got.dtype == np.float64 and got.shape == (len(qs),)
    np.testing.assert_array_equal(got, np.percentile(x64, qs))
    q2 = np.array([[5.0, 95.0], [50.0, 0.0]])
    np.testing.assert_array_equal(kiln.percentile(x, q2), np.percentile(x64, q2))
    # quantile is documented as percentile(a, 100 q): NumPy's quantile exactly
    # where 100 q / 100 == q in float64 (0.3 is not: 30.000000000000004 / 100).
    for q in [0.0, 0.25, 0.5, 0.75, 1.0, 0.3, 0.123, 0.999]:
        assert kiln.quantile(x, q) == np.percentile(x64, 100 * q), q
        if q * 100 / 100 == q:
            assert kiln.quantile(x, q) == np.quantile(x64, q), q
    np.testing.assert_array_equal(kiln.quantile(x, [0.25, 0.5]), np.quantile(x64, [0.25, 0.5]))


def test_percentile_nan_and_errors():
    x = np.array([3.0, np.nan, 1.0], np.float32)
    assert np.isnan(kiln.percentile(x, 50)) and np.isnan(kiln.median(x))
    for q in [-1, 100.5, float("nan")]:
        with pytest.raises(kiln.InvalidArgument):
            kiln.percentile(np.ones(3, np.float32), q)


@pytest.mark.parametrize("dtype", DTYPES)
def test_median_even_odd_and_device_arrays(rng, dtype):
    for n in [1, 2, 7, 64, 1001]:
        x = random_array(rng, n, dtype)
        assert kiln.median(kiln.asarray(x)) == np.median(x.astype(np.float64))


# -- kappa-sigma clipping ---------------------------------------------------------------

def clip_ref(x, kappa, max_iters):
    """The loop of kiln/statistics.hpp (kiln/reference/clip.hpp) in NumPy:
    each pass takes the median and population std of the kept values and
    keeps those strictly inside median +- kappa std; it stops after a pass
    that removes nothing (counted: a pass over an empty set removes nothing)
    or after max_iters passes. Non-finite values are never kept; a pass over
    equal values (an empty interval) removes nothing."""
    x = x.astype(np.float64)
    keep = np.isfinite(x)
    iterations = 0
    while True:
        iterations += 1
        v = x[keep]
        if v.size == 0:
            break
        med, sd = np.median(v), np.std(v)
        lo, hi = med - kappa * sd, med + kappa * sd
        if not lo < hi or v.min() == v.max():
            break
        new = keep & (x > lo) & (x < hi)
        done = new.sum() == keep.sum() or iterations == max_iters
        keep = new
        if done:
            break
    v = x[keep]
    if v.size == 0:
        return dict(median=np.nan, std=np.nan, mean=np.nan, count=0, iterations=iterations, mask=keep)
    return dict(median=np.median(v), std=np.std(v), mean=np.mean(v), count=v.size, iterations=iterations,
                mask=keep)


def check_clip(got, want, x):
    assert got["count"] == want["count"] and got["iterations"] == want["iterations"]
    if want["count"] == 0:
        assert np.isnan(got["median"]) and np.isnan(got["std"]) and np.isnan(got["mean"])
        return
    v = x.astype(np.float64)[want["mask"]]
    n = v.size
    assert got["median"] == want["median"]  # exact
    # float64 sums in another order (the std's two passes: 4 n eps).
    assert abs(got["mean"] - want["mean"]) <= n * EPS64 * np.mean(np.abs(v))
    assert abs(got["std"] - want["std"]) <= 4 * n * EPS64 * (want["std"] + np.mean(np.abs(v)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_kappa_sigma_clip_matches_the_documented_loop(rng, dtype):
    shape = (17, 31)
    x = random_array(rng, shape, dtype)
    outliers = rng.integers(0, x.size, 12)
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    x.flat[outliers] = info.max // 2 if np.dtype(dtype).kind != "f" else 1e4
    if np.dtype(dtype).kind == "f":
        x.flat[:3] = [np.nan, np.inf, -np.inf]
    for kappa, max_iters in [(3.0, 100), (2.0, 100), (1.5, 2), (1.0, 1), (2.5, 3)]:
        got = kiln.kappa_sigma_clip(x, kappa, max_iters, return_mask=True)
        want = clip_ref(x, kappa, max_iters)
        check_clip(got, want, x)
        assert got.count == got["count"] and got.mask is got["mask"]  # keys and attributes
        assert isinstance(got.mask, kiln.Array) and got.mask.dtype == np.uint8 and got.mask.shape == shape
        np.testing.assert_array_equal(got.mask.get(), want["mask"].astype(np.uint8))
    assert kiln.kappa_sigma_clip(x).mask is None


def test_kappa_sigma_clip_edge_cases():
    got = kiln.kappa_sigma_clip(np.full(9, 4.0, np.float32))  # constant: nothing removed, one pass
    assert got.count == 9 and got.iterations == 1 and got.median == 4.0 and got.std == 0 and got.mean == 4.0
    got = kiln.kappa_sigma_clip(np.array([0.0, 1.0]), kappa=0.5)  # every value removed
    check_clip(got, clip_ref(np.array([0.0, 1.0]), 0.5, 100), np.array([0.0, 1.0]))
    assert got.count == 0 and np.isnan(got.median) and got.iterations == 2  # the empty pass counts
    got = kiln.kappa_sigma_clip(np.array([0.0, 1.0]), kappa=0.5, max_iters=1)
    assert got.count == 0 and got.iterations == 1
    with pytest.raises(kiln.InvalidArgument):
        kiln.kappa_sigma_clip(np.ones(3, np.float32), kappa=0)
    with pytest.raises(kiln.InvalidArgument):
        kiln.kappa_sigma_clip(np.ones(3, np.float32), max_iters=0)
    with pytest.raises(kiln.InvalidArgument, match="finite"):
        kiln.kappa_sigma_clip(np.array([np.nan, np.inf], np.float32))


# -- primes ---------------------------------------------------------------------------

def sieve(upper):
    flags = np.ones(upper, bool)
    flags[:2] = False
    for p in range(2, int(upper ** 0.5) + 1):
        if flags[p]:
            flags[p * p::p] = False
    return flags


@pytest.mark.parametrize("method", ["sieve", "trial_division"])
@pytest.mark.parametrize("upper", [1, 2, 3, 4, 100, 1009, 65537, 200003])
def test_primes_match_a_numpy_sieve(method, upper):
    want = sieve(upper)
    p = kiln.primes(upper, method)
    assert isinstance(p, np.ndarray) and p.dtype == np.uint32
    np.testing.assert_array_equal(p, np.flatnonzero(want))
    f = kiln.prime_flags(upper, method)
    assert isinstance(f, kiln.Array) and f.dtype == np.uint8 and f.shape == (upper,)
    np.testing.assert_array_equal(f.get(), want.astype(np.uint8))


def test_primes_errors():
    with pytest.raises(kiln.InvalidArgument, match="'sieve' or 'trial_division'"):
        kiln.primes(10, "eratosthenes")
    with pytest.raises(kiln.InvalidArgument):
        kiln.prime_flags(0)
    with pytest.raises(TypeError):
        kiln.primes(-5)


def test_measure_with_the_label_count_equals_measure_without(rng):
    image = random_array(rng, (37, 29), np.float32)
    labels, n = kiln.label(image > 5)
    full = kiln.measure(image, labels)
    counted = kiln.measure(image, labels, n=n)
    assert len(counted["label"]) == n
    for key in full:
        if np.issubdtype(full[key].dtype, np.floating):
            # Pixel lists are filled in the order the GPU's atomics decide,
            # so float64 sums of two runs may differ in the last bit (seen on
            # an H100: 1.9e-16 relative).
            np.testing.assert_allclose(counted[key], full[key], rtol=1e-13, atol=0, err_msg=key)
        else:
            np.testing.assert_array_equal(counted[key], full[key], err_msg=key)
    np.testing.assert_allclose(counted["sum"], ndi.sum_labels(image, labels.get(), np.arange(1, n + 1)), rtol=1e-6)
    with pytest.raises(kiln.InvalidArgument, match="index or n"):
        kiln.measure(image, labels, index=[1], n=n)
