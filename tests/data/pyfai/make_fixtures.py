#!/usr/bin/python3
"""Writes pyFAI's own results for kiln's geometry, unit, detector and .poni
tests (tests/cpu/test_pyfai_ref.cpp). Run with Debian 12's python3-pyfai
(0.21.3): /usr/bin/python3 tests/data/pyfai/make_fixtures.py
"""
import os

import numpy
import pyFAI
from pyFAI.azimuthalIntegrator import AzimuthalIntegrator
from pyFAI.detectors import Detector, detector_factory

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE = (37, 41)
UNITS = ["q_nm^-1", "q_A^-1", "2th_deg", "2th_rad", "r_mm", "d*2_A^-2", "chi_deg"]
FILES = {"q_nm^-1": "q_nm", "q_A^-1": "q_A", "2th_deg": "2th_deg", "2th_rad": "2th_rad",
         "r_mm": "r_mm", "d*2_A^-2": "dstar2_A", "chi_deg": "chi_deg"}


def save(name, array):
    numpy.save(os.path.join(HERE, name + ".npy"), numpy.ascontiguousarray(array))


def integrator():
    # Rectangular pixels, all three rotations; the tilts put the direct beam
    # just outside the detector (pyFAI's centre is 1.7 pixels above row 0),
    # make_split_fixtures.py's smaller ones put it on the detector.
    det = Detector(pixel1=75e-6, pixel2=100e-6, max_shape=SHAPE)
    return AzimuthalIntegrator(dist=0.05, poni1=18.3 * 75e-6, poni2=20.6 * 100e-6, rot1=0.02,
                               rot2=-0.03, rot3=0.1, wavelength=1.0e-10, detector=det)


def centres(ai):
    save("centre_2th_rad", ai.twoThetaArray(SHAPE))
    save("centre_chi_deg", numpy.degrees(ai.chiArray(SHAPE)))
    for unit in ["q_nm^-1", "q_A^-1", "2th_deg", "r_mm", "d*2_A^-2"]:
        save("centre_" + FILES[unit], ai.array_from_unit(SHAPE, "center", unit))


def integrations(ai):
    rng = numpy.random.default_rng(17)
    data = rng.uniform(10.0, 1000.0, SHAPE)
    save("frame", data)
    # chi_deg is no radial unit of integrate1d in pyFAI 0.21.
    for unit in UNITS[:-1]:
        pos = ai.array_from_unit(SHAPE, "center", unit)
        # A range inside the pixels' extent, given explicitly: pyFAI widens
        # its automatic range by a float32 ulp, kiln does not.
        lo, hi = pos.min(), pos.max()
        rng_ = (lo + 0.05 * (hi - lo), hi - 0.05 * (hi - lo))
        res = ai.integrate1d(data, 29, unit=unit, radial_range=rng_, method=("no", "csr", "cython"),
                             correctSolidAngle=False)
        save("int1d_" + FILES[unit], numpy.stack([res.radial, res.intensity, res.count,
                                                  numpy.full(29, rng_[0]), numpy.full(29, rng_[1])]))


def runs(indices):
    """Consecutive indices as start:stop ranges, comma separated."""
    out, start = [], None
    for k, i in enumerate(indices):
        if start is None:
            start = i
        if k + 1 == len(indices) or indices[k + 1] != i + 1:
            out.append("%d:%d" % (start, i + 1))
            start = None
    return ",".join(out) or "-"


def detectors():
    names = ["Eiger1M", "Eiger4M", "Eiger9M", "Eiger16M", "Eiger2_1M", "Eiger2_4M", "Eiger2_9M",
             "Eiger2_16M", "Eiger2CdTe_4M", "Pilatus1M", "Pilatus2M", "Pilatus6M", "PilatusCdTe1M"]
    lines = []
    for name in names:
        d = detector_factory(name)
        m = d.mask.astype(bool)
        # The gaps are whole rows and columns: their indices describe the
        # mask completely, which the assertion checks.
        rows = numpy.flatnonzero(m.all(axis=1))
        cols = numpy.flatnonzero(m.all(axis=0))
        union = numpy.zeros_like(m)
        union[rows, :] = True
        union[:, cols] = True
        assert (union == m).all()
        lines.append("%s %d %d %r %r %d %s %s" % (name, d.shape[0], d.shape[1], d.pixel1, d.pixel2,
                                                  m.sum(), runs(rows), runs(cols)))
    with open(os.path.join(HERE, "detectors.txt"), "w") as f:
        f.write("# name rows cols pixel1 pixel2 masked gap_rows gap_cols (start:stop,... or -)\n")
        f.write("\n".join(lines) + "\n")


def ponis(ai):
    ai.save(os.path.join(HERE, "generic_v2.poni"))  # pyFAI writes version 2
    e = AzimuthalIntegrator(dist=0.1234, poni1=0.08, poni2=0.07, rot1=0.01, rot2=0.02, rot3=-0.03,
                            wavelength=0.7e-10, detector=detector_factory("Eiger4M"))
    e.save(os.path.join(HERE, "eiger4m_v2.poni"))
    with open(os.path.join(HERE, "pilatus1m_v1.poni"), "w") as f:
        f.write("# Nota: C-Order, 1 refers to the Y axis, 2 to the X axis\n"
                "PixelSize1: 0.000172\nPixelSize2: 0.000172\nDetector: Pilatus 1M\n"
                "Distance: 0.3\nPoni1: 0.09\nPoni2: 0.085\nRot1: 0.001\nRot2: -0.002\nRot3: 0\n"
                "SplineFile: None\nWavelength: 1.0332e-10\n")
    with open(os.path.join(HERE, "rect_v1.poni"), "w") as f:
        f.write("PixelSize1: 7.5e-05\nPixelSize2: 0.0001\nDistance: 0.05\nPoni1: 0.0013725\n"
                "Poni2: 0.00206\nRot1: 0.02\nRot2: -0.03\nRot3: 0.1\nWavelength: 1e-10\n")
    lines = ["# file detector rows cols pixel1 pixel2 dist poni1 poni2 rot1 rot2 rot3 wavelength"]
    for name in ["generic_v2", "eiger4m_v2", "pilatus1m_v1", "rect_v1"]:
        a = pyFAI.load(os.path.join(HERE, name + ".poni"))
        d = a.detector
        shape = d.shape or (0, 0)
        lines.append("%s %s %d %d %s" % (name, d.__class__.__name__, shape[0], shape[1], " ".join(
            repr(float(v)) for v in (d.pixel1, d.pixel2, a.dist, a.poni1, a.poni2, a.rot1, a.rot2,
                                     a.rot3, a.wavelength))))
    with open(os.path.join(HERE, "poni.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    print("pyFAI", pyFAI.version)
    ai = integrator()
    centres(ai)
    integrations(ai)
    detectors()
    ponis(ai)
