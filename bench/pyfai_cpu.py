#!/usr/bin/env python3
"""pyFAI 0.21's CPU figures beside kiln's rows (issue 17): its CSR engine
(method ("no"|"bbox", "csr", "cython"), OpenMP on every core) integrating one
Eiger 4M frame in 1-D (1000 bins) and as a 500 x 360 cake, and the time to
build each matrix. Medians of --repeat runs, wall clock (pyFAI has no GPU
path on an NVIDIA machine without OpenCL).

  python3 bench/pyfai_cpu.py [--repeat 20] [--out results.json]

Runs with Debian 12's python3-pyfai here, or on a GPU machine through the
bundle scripts/pyfai-bundle makes (Python 3.11 and pyFAI with their
libraries).
"""
import argparse
import json
import os
import statistics
import time

import numpy
import pyFAI
from pyFAI.azimuthalIntegrator import AzimuthalIntegrator
from pyFAI.detectors import detector_factory


def median_seconds(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=20, help="runs per row (median)")
    p.add_argument("--out", help="also write the rows as JSON here")
    a = p.parse_args()
    det = detector_factory("Eiger4M")
    # kiln-bench's Eiger 4M geometry (bench/azimuthal.cpp): beam near the centre.
    ai = AzimuthalIntegrator(dist=0.1, poni1=det.shape[0] * 75e-6 / 2, poni2=det.shape[1] * 75e-6 / 2,
                             wavelength=1e-10, detector=det)
    frame = numpy.random.default_rng(0).poisson(10.0, det.shape).astype(numpy.uint32)
    rows = []
    for split in ("no", "bbox"):
        method = (split, "csr", "cython")
        jobs = {
            "integrate1d 1000": lambda: ai.integrate1d_ng(frame, 1000, unit="q_nm^-1", method=method,
                                                          error_model="poisson"),
            "integrate2d 500x360": lambda: ai.integrate2d_ng(frame, 500, 360, unit="q_nm^-1", method=method,
                                                             error_model="poisson"),
        }
        for name, job in jobs.items():
            ai.reset()
            t = time.perf_counter()
            job()  # builds the matrix
            build = time.perf_counter() - t
            sec = median_seconds(job, a.repeat)
            rows.append({"row": "%s %s" % (name, split), "build_s": build, "median_ms": sec * 1e3,
                         "frames_per_s": 1.0 / sec})
            print("%-26s build %7.2f s   median %8.2f ms   %7.1f frames/s" % (rows[-1]["row"], build,
                                                                           sec * 1e3, 1.0 / sec), flush=True)
    info = {"pyFAI": pyFAI.version, "numpy": numpy.__version__, "cpus": os.cpu_count(),
            "omp_threads": os.environ.get("OMP_NUM_THREADS", "all"), "rows": rows}
    if a.out:
        with open(a.out, "w") as f:
            json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
