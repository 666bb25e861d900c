"""The image-processing toolbox of issue 18 through Python: every manifest op
of the derivative, rank filter, transform, threshold, label tool, distance
and watershed families called as kiln.<op>(...) with SciPy's keyword names,
against scipy.ndimage / scikit-image on the same NumPy input (small odd
shapes, fixed seeds, 2-D and one 3-D case where the op takes 3-D).

Exact equality for integer, label and binary results, rank filters and
order-0 transforms. Float tolerances (kiln computes in float32, the
references in float64 on the same float32 input):
- short stencils (sobel, prewitt, laplace; at most 9 terms of size |x|):
  the float32 sum of n terms is within n eps32 sum|terms| of the exact one;
  RTOL_SUM = 1e-5 of the largest |input| covers n <= 9 with margin.
- Gaussian filters and their derivatives (kernels of 2 * 4 sigma + 1 taps
  per axis, separable): each 1-D pass adds about taps * eps32 relative to
  sum|terms| <= max|x| * sum|weights|; 1e-5 of max|input| per pass covers
  the taps used here (sigma <= 2: 17 taps, 17 * 1.2e-7 = 2e-6).
- interpolation (spline prefilter is a recursive filter whose gain is
  about sqrt(3) per axis, then 4^ndim cubic weights): 1e-5 of max|input|.
"""
import numpy as np
import pytest
import scipy.ndimage as ndi
import skimage.filters
import skimage.segmentation

import kiln

RTOL_SUM = 1e-5


def np_of(a):
    return np.asarray(a)


def close(got, want, scale_of=None, rtol=RTOL_SUM):
    """got within rtol * max|scale_of| of want, elementwise (see the module
    docstring for why the tolerance scales with the input's magnitude)."""
    got = np_of(got)
    assert got.shape == want.shape
    scale = np.abs(scale_of if scale_of is not None else want).max()
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=rtol * scale)


def same(got, want):
    got = np_of(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


@pytest.fixture
def img(rng):
    return (rng.standard_normal((13, 17)) * 10).astype(np.float32)


@pytest.fixture
def vol(rng):
    return (rng.standard_normal((7, 9, 11)) * 10).astype(np.float32)


# --- derivatives ---------------------------------------------------------

@pytest.mark.parametrize("op", ["sobel", "prewitt"])
def test_edge_filters(op, img, vol, rng):
    f, ref = getattr(kiln, op), getattr(ndi, op)
    for axis in (0, 1, -1):
        close(f(img, axis=axis), ref(img.astype(np.float64), axis=axis), img)
    close(f(img, axis=0, mode="constant", cval=2.5), ref(img.astype(np.float64), axis=0, mode="constant", cval=2.5),
          img)
    close(f(vol, axis=1, mode="wrap"), ref(vol.astype(np.float64), axis=1, mode="wrap"), vol)
    # Integer input: float32 out (SciPy would keep int16); small sums are exact.
    ints = rng.integers(-100, 100, size=(11, 15)).astype(np.int16)
    out = f(ints, axis=0)
    assert np_of(out).dtype == np.float32
    same(out, ref(ints.astype(np.float64), axis=0).astype(np.float32))


def test_laplace(img, vol):
    close(kiln.laplace(img), ndi.laplace(img.astype(np.float64)), img)
    close(kiln.laplace(img, mode="mirror"), ndi.laplace(img.astype(np.float64), mode="mirror"), img)
    close(kiln.laplace(vol, mode="constant", cval=-1.0), ndi.laplace(vol.astype(np.float64), mode="constant", cval=-1.0),
          vol)


@pytest.mark.parametrize("op", ["gaussian_laplace", "gaussian_gradient_magnitude"])
def test_gaussian_derivatives(op, img, vol):
    f, ref = getattr(kiln, op), getattr(ndi, op)
    close(f(img, sigma=1.5), ref(img.astype(np.float64), sigma=1.5), img)
    close(f(img, sigma=1.0, mode="nearest", truncate=3.0),
          ref(img.astype(np.float64), sigma=1.0, mode="nearest", truncate=3.0), img)
    # Per-axis sigma: SciPy's sequence (NumPy order), or sigma_y/sigma_x.
    close(f(img, sigma=[0.8, 2.0]), ref(img.astype(np.float64), sigma=(0.8, 2.0)), img)
    close(f(img, sigma_y=0.8, sigma_x=2.0), ref(img.astype(np.float64), sigma=(0.8, 2.0)), img)
    close(f(vol, sigma=1.2, mode="reflect"), ref(vol.astype(np.float64), sigma=1.2), vol)


def test_gaussian_filter_order(img, vol):
    for order in ([0, 1], [2, 0], [1, 1], 3):
        close(kiln.gaussian_filter(img, sigma=1.5, order=order),
              ndi.gaussian_filter(img.astype(np.float64), sigma=1.5, order=order), img)
    close(kiln.gaussian_filter(vol, sigma=1.0, order=[1, 0, 2], mode="constant", cval=3.0),
          ndi.gaussian_filter(vol.astype(np.float64), sigma=1.0, order=[1, 0, 2], mode="constant", cval=3.0), vol)
    for order in (1, 2):
        close(kiln.gaussian_filter1d(img, 1.7, axis=0, order=order),
              ndi.gaussian_filter1d(img.astype(np.float64), 1.7, axis=0, order=order), img)


def test_difference_of_gaussians(img, vol):
    # skimage's img_as_float keeps float32 input as it is.
    close(kiln.difference_of_gaussians(img, 1.0), skimage.filters.difference_of_gaussians(img.astype(np.float64), 1.0),
          img)
    close(kiln.difference_of_gaussians(img, 1.0, 2.5, mode="reflect"),
          skimage.filters.difference_of_gaussians(img.astype(np.float64), 1.0, 2.5, mode="reflect"), img)
    close(kiln.difference_of_gaussians(vol, 0.7, high_sigma=1.5),
          skimage.filters.difference_of_gaussians(vol.astype(np.float64), 0.7, high_sigma=1.5), vol)


# --- rank filters ---------------------------------------------------------

RANK_DTYPES = [np.float32, np.uint8, np.int16, np.float64]


def typed(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 10).astype(dtype)
    return rng.integers(0, 100, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", RANK_DTYPES)
def test_rank_filters(dtype, rng):
    x = typed(rng, (13, 17), dtype)
    same(kiln.median_filter(x, size=3), ndi.median_filter(x, size=3))
    same(kiln.median_filter(x, size=(3, 5), mode="constant", cval=7), ndi.median_filter(x, size=(3, 5), mode="constant",
                                                                                      cval=7))
    fp = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
    same(kiln.median_filter(x, footprint=fp, mode="nearest"), ndi.median_filter(x, footprint=fp, mode="nearest"))
    same(kiln.percentile_filter(x, 25, size=(5, 3), mode="mirror"),
         ndi.percentile_filter(x, 25, size=(5, 3), mode="mirror"))
    same(kiln.percentile_filter(x, percentile=-10, footprint=fp), ndi.percentile_filter(x, percentile=-10, footprint=fp))
    same(kiln.rank_filter(x, -1, size=3, origin=1), ndi.rank_filter(x, -1, size=3, origin=1))
    same(kiln.rank_filter(x, rank=2, size=[3, 3], origin=[0, -1], mode="wrap"),
         ndi.rank_filter(x, rank=2, size=[3, 3], origin=[0, -1], mode="wrap"))


def test_rank_filters_3d(vol):
    same(kiln.median_filter(vol, size=3), ndi.median_filter(vol, size=3))
    same(kiln.rank_filter(vol, 5, size=(3, 1, 3)), ndi.rank_filter(vol, 5, size=(3, 1, 3)))


def test_rank_filters_float64_large_footprints(rng):
    # NumPy's default float through 64-bit keys: the bisection (a 15x15 box,
    # a 9x9 disc) as well as the networks, infinities included.
    x = rng.standard_normal((40, 45))
    x[3, 4], x[20, 30] = np.inf, -np.inf
    disc = np.hypot(*np.mgrid[-4:5, -4:5]) <= 4
    same(kiln.median_filter(x, size=15), ndi.median_filter(x, size=15))
    same(kiln.percentile_filter(x, 90, footprint=disc, mode="constant", cval=0.5),
         ndi.percentile_filter(x, 90, footprint=disc, mode="constant", cval=0.5))
    v = rng.standard_normal((7, 8, 9))
    same(kiln.median_filter(v, size=3), ndi.median_filter(v, size=3))


def test_uniform_filter(img, vol, rng):
    close(kiln.uniform_filter(img, size=5), ndi.uniform_filter(img.astype(np.float64), size=5), img)
    close(kiln.uniform_filter(img, size=(3, 4), mode="constant", cval=1.5, origin=(0, 1)),
          ndi.uniform_filter(img.astype(np.float64), size=(3, 4), mode="constant", cval=1.5, origin=(0, 1)), img)
    close(kiln.uniform_filter(vol, 3, mode="wrap"), ndi.uniform_filter(vol.astype(np.float64), 3, mode="wrap"), vol)
    close(kiln.uniform_filter1d(img, 4, axis=0, origin=-1),
          ndi.uniform_filter1d(img.astype(np.float64), 4, axis=0, origin=-1), img)
    # Integers: the input's dtype, truncated as SciPy's: exact.
    u8 = rng.integers(0, 256, size=(11, 15)).astype(np.uint8)
    same(kiln.uniform_filter(u8, size=3), ndi.uniform_filter(u8, size=3))
    same(kiln.uniform_filter1d(u8, size=5, mode="nearest"), ndi.uniform_filter1d(u8, size=5, mode="nearest"))


# --- transforms ----------------------------------------------------------

def test_shift(img, vol):
    # order 0: a copy of input elements, exact.
    same(kiln.shift(img, (2.3, -1.6), order=0), ndi.shift(img, (2.3, -1.6), order=0))
    close(kiln.shift(img, 1.5, order=1, mode="nearest"), ndi.shift(img.astype(np.float64), 1.5, order=1, mode="nearest"),
          img)
    close(kiln.shift(img, [0.4, -2.7], mode="mirror"), ndi.shift(img.astype(np.float64), [0.4, -2.7], mode="mirror"),
          img)
    close(kiln.shift(vol, (0.5, 1.25, -0.75), order=3, mode="grid-wrap"),
          ndi.shift(vol.astype(np.float64), (0.5, 1.25, -0.75), order=3, mode="grid-wrap"), vol)


def test_zoom(img, vol):
    same(kiln.zoom(img, 1.7, order=0), ndi.zoom(img, 1.7, order=0))
    close(kiln.zoom(img, (0.6, 1.3), order=1), ndi.zoom(img.astype(np.float64), (0.6, 1.3), order=1), img)
    close(kiln.zoom(img, 2, mode="nearest", grid_mode=True),
          ndi.zoom(img.astype(np.float64), 2, mode="nearest", grid_mode=True), img)
    close(kiln.zoom(vol, (1, 0.5, 1.5)), ndi.zoom(vol.astype(np.float64), (1, 0.5, 1.5)), vol)


def test_rotate(img, vol):
    same(kiln.rotate(img, 30, order=0), ndi.rotate(img, 30, order=0))
    close(kiln.rotate(img, -17.5, reshape=False, order=1),
          ndi.rotate(img.astype(np.float64), -17.5, reshape=False, order=1), img)
    close(kiln.rotate(img, 45, mode="reflect", cval=0), ndi.rotate(img.astype(np.float64), 45, mode="reflect"), img)
    close(kiln.rotate(vol, 20, axes=(0, 2), reshape=True),
          ndi.rotate(vol.astype(np.float64), 20, axes=(0, 2), reshape=True), vol)


def test_affine_transform(img, vol):
    m = np.array([[0.9, 0.2], [-0.1, 1.1]])
    close(kiln.affine_transform(img, m, offset=(1.0, -2.0), order=1),
          ndi.affine_transform(img.astype(np.float64), m, offset=(1.0, -2.0), order=1), img)
    # A diagonal as a 1-D matrix; a homogeneous (ndim + 1)^2 matrix; another output shape.
    close(kiln.affine_transform(img, [0.8, 1.2], output_shape=(9, 21)),
          ndi.affine_transform(img.astype(np.float64), [0.8, 1.2], output_shape=(9, 21)), img)
    h = np.array([[1.0, 0.1, 0.5], [0.0, 0.9, -1.0], [0, 0, 1]])
    same(kiln.affine_transform(img, h, order=0, mode="nearest"), ndi.affine_transform(img, h, order=0, mode="nearest"))
    m3 = np.eye(3) + 0.05 * np.arange(9).reshape(3, 3)
    close(kiln.affine_transform(vol, m3, offset=-1.0), ndi.affine_transform(vol.astype(np.float64), m3, offset=-1.0), vol)


def test_map_coordinates(img, rng):
    coords = np.stack([rng.uniform(-1, 14, size=(5, 7)), rng.uniform(-1, 18, size=(5, 7))])
    close(kiln.map_coordinates(img, coords), ndi.map_coordinates(img.astype(np.float64), coords), img)
    close(kiln.map_coordinates(img, coords, order=1, mode="wrap"),
          ndi.map_coordinates(img.astype(np.float64), coords, order=1, mode="wrap"), img)
    same(kiln.map_coordinates(img, coords, order=0, mode="nearest"),
         ndi.map_coordinates(img, coords, order=0, mode="nearest"))
    close(kiln.map_coordinates(img, coords.astype(np.float32), prefilter=False),
          ndi.map_coordinates(img.astype(np.float64), coords.astype(np.float32), prefilter=False), img)


def test_spline_filter(img, vol):
    close(kiln.spline_filter(img), ndi.spline_filter(img.astype(np.float64)), img)
    close(kiln.spline_filter(img, mode="wrap"), ndi.spline_filter(img.astype(np.float64), mode="wrap"), img)
    close(kiln.spline_filter(vol), ndi.spline_filter(vol.astype(np.float64)), vol)
    f64 = img.astype(np.float64)
    out = kiln.spline_filter(f64, mode="reflect")
    assert np_of(out).dtype == np.float64
    # float64 through: a recursive filter of float64 roundings.
    close(out, ndi.spline_filter(f64, mode="reflect"), img, rtol=1e-12)


# --- thresholds ----------------------------------------------------------

@pytest.fixture
def bimodal(rng):
    return np.concatenate([rng.normal(40, 8, 150), rng.normal(150, 20, 100)]).reshape(10, 25)


@pytest.mark.parametrize("op", ["threshold_otsu", "threshold_yen", "threshold_triangle"])
def test_histogram_thresholds(op, bimodal):
    f, ref = getattr(kiln, op), getattr(skimage.filters, op)
    f32 = bimodal.astype(np.float32)
    u8 = np.clip(bimodal, 0, 255).astype(np.uint8)
    # The same histogram and arithmetic as scikit-image 0.19 (Debian 12's,
    # which the fixtures of tests/data/make_threshold.py come from): equal
    # values. Later scikit-image computes a float32 image's bin centres in
    # float32 (the GPU machine's 0.2x gave 91.358765 for kiln's and 0.19's
    # 91.35877990722656, two float32 ulps apart): there, within a few float32
    # roundings of the centre.
    exact = skimage.__version__.startswith("0.19.")
    for got, want in ((f(f32), ref(f32)), (f(f32, nbins=64), ref(f32, nbins=64))):
        assert got == want if exact else got == pytest.approx(float(want), rel=1e-6)
    assert f(u8) == ref(u8)
    assert f(image=u8.reshape(5, 5, 10)) == ref(u8.reshape(5, 5, 10))


def test_threshold_li(bimodal):
    u8 = np.clip(bimodal, 0, 255).astype(np.uint8)
    # Integer images: tolerance 0.5 as scikit-image; equal up to float32 means.
    assert kiln.threshold_li(u8) == pytest.approx(skimage.filters.threshold_li(u8), rel=1e-6)
    assert kiln.threshold_li(u8, tolerance=2.0) == pytest.approx(skimage.filters.threshold_li(u8, tolerance=2.0),
                                                                 rel=1e-6)
    # Float images: kiln iterates to the fixed point where scikit-image stops
    # within half the smallest gap between values (kiln/threshold.hpp).
    f32 = bimodal.astype(np.float32)
    gap = np.diff(np.unique(f32)).min()
    assert abs(kiln.threshold_li(f32) - skimage.filters.threshold_li(f32)) <= gap / 2 + 1e-4


# --- label tools -----------------------------------------------------------

@pytest.fixture
def labels(rng):
    """A label image with gaps in its numbering, labels on the border and inside."""
    blobs = ndi.gaussian_filter(rng.standard_normal((21, 23)), 1.5) > 0.15
    lab, n = ndi.label(blobs)
    return (lab * 3).astype(np.int32), n


def test_relabel_sequential_sizes_find_objects(labels):
    lab, n = labels
    same(kiln.relabel_sequential(lab), skimage.segmentation.relabel_sequential(lab)[0].astype(np.int32))
    same(kiln.label_sizes(lab), np.bincount(lab.ravel())[1:].astype(np.int32))
    boxes = np_of(kiln.find_objects(lab))
    want = [[-1, -1, -1, -1] if s is None else [s[0].start, s[0].stop, s[1].start, s[1].stop]
            for s in ndi.find_objects(lab)]
    same(boxes, np.array(want, dtype=np.int32))


def renumber(lab, keep):
    """pyclesperanto's renumbering (kiln/label_tools.hpp): value v of 1..max
    gets the count of kept values in 1..v; removed ones become 0."""
    kept = np.zeros(lab.max() + 1, dtype=bool)
    kept[1:] = keep
    table = np.where(kept, np.cumsum(kept), 0).astype(np.int32)
    return table[lab]


def test_exclude_labels(labels):
    lab, _ = labels
    values = np.arange(1, lab.max() + 1)
    border = np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))
    same(kiln.exclude_labels_on_edges(lab), renumber(lab, ~np.isin(values, border)))
    sizes = np.bincount(lab.ravel(), minlength=lab.max() + 1)[1:]
    same(kiln.exclude_labels_outside_size_range(lab, minimum_size=5, maximum_size=40),
         renumber(lab, (sizes >= 5) & (sizes <= 40)))


def grow_step(lab, step, mask=None):
    """One of dilate_labels' steps: background takes the largest neighbour
    label, through the box (even steps) or the face neighbours (odd)."""
    fp = ndi.generate_binary_structure(lab.ndim, lab.ndim if step % 2 == 0 else 1)
    grown = ndi.maximum_filter(lab, footprint=fp, mode="constant", cval=0)
    free = lab == 0 if mask is None else (lab == 0) & mask
    return np.where(free, grown, lab)


def test_dilate_labels(labels, rng):
    lab, _ = labels
    lab = np.where(rng.random(lab.shape) < 0.03, lab, 0).astype(np.int32)  # sparse labels that grow
    want = lab
    for radius in range(4):
        same(kiln.dilate_labels(lab, radius=radius), want)
        want = grow_step(want, radius)
    same(kiln.dilate_labels(lab[None, :7, :9].repeat(5, axis=0), 3),
         grow_step(grow_step(grow_step(lab[None, :7, :9].repeat(5, axis=0), 0), 1), 2))


def test_voronoi_otsu_labeling(rng):
    """Against the pipeline kiln/label_tools.hpp describes, built from SciPy
    and scikit-image: strict box maxima (edges clamped) of the spot blur in
    the Otsu foreground of the outline blur, labelled with box
    connectivity and grown inside the foreground until nothing changes."""
    yy, xx = np.mgrid[:41, :43]
    image = np.zeros((41, 43))
    for cy, cx in rng.uniform(5, 36, size=(6, 2)):
        image += 100 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 18)
    image = (image + rng.uniform(0, 1, image.shape)).astype(np.float32)
    got = np_of(kiln.voronoi_otsu_labeling(image, spot_sigma=2, outline_sigma=1.5))
    spots = ndi.gaussian_filter(image, 2, mode="reflect", truncate=4)
    outline = ndi.gaussian_filter(image, 1.5, mode="reflect", truncate=4)
    fg = outline > skimage.filters.threshold_otsu(outline)
    ring = np.ones((3, 3), dtype=bool)
    ring[1, 1] = False
    maxima = (spots > ndi.maximum_filter(spots, footprint=ring, mode="nearest")) & fg
    lab = ndi.label(maxima, structure=np.ones((3, 3)))[0].astype(np.int32)
    step = 0
    while True:
        nxt = grow_step(lab, step, fg)
        step += 1
        if (nxt == lab).all() and step > 1:
            break
        lab = nxt
    same(got, lab)


# --- distance and watershed -----------------------------------------------

def test_distance_transform_edt(rng):
    mask = rng.random((13, 17)) < 0.9
    # Unit sampling: squared distances are whole numbers, so the float32
    # result is float32(sqrt(d2)) exactly (kiln/distance.hpp).
    same(kiln.distance_transform_edt(mask), ndi.distance_transform_edt(mask).astype(np.float32))
    got = kiln.distance_transform_edt(mask.astype(np.uint8), sampling=(0.5, 2.0), dtype=np.float64)
    np.testing.assert_allclose(np_of(got), ndi.distance_transform_edt(mask, sampling=(0.5, 2.0)), rtol=1e-12)
    vol = rng.random((7, 9, 11)) < 0.95
    same(kiln.distance_transform_edt(vol), ndi.distance_transform_edt(vol).astype(np.float32))
    # float32 passes with non-unit sampling: a few float32 roundings.
    np.testing.assert_allclose(np_of(kiln.distance_transform_edt(vol, sampling=[2.0, 1.0, 0.7])),
                               ndi.distance_transform_edt(vol, sampling=[2.0, 1.0, 0.7]), rtol=1e-6)


def test_watershed(rng):
    # Continuous random heights: no plateaus, so flooding order is unique.
    image = ndi.gaussian_filter(rng.random((21, 23)), 1.0).astype(np.float32)
    markers = np.zeros(image.shape, dtype=np.int32)
    for i, (y, x) in enumerate(rng.integers(0, [21, 23], size=(5, 2))):
        markers[y, x] = i + 1
    same(kiln.watershed(image, markers), skimage.segmentation.watershed(image, markers).astype(np.int32))
    same(kiln.watershed(image, markers, connectivity=2),
         skimage.segmentation.watershed(image, markers, connectivity=2).astype(np.int32))
    mask = image > np.percentile(image, 30)
    same(kiln.watershed(image, markers=markers, mask=mask),
         skimage.segmentation.watershed(image, markers=markers, mask=mask).astype(np.int32))
    vol = ndi.gaussian_filter(rng.random((7, 9, 11)), 1.0).astype(np.float32)
    vm = np.zeros(vol.shape, dtype=np.int32)
    vm[1, 2, 3], vm[5, 6, 8], vm[3, 0, 10] = 1, 2, 3
    same(kiln.watershed(vol, vm, connectivity=3), skimage.segmentation.watershed(vol, vm, connectivity=3).astype(np.int32))
