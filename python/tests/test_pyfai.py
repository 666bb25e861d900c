"""kiln.Integrator / kiln.load (pyFAI's way of integrating) against pyFAI
0.21.3's own results: the fixtures tests/data/pyfai/make_fixtures.py wrote."""
import os

import numpy as np
import pytest

import kiln

HERE = os.path.dirname(os.path.abspath(__file__))
# The repository's tests/data, or the GPU bundle's data/ beside python/.
DATA = next(p for p in (os.path.join(HERE, "..", "..", "tests", "data", "pyfai"),
                        os.path.join(HERE, "..", "..", "data", "pyfai")) if os.path.isdir(p))
UNITS = {"q_nm^-1": "q_nm", "q_A^-1": "q_A", "2th_deg": "2th_deg", "2th_rad": "2th_rad", "r_mm": "r_mm",
         "d*2_A^-2": "dstar2_A"}


def fixture(name):
    return np.load(os.path.join(DATA, name + ".npy"))


def fixture_integrator():
    # make_fixtures.py's integrator(): rectangular pixels, three rotations.
    return kiln.Integrator(dist=0.05, poni1=18.3 * 75e-6, poni2=20.6 * 100e-6, rot1=0.02, rot2=-0.03, rot3=0.1,
                           wavelength=1.0e-10, pixel1=75e-6, pixel2=100e-6, shape=(37, 41))


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_integrate1d_matches_pyfai(unit):
    ref = fixture("int1d_" + UNITS[unit])  # radial, intensity, count, lo, hi
    frame = fixture("frame")
    ai = fixture_integrator()
    res = ai.integrate1d(frame, ref.shape[1], unit=unit, radial_range=(ref[3, 0], ref[4, 0]),
                         method=("no", "csr", "cython"), correctSolidAngle=False)
    assert res.sigma is None and res.unit == unit
    # Bin 0 differs by design (pyFAI 0.21 also counts pixels less than a bin
    # below the range; tests/cpu/test_pyfai_ref.cpp); from bin 1 the same
    # pixels, so counts are exact; pyFAI's float32 positions and sums: 1e-6.
    np.testing.assert_array_equal(res.count[1:], ref[2, 1:])
    np.testing.assert_allclose(res.radial[1:], ref[0, 1:], rtol=1e-6)
    filled = ref[2, 1:] > 0
    np.testing.assert_allclose(res.intensity[1:][filled], ref[1, 1:][filled], rtol=1e-6)


def test_stack_and_cache():
    frame = fixture("frame").astype(np.float32)
    ai = fixture_integrator()
    one = ai.integrate1d(frame, 20, unit="2th_deg", error_model="poisson")
    again = ai.integrate1d(frame, 20, unit="2th_deg", error_model="poisson")
    assert len(ai._cache) == 1  # the same parameters: one integrator
    stack = ai.integrate1d(np.stack([frame, 2 * frame]), 20, unit="2th_deg", error_model="poisson")
    assert stack.intensity.shape == (2, 20)
    np.testing.assert_array_equal(one.intensity, again.intensity)
    np.testing.assert_allclose(stack.intensity[0], one.intensity, rtol=1e-6)
    np.testing.assert_allclose(stack.intensity[1], 2 * one.intensity, rtol=1e-6)
    radial, intensity, sigma = one
    assert sigma.shape == (20,)


def test_load_poni_and_detector_mask():
    ai = kiln.load(os.path.join(DATA, "eiger4m_v2.poni"))
    assert ai.detector == "Eiger4M" and ai.shape == (2167, 2070)
    assert ai.dist == pytest.approx(0.1234) and ai.wavelength == pytest.approx(0.7e-10)
    det = kiln.detector("Eiger 4M")
    assert det["mask"].shape == det["shape"] and det["mask"].sum() > 0
    assert "Pilatus1M" in kiln.detector_names()


def test_detector_mask_with_a_mask_of_ones_own():
    # A detector with a gap mask (as kiln.detector gives one): the caller's
    # mask is OR-ed in, and the same mask object reuses the integrator.
    frame = fixture("frame")
    gaps = np.zeros(frame.shape, np.uint8)
    gaps[:, 20] = 1
    ai = kiln.Integrator(dist=0.05, poni1=18.3 * 75e-6, poni2=20.6 * 100e-6, wavelength=1.0e-10,
                         detector=dict(name="Gapped", pixel1=75e-6, pixel2=100e-6, shape=frame.shape, mask=gaps))
    mine = np.zeros(frame.shape, np.uint8)
    mine[0, :] = 1
    kw = dict(unit="r_mm", method="csr_nosplit", correctSolidAngle=False)
    first = ai.integrate1d(frame, 10, mask=mine, **kw)
    again = ai.integrate1d(frame, 10, mask=mine, **kw)
    assert len(ai._cache) == 1
    np.testing.assert_array_equal(first.count, again.count)
    assert first.count.sum() == frame.size - np.count_nonzero(gaps | mine)


def test_gap_mask_is_applied():
    # A small generic detector with a mask: masked pixels leave the sums.
    frame = fixture("frame")
    ai = fixture_integrator()
    mask = np.zeros(frame.shape, np.uint8)
    mask[:, :20] = 1
    full = ai.integrate1d(frame, 10, unit="r_mm", method="csr_nosplit", correctSolidAngle=False)
    half = ai.integrate1d(frame, 10, unit="r_mm", method="csr_nosplit", correctSolidAngle=False,
                          mask=mask, radial_range=(full.radial[0] - 0.5 * (full.radial[1] - full.radial[0]),
                                                   full.radial[-1] + 0.5 * (full.radial[1] - full.radial[0])))
    assert half.count.sum() == frame.size - mask.sum()
    assert full.count.sum() == frame.size


def test_bad_arguments():
    ai = fixture_integrator()
    frame = fixture("frame")
    with pytest.raises(kiln.InvalidArgument, match="CSR"):
        ai.integrate1d(frame, 10, method=("bbox", "histogram", "cython"))
    with pytest.raises(kiln.InvalidArgument, match="do not match"):
        ai.integrate1d(np.ones((5, 5)), 10)
    with pytest.raises(kiln.InvalidArgument, match="unit"):
        ai.integrate1d(frame, 10, unit="q_pm^-1")


def stats_cases():
    """tests/data/pyfai/make_stats_fixtures.py's cases: (index, kind, model,
    corrections, engine, thres, max_iter)."""
    with open(os.path.join(DATA, "stats", "cases.txt")) as f:
        rows = [line.split() for line in f if not line.startswith("#")]
    return [(int(i), kind, model, corr, engine, float(thres), int(it)) for i, kind, model, corr, engine, thres, it
            in rows]


@pytest.mark.parametrize("case", stats_cases(), ids=lambda c: "%d-%s-%s-%s" % c[:4])
def test_error_models_and_sigma_clip_match_pyfai(case):
    index, kind, model, corr, engine, thres, max_iter = case
    d = os.path.join(DATA, "stats")
    frame = np.load(os.path.join(d, "frame.npy"))
    ref = np.load(os.path.join(d, "results.npy"))[index]  # intensity, sigma, sum_signal, sum_variance, norm, count
    with open(os.path.join(d, "setup.txt")) as f:
        bins, lo, hi = [float(v) for v in f.read().split("\n")[1].split()]
    kw = dict(unit="q_nm^-1", radial_range=(lo, hi), correctSolidAngle="sa" in corr,
              method=("no", "csr", "cython"))
    if "dark" in corr:
        kw["dark"] = np.load(os.path.join(d, "dark.npy"))
    if "flat" in corr:
        kw["flat"] = np.load(os.path.join(d, "flat.npy"))
    if model == "variance":
        kw["variance"] = np.load(os.path.join(d, "variance.npy"))
    else:
        kw["error_model"] = model
    # pyFAI's compiled pre-processing leaves the dark out of the Poisson
    # variance, its numpy one ("numpy" case) adds it.
    kw["dark_variance"] = engine == "numpy"
    ai = fixture_integrator()
    if kind == "integrate1d_ng":
        res = ai.integrate1d(frame, int(bins), **kw)
    else:
        res = ai.sigma_clip(frame, int(bins), thres=thres, max_iter=max_iter, **kw)
    # pyFAI keeps per-pixel terms and results in float32, kiln's GPU
    # pre-processes in float32 and sums in float64 where the device can:
    # measured up to 1.1e-7 relative on lavapipe (2026-11-26).
    for name, k in (("intensity", 0), ("sigma", 1), ("sum_signal", 2), ("sum_variance", 3),
                    ("sum_normalization", 4)):
        np.testing.assert_allclose(getattr(res, name), ref[k], rtol=1e-6, err_msg=name)
    # sigma_clip_ng reports max(count, 3) for a bin whose last pass dropped
    # nothing (a pyFAI quirk, tests/cpu/test_pyfai_stats.cpp); kiln the count.
    quirk = (ref[5] == 3) & (res.count < 3) if kind == "sigma_clip_ng" else np.zeros(len(ref[5]), bool)
    np.testing.assert_array_equal(res.count[~quirk], ref[5][~quirk])


def test_medfilt1d_is_the_median_per_ring():
    frame = fixture("frame")
    pos = fixture("centre_2th_deg").ravel()  # pyFAI's pixel centres of this geometry
    bins, lo, hi = 12, float(pos.min()) - 1e-3, float(pos.max()) + 1e-3
    which = np.floor((pos - lo) / ((hi - lo) / bins)).astype(int)
    ai = fixture_integrator()
    kw = dict(unit="2th_deg", radial_range=(lo, hi), method="csr_nosplit", correctSolidAngle=False)
    med = ai.medfilt1d(frame, bins, percentile=50, **kw)
    whole = ai.medfilt1d(frame, bins, percentile=(0, 100), **kw)
    mean = ai.integrate1d(frame, bins, **kw)
    for k in range(bins):
        values = frame.ravel()[which == k]
        assert mean.count[k] == values.size
        # The median: the middle value, or the mean of the two middle ones.
        np.testing.assert_allclose(med.intensity[k], np.median(values), rtol=1e-6)
        assert med.count[k] == (1 if values.size % 2 else 2)
    # Percentiles 0 to 100 keep every pixel: the plain mean.
    np.testing.assert_allclose(whole.intensity, mean.intensity, rtol=1e-6)
    np.testing.assert_array_equal(whole.count, mean.count)


def test_separate_splits_frame_into_bragg_and_amorphous():
    frame = fixture("frame").astype(np.float32)
    mask = np.zeros(frame.shape, np.uint8)
    mask[3:6, 7:11] = 1
    ai = fixture_integrator()
    bragg, amorphous = ai.separate(frame, 16, unit="2th_deg", method="csr_nosplit", mask=mask,
                                   correctSolidAngle=False)
    # bragg is frame - amorphous rounded once to float32: within half its ulp.
    free = mask == 0
    err = np.abs(bragg.astype(np.float64)[free] + amorphous[free] - frame[free])
    assert np.all(err <= 0.5 * np.spacing(np.abs(bragg[free])))
    np.testing.assert_array_equal(amorphous[mask != 0], frame[mask != 0])  # restore_mask
    np.testing.assert_array_equal(bragg[mask != 0], frame[mask != 0])
    # The amorphous part: the median profile interpolated at each pixel
    # (numpy.interp over the bin centres); pyFAI's float32 centres: 1e-5.
    prof = ai.medfilt1d(frame, 16, unit="2th_deg", method="csr_nosplit", mask=mask, correctSolidAngle=False)
    expect = np.interp(fixture("centre_2th_deg"), prof.radial, prof.intensity)
    np.testing.assert_allclose(amorphous[mask == 0], expect[mask == 0], rtol=1e-5)


def split_case(name):
    with open(os.path.join(DATA, "split", "cases.txt")) as f:
        for line in f:
            v = line.split()
            if v[0] == name:
                return v


def split_integrator():
    # make_split_fixtures.py's integrator(): the beam on the detector.
    return kiln.Integrator(dist=0.05, poni1=18.3 * 75e-6, poni2=20.6 * 100e-6, rot1=0.004, rot2=-0.006, rot3=0.1,
                           wavelength=1.0e-10, pixel1=75e-6, pixel2=100e-6, shape=(37, 41))


def test_integrate2d_matches_pyfai():
    # Without splitting, over the pixels' own extent (make_split_fixtures.py).
    _, _, split, unit, bins, azim = split_case("2d_no_2th_auto")[:6]
    ref = np.load(os.path.join(DATA, "split", "2d_no_2th_auto.npy"))  # sum_signal, count, intensity
    axes = np.load(os.path.join(DATA, "split", "2d_no_2th_auto_axes.npy"))
    frame = np.load(os.path.join(DATA, "split", "frame.npy"))
    res = split_integrator().integrate2d(frame, int(bins), int(azim), unit=unit, method=split,
                                         correctSolidAngle=False)
    assert res.intensity.shape == (int(azim), int(bins))
    # The same pixels in every bin; pyFAI's float32 positions and sums: 1e-6.
    np.testing.assert_array_equal(res.count, ref[1])
    np.testing.assert_allclose(res.sum_signal, ref[0], rtol=1e-6)
    # pyFAI widens its automatic upper edge by a float32 ulp: centres within
    # 1e-6 of the axis extent (test_pyfai_split.cpp).
    extent = np.ptp(axes[:int(bins)])
    np.testing.assert_allclose(res.radial, axes[:int(bins)], rtol=0, atol=1e-6 * extent)
    np.testing.assert_allclose(res.azimuthal, axes[int(bins):], atol=1e-4)


def test_integrate_radial_matches_pyfai():
    _, _, split, unit, bins, azim = split_case("radial_no_q")[:6]
    ref = np.load(os.path.join(DATA, "split", "radial_no_q.npy"))  # chi centres, sum_signal, count, intensity
    frame = np.load(os.path.join(DATA, "split", "frame.npy"))
    res = split_integrator().integrate_radial(frame, int(azim), npt_rad=int(bins), radial_unit=unit,
                                              method=split, correctSolidAngle=False)
    np.testing.assert_array_equal(res.count, ref[2])
    np.testing.assert_allclose(res.intensity, ref[3], rtol=1e-6)
    np.testing.assert_allclose(res.radial, ref[0], atol=1e-4)
