#!/usr/bin/python3
"""Writes pyFAI's own results of pixel splitting (no, bbox, full), 2-D cakes,
azimuth ranges and integrate_radial through its CSR engines, for kiln's tests
(tests/cpu/test_pyfai_split.cpp). Run with Debian 12's python3-pyfai (0.21.3):
/usr/bin/python3 tests/data/pyfai/make_split_fixtures.py

Every integration uses correctSolidAngle=False and no error model, so that
sum_signal and count (= sum_normalization) are the frame and a frame of ones
through pyFAI's matrix: they test the matrix alone.

split/cases.txt lists one case a line:
  name kind split unit bins azimuth_bins radial_lo radial_hi azimuth_lo azimuth_hi
kind: 1d (integrate1d_ng), 2d (integrate2d_ng) or radial (integrate_radial,
its bins being npt_rad); a range not given is "-". Files:
  1d, radial: name.npy, float64 (4, bins): centres, sum_signal, count, intensity
  2d: name.npy, float32 (3, azimuth_bins, bins): sum_signal, count, intensity;
      name_axes.npy, float64: radial centres then azimuthal centres (degrees)
"""
import logging
import os

import numpy
import pyFAI
from pyFAI.azimuthalIntegrator import AzimuthalIntegrator
from pyFAI.detectors import Detector

logging.disable(logging.WARNING)  # pyFAI warns that integrate1d_ng is deprecated
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "split")
SHAPE = (37, 41)
SPLITS = ["no", "bbox", "full"]
RANGES = {"2th_deg": (0.6, 2.6), "q_nm^-1": (0.8, 3.0), "r_mm": (0.4, 2.2)}
FILES = {"2th_deg": "2th", "q_nm^-1": "q", "r_mm": "r"}
SECTOR = (-100.0, 40.0)
NPT, NPT_RAD, NPT_AZIM = 29, 24, 18


def integrator():
    # make_fixtures.py's rectangular pixels, with smaller tilts so that the
    # direct beam hits the detector (pixel (14, 18)): chi covers the whole
    # turn, and pixels cross the +-180 degree cut.
    det = Detector(pixel1=75e-6, pixel2=100e-6, max_shape=SHAPE)
    return AzimuthalIntegrator(dist=0.05, poni1=18.3 * 75e-6, poni2=20.6 * 100e-6, rot1=0.004,
                               rot2=-0.006, rot3=0.1, wavelength=1.0e-10, detector=det)


def fmt(r):
    return "- -" if r is None else "%r %r" % (float(r[0]), float(r[1]))


def main():
    os.makedirs(HERE, exist_ok=True)
    frame = numpy.random.default_rng(23).uniform(10.0, 1000.0, SHAPE).astype(numpy.float32)
    numpy.save(os.path.join(HERE, "frame.npy"), frame)
    lines = ["# name kind split unit bins azimuth_bins radial_lo radial_hi azimuth_lo azimuth_hi"]
    for split in SPLITS:
        method = (split, "csr", "cython")
        for unit in RANGES:
            for rr, ar, tag in [(None, None, "auto"), (RANGES[unit], None, "range"), (RANGES[unit], SECTOR, "sector")]:
                name = "1d_%s_%s_%s" % (split, FILES[unit], tag)
                r = integrator().integrate1d_ng(frame, NPT, unit=unit, method=method, correctSolidAngle=False,
                                                radial_range=rr, azimuth_range=ar)
                numpy.save(os.path.join(HERE, name + ".npy"),
                           numpy.stack([r.radial, r.sum_signal, r.count, r.intensity]).astype(numpy.float64))
                lines.append("%s 1d %s %s %d 0 %s %s" % (name, split, unit, NPT, fmt(rr), fmt(ar)))
        for unit, rr, ar, tag in [("2th_deg", None, None, "auto"), ("q_nm^-1", RANGES["q_nm^-1"], SECTOR, "ranges"),
                                  ("r_mm", None, SECTOR, "sector")]:
            name = "2d_%s_%s_%s" % (split, FILES[unit], tag)
            r = integrator().integrate2d_ng(frame, NPT_RAD, NPT_AZIM, unit=unit, method=method,
                                            correctSolidAngle=False, radial_range=rr, azimuth_range=ar)
            numpy.save(os.path.join(HERE, name + ".npy"),
                       numpy.stack([r.sum_signal, r.count, r.intensity]).astype(numpy.float32))
            numpy.save(os.path.join(HERE, name + "_axes.npy"),
                       numpy.concatenate([r.radial, r.azimuthal]).astype(numpy.float64))
            lines.append("%s 2d %s %s %d %d %s %s" % (name, split, unit, NPT_RAD, NPT_AZIM, fmt(rr), fmt(ar)))
        name = "radial_%s_q" % split
        # A radial range only where pyFAI's engine bins by floor (full): with
        # no and bbox it truncates toward zero, which puts pixels below the
        # range's lower edge into radial bin 0 of every azimuth row.
        rr = RANGES["q_nm^-1"] if split == "full" else None
        r = integrator().integrate_radial(frame, NPT_AZIM, npt_rad=NPT_RAD, correctSolidAngle=False,
                                          radial_range=rr, method=method, radial_unit="q_nm^-1")
        numpy.save(os.path.join(HERE, name + ".npy"),
                   numpy.stack([r.radial, r.sum_signal, r.count, r.intensity]).astype(numpy.float64))
        lines.append("%s radial %s q_nm^-1 %d %d %s -" % (name, split, NPT_RAD, NPT_AZIM, fmt(rr)))
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    print("pyFAI", pyFAI.version)
    main()
