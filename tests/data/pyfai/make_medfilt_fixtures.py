#!/usr/bin/python3
"""Fixtures of kiln's quantile filter per ring (medfilt1d) and of separate()
(tests/cpu/test_medfilt.cpp), written into tests/data/pyfai/medfilt/.
Run with Debian 12's python3-pyfai (0.21.3):
    /usr/bin/python3 tests/data/pyfai/make_medfilt_fixtures.py

(a) calcfrom1d_*: pyFAI 0.21's Geometry.calcfrom1d of a given curve on a
    small detector, with the positions, solid angle and polarization it used:
    the expansion of a profile back to an image, exactly.
(b) medfilt_*: pyFAI 0.21 has no medfilt1d_ng (it came with pyFAI 2023/2024),
    so its rule is implemented here, independently of kiln, in NumPy, from
    pyFAI's published algorithm (CsrIntegrator.medfilt in
    pyFAI/ext/CSR_common.pxi, the engine of medfilt1d_ng's default method
    ("full", "csr", "cython")): per bin, the valid entries (weight c * norm
    != 0) are sorted by their float32 value signal / norm, the cumulative sum
    of c * norm in that order gives each entry an interval [lower, upper] of
    the bin's total W, and an entry is kept when that interval lies inside
    [q_lo W, q_hi W] or contains it. The kept entries' sums give the result;
    count is the number of kept entries. pyFAI's std::sort leaves the order of
    equal values unspecified; here (and in kiln) they keep their order in the
    row (a stable sort). The sums run in float64 here (pyFAI keeps its
    cumulative sums in float32). The matrices are pyFAI 0.21's own (setup_CSR),
    without and with pixel splitting, and the corrections are pyFAI's solid
    angle and polarization arrays, saved for kiln to use as they are.
(c) separate_*: pyFAI 0.21's AzimuthalIntegrator.separate on a small frame
    with a mask. Its background curve comes from the legacy medfilt1d (a 2-D
    integration, then a percentile along the azimuth), which is not
    medfilt1d_ng's rule, so kiln is compared with it where the semantics
    agree: given pyFAI's curve, the expansion (solid angle multiplied back),
    bragg = frame - amorphous and the restored masked pixels.
"""
import os

import numpy
from pyFAI.azimuthalIntegrator import AzimuthalIntegrator
from pyFAI.detectors import Detector
import pyFAI.units

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "medfilt")
SHAPE = (24, 28)


def save(name, array):
    numpy.save(os.path.join(HERE, name + ".npy"), numpy.ascontiguousarray(array))


def integrator():
    # Square 1 mm pixels, tilted, the beam on the detector: rings of many
    # lengths, short ones near the beam.
    det = Detector(pixel1=1e-3, pixel2=1e-3, max_shape=SHAPE)
    return AzimuthalIntegrator(dist=0.1, poni1=9.3e-3, poni2=11.6e-3, rot1=0.05, rot2=-0.04, rot3=0.0,
                               wavelength=1.0e-10, detector=det)


def calcfrom1d(ai):
    unit = pyFAI.units.to_unit("q_nm^-1")
    pos = ai.array_from_unit(SHAPE, "center", unit)
    # A curve whose points do not cover every pixel: both clamped ends are used.
    xp = numpy.linspace(pos.min() + 0.1 * numpy.ptp(pos), pos.max() - 0.1 * numpy.ptp(pos), 13)
    fp = 100.0 + 40.0 * numpy.sin(xp) + xp ** 2
    img = ai.calcfrom1d(xp, fp, shape=SHAPE, dim1_unit=unit, correctSolidAngle=True, polarization_factor=0.9)
    save("calcfrom1d_curve", numpy.stack([xp, fp]))
    save("calcfrom1d_pos", ai.qArray(SHAPE))
    save("calcfrom1d_solid", ai.solidAngleArray(SHAPE))
    save("calcfrom1d_polar", ai.polarization(SHAPE, 0.9))
    save("calcfrom1d_image", img)


def medfilt_rule(csr, signal, norm, valid, q_lo, q_hi):
    """The rule above, per bin: (sum signal, sum norm, sum norm^2, count)
    over the kept entries, with norm as float32 and the value a float32."""
    data, indices, indptr = csr
    out = numpy.zeros((len(indptr) - 1, 4))
    for b in range(len(indptr) - 1):
        e = numpy.arange(indptr[b], indptr[b + 1])
        px = indices[e]
        c = data[e].astype(numpy.float64)
        n32 = norm[px].astype(numpy.float32)
        w = c * n32.astype(numpy.float64)
        ok = valid[px] & (w > 0)
        e, px, c, n32, w = e[ok], px[ok], c[ok], n32[ok], w[ok]
        value = (signal[px] / n32.astype(numpy.float64)).astype(numpy.float32)
        order = numpy.argsort(value, kind="stable")  # ties in row order
        c, px, w = c[order], px[order], w[order]
        upper = numpy.cumsum(w)
        lower = upper - w
        total = upper[-1] if len(upper) else 0.0
        qmin, qmax = q_lo * total, q_hi * total
        keep = ((qmin <= lower) & (upper <= qmax)) | ((qmin >= lower) & (upper >= qmax))
        out[b] = [(c * signal[px])[keep].sum(), (c * norm[px])[keep].sum(), ((c * norm[px]) ** 2)[keep].sum(),
                  keep.sum()]
    return out


def medfilt(ai):
    rng = numpy.random.default_rng(5)
    # Integer counts (many equal values), hot pixels, a masked block.
    frame = rng.poisson(50.0, SHAPE).astype(numpy.float64)
    hot = rng.choice(frame.size, 25, replace=False)
    frame.flat[hot] = rng.uniform(5e3, 6e4, hot.size).round()
    mask = numpy.zeros(SHAPE, dtype=numpy.uint8)
    mask[3:6, 14:20] = 1
    mask.flat[rng.choice(frame.size, 10, replace=False)] = 1
    save("medfilt_frame", frame)
    save("medfilt_mask", mask)
    solid = ai.solidAngleArray(SHAPE).astype(numpy.float32)
    polar = ai.polarization(SHAPE, 0.95).astype(numpy.float32)
    save("medfilt_solid", solid)
    save("medfilt_polar", polar)
    valid = mask.ravel() == 0
    signal = frame.ravel()
    for split in ["no", "full"]:
        # Rows include the masked pixels (no mask given): the filter leaves them out.
        integ = ai.setup_CSR(SHAPE, 17, unit="q_nm^-1", split=split, scale=False)
        data, indices, indptr = integ.lut
        save("medfilt_csr_%s_data" % split, data.astype(numpy.float32))
        save("medfilt_csr_%s_indices" % split, indices.astype(numpy.int32))
        save("medfilt_csr_%s_indptr" % split, indptr.astype(numpy.int32))
        save("medfilt_csr_%s_centers" % split, numpy.asarray(integ.bin_centers, dtype=numpy.float64))
        csr = (data, indices, indptr)
        for name, norm in [("plain", numpy.ones(frame.size)),
                           ("corrected", solid.ravel().astype(numpy.float64) * polar.ravel())]:
            for q_lo, q_hi in [(0.5, 0.5), (0.1, 0.9), (0.25, 0.75), (0.0, 1.0)]:
                res = medfilt_rule(csr, signal, norm, valid, q_lo, q_hi)
                save("medfilt_%s_%s_%02d_%02d" % (split, name, round(100 * q_lo), round(100 * q_hi)), res)


def separate(ai):
    rng = numpy.random.default_rng(9)
    frame = rng.poisson(200.0, SHAPE).astype(numpy.float64)
    frame.flat[rng.choice(frame.size, 12, replace=False)] = 3e4  # Bragg peaks
    mask = numpy.zeros(SHAPE, dtype=numpy.uint8)
    mask[10:13, 2:9] = 1
    res = ai.separate(frame, npt_rad=15, npt_azim=32, unit="2th_deg", percentile=50, mask=mask,
                      restore_mask=True)
    unit = pyFAI.units.to_unit("2th_deg")
    save("separate_frame", frame)
    save("separate_mask", mask)
    # What calcfrom1d interpolated: positions (2theta in radians) and curve.
    save("separate_pos", ai.twoThetaArray(SHAPE))
    save("separate_curve", numpy.stack([res.radial / unit.scale, res.intensity]))
    save("separate_solid", ai.solidAngleArray(SHAPE))
    save("separate_bragg", res.bragg)
    save("separate_amorphous", res.amorphous)


def main():
    os.makedirs(HERE, exist_ok=True)
    ai = integrator()
    calcfrom1d(ai)
    medfilt(ai)
    separate(ai)


if __name__ == "__main__":
    main()
