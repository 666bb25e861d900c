#!/usr/bin/python3
"""Writes pyFAI's own text profile (its save1D format, .xy) for kiln's
integrate-azimuthal text output test (tests/cli/test_cli_stack.cpp): the
frame and geometry of make_fixtures.py (frame.npy, generic_v2.poni),
integrated by pyFAI 0.21.3's CSR engine with Poisson errors. Run with
Debian 12's python3-pyfai: /usr/bin/python3 tests/data/pyfai/make_xy_fixture.py
"""
import os

import numpy
import pyFAI

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    print("pyFAI", pyFAI.version)
    ai = pyFAI.load(os.path.join(HERE, "generic_v2.poni"))
    data = numpy.load(os.path.join(HERE, "frame.npy"))
    # The range is given (pyFAI widens its automatic one by a float32 ulp),
    # as in make_fixtures.py; the test passes the same bounds to kiln.
    lo, hi = 0.5, 5.0
    os.chdir(HERE)  # the file's own line names it as given
    if os.path.exists("profile_q_nm.xy"):
        os.remove("profile_q_nm.xy")  # pyFAI warns before overwriting
    ai.integrate1d(data, 29, unit="q_nm^-1", radial_range=(lo, hi), method=("no", "csr", "cython"),
                   correctSolidAngle=False, error_model="poisson", filename="profile_q_nm.xy")
