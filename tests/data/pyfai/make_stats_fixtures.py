#!/usr/bin/python3
"""Writes pyFAI's own error models and sigma clipping for kiln's tests
(tests/cpu/test_pyfai_stats.cpp) into tests/data/pyfai/stats/. Run with
Debian 12's python3-pyfai (0.21.3):
/usr/bin/python3 tests/data/pyfai/make_stats_fixtures.py

The geometry is make_fixtures.py's (37 x 41 rectangular pixels, the beam on
the detector); the frame is Poisson counts around a falling profile with a
dozen hot pixels, so that clipping has something to drop.

stats/cases.txt lists one case a line; stats/results.npy holds, per case in
that order, (intensity, sigma, sum_signal, sum_variance, sum_normalization,
count) per bin, float64 as pyFAI returns them. Engine "cython" is method
("no", "csr", "cython"); "numpy" is ("no", "csr", "python") with pyFAI's numpy
pre-processing.
"""
import logging
import os

import numpy
import pyFAI
from pyFAI.azimuthalIntegrator import AzimuthalIntegrator
from pyFAI.detectors import Detector
from pyFAI.engines import CSR_engine
from pyFAI.engines.preproc import preproc as preproc_np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stats")
SHAPE = (37, 41)
BINS = 30
UNIT = "q_nm^-1"  # scale 1: sigma_clip_ng and integrate1d_ng take the range alike


def integrator():
    det = Detector(pixel1=75e-6, pixel2=100e-6, max_shape=SHAPE)
    return AzimuthalIntegrator(dist=0.05, poni1=18.3 * 75e-6, poni2=20.6 * 100e-6, rot1=0.02,
                               rot2=-0.03, rot3=0.1, wavelength=1.0e-10, detector=det)


def save(name, array):
    numpy.save(os.path.join(HERE, name + ".npy"), numpy.ascontiguousarray(array))


def main():
    os.makedirs(HERE, exist_ok=True)
    logging.disable(logging.WARNING)  # sigma_clip_ng warns about every default it takes
    rng = numpy.random.default_rng(2022)
    q = integrator().array_from_unit(SHAPE, "center", UNIT)
    frame = rng.poisson(300.0 * numpy.exp(-q / 4.0) + 40.0).astype(numpy.int32)
    hot = rng.choice(frame.size, 12, replace=False)
    frame.flat[hot] *= 8
    dark = rng.integers(3, 12, SHAPE).astype(numpy.float32)
    flat = rng.uniform(0.6, 1.4, SHAPE).astype(numpy.float32)
    variance = (numpy.maximum(frame, 1) * rng.uniform(0.5, 2.0, SHAPE)).astype(numpy.float32)
    for name, a in [("frame", frame), ("dark", dark), ("flat", flat), ("variance", variance)]:
        save(name, a)
    # Edges beyond every pixel: pyFAI 0.21 counts pixels less than a bin
    # below the lower edge in bin 0 (test_pyfai_ref.cpp), so none may lie there.
    lo, hi = float(q.min()) * 0.999, float(q.max()) * 1.001

    corrections = {"none": {}, "dark": {"dark": dark},
                   "dark+sa+flat": {"dark": dark, "flat": flat}}

    def common(model, corr):
        kw = dict(unit=UNIT, radial_range=(lo, hi), correctSolidAngle="sa" in corr)
        kw.update(corrections[corr])
        if model == "variance":
            kw["variance"] = variance
        else:
            kw["error_model"] = model
        return kw

    lines = ["# index kind model corrections engine thres max_iter (kind: integrate1d_ng or "
             "sigma_clip_ng; corrections: dark, flat and solid angle (sa) applied)"]
    results = []

    def add(kind, model, corr, engine, thres, max_iter, res):
        lines.append("%d %s %s %s %s %r %d" % (len(results), kind, model, corr, engine, thres, max_iter))
        results.append(numpy.stack([res.intensity, res.sigma, res.sum_signal, res.sum_variance,
                                    res.sum_normalization, res.count]).astype(numpy.float64))

    for model in ["poisson", "azimuthal", "variance"]:
        for corr in corrections:
            res = integrator().integrate1d_ng(frame, BINS, method=("no", "csr", "cython"),
                                              **common(model, corr))
            add("integrate1d_ng", model, corr, "cython", 0, 0, res)
    # pyFAI's numpy pre-processing (pyFAI/engines/preproc.py) adds the dark
    # to the Poisson variance; the compiled one (pyFAI/ext/preproc.pyx) does
    # not. pyFAI's Python CSR engine takes the compiled one when it is built,
    # as here, so it is given the numpy one, its fallback, for this case.
    saved = CSR_engine.preproc
    CSR_engine.preproc = preproc_np
    try:
        res = integrator().integrate1d_ng(frame, BINS, method=("no", "csr", "python"),
                                          **common("poisson", "dark"))
    finally:
        CSR_engine.preproc = saved
    add("integrate1d_ng", "poisson", "dark", "numpy", 0, 0, res)
    for model in ["poisson", "azimuthal", "variance"]:
        for corr in ["none", "dark+sa+flat"]:
            # sigma_clip_ng's defaults (5, 5); Chauvenet's criterion alone
            # (thres 0); and a threshold below it in the crowded bins.
            for thres, max_iter in [(5.0, 5), (0.0, 5), (2.0, 3)]:
                res = integrator().sigma_clip_ng(frame, BINS, method=("no", "csr", "cython"),
                                                 thres=thres, max_iter=max_iter, **common(model, corr))
                add("sigma_clip_ng", model, corr, "cython", thres, max_iter, res)

    save("results", numpy.stack(results))
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(HERE, "setup.txt"), "w") as f:
        f.write("# bins lo hi (unit %s, range without splitting)\n%d %r %r\n" % (UNIT, BINS, lo, hi))


if __name__ == "__main__":
    print("pyFAI", pyFAI.version)
    main()
