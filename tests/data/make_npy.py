#!/usr/bin/env python3
"""Writes the .npy fixtures in tests/data/npy/ for tests/io/test_npy.cpp.

Every file is written by NumPy itself (numpy.save, or
numpy.lib.format.write_array where a format version is forced), so the tests
check kiln's reader against NumPy's writer. The values follow simple formulas
that tests/io/test_npy.cpp restates independently. Run from anywhere:
    python3 tests/data/make_npy.py
"""
import os

import numpy as np
from numpy.lib import format as npformat

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npy")


def save(name, array, version=None, allow_pickle=False):
    path = os.path.join(OUT, name)
    if version is None:
        np.save(path, array, allow_pickle=allow_pickle)
    else:
        with open(path, "wb") as f:
            npformat.write_array(f, array, version=version, allow_pickle=allow_pickle)


def main():
    os.makedirs(OUT, exist_ok=True)
    # Readable by kiln.
    save("le_f4_3x5.npy", (np.arange(15, dtype="<f4") * 0.5 - 3).reshape(3, 5))
    save("be_f8_7.npy", ((np.arange(7) - 3) * 0.125).astype(">f8"))
    save("be_i2_2x3x4.npy", ((np.arange(24) - 12) * 1000).astype(">i2").reshape(2, 3, 4))
    save("be_u4_5.npy", np.array([0, 1, 0xDEADBEEF, 2**32 - 1, 65536], dtype=">u4"))
    save("v2_u2_4x6.npy", (np.arange(24) * 2731).astype("<u2").reshape(4, 6), version=(2, 0))
    save("v3_i4_3.npy", np.array([-2**31, 0, 2**31 - 1], dtype="<i4"), version=(3, 0))
    save("b1_5.npy", np.array([True, False, True, True, False]))
    save("i1_9.npy", np.arange(-4, 5, dtype="i1"))
    save("u1_4.npy", np.array([0, 127, 128, 255], dtype="u1"))
    # Refused by kiln, each for one reason.
    save("fortran_f4_3x4.npy", np.asfortranarray(np.arange(12, dtype="<f4").reshape(3, 4)))
    save("i8_3.npy", np.arange(3, dtype="<i8"))
    save("object_2.npy", np.array([1, "a"], dtype=object), allow_pickle=True)
    save("structured_2.npy", np.zeros(2, dtype=[("a", "<f4"), ("b", "<i2")]))
    save("scalar_0d.npy", np.float32(2.5))
    save("f4_4d.npy", np.zeros((1, 2, 1, 2), dtype="<f4"))
    save("empty_0x3.npy", np.zeros((0, 3), dtype="<f4"))


if __name__ == "__main__":
    main()
