#!/usr/bin/python3
"""FFT fixtures for tests/ops/test_fft.cpp: numpy.fft and
scipy.signal.fftconvolve results on small odd and prime shapes.
Run with Debian's /usr/bin/python3 (NumPy 1.24, SciPy 1.10):
    /usr/bin/python3 tests/data/make_fft.py
writes tests/data/fft/*.npy (inputs float32/complex64; results computed in
double from them, stored as float32/complex64)."""
import os

import numpy as np
from scipy import ndimage, signal

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fft")
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(18007)


def save(name, a):
    # Results stored in single precision (7 digits, past the tests' float32
    # tolerances); computed in double.
    if a.dtype == np.complex128:
        a = a.astype(np.complex64)
    elif a.dtype == np.float64:
        a = a.astype(np.float32)
    np.save(os.path.join(out, name + ".npy"), np.ascontiguousarray(a))


def real(shape):
    return rng.standard_normal(shape).astype(np.float32)


def cplx(shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


# Lengths: prime (Bluestein), odd composite, power of two; 1-D, 2-D, 3-D.
for name, shape in [("p13", (13,)), ("p127", (127,)), ("c64", (64,)), ("m13x17", (13, 17)),
                    ("b5x12", (5, 12)), ("v5x6x7", (5, 6, 7))]:
    x = cplx(shape)
    r = real(shape)
    save(name + "_c", x)
    save(name + "_r", r)
    xd, rd = x.astype(np.complex128), r.astype(np.float64)
    save(name + "_fftn", np.fft.fftn(xd))
    save(name + "_ifftn", np.fft.ifftn(xd))
    save(name + "_rfftn", np.fft.rfftn(rd))
    save(name + "_fft", np.fft.fft(xd))
    save(name + "_rfft", np.fft.rfft(rd))
    save(name + "_fftn_r", np.fft.fftn(rd))
    save(name + "_fftn_ortho", np.fft.fftn(xd, norm="ortho"))
    save(name + "_ifftn_forward", np.fft.ifftn(xd, norm="forward"))
    # irfftn of a spectrum with Hermitian symmetry (a real signal's) and
    # of an arbitrary complex input (numpy's rule for the parts it ignores).
    last = shape[-1]
    save(name + "_irfftn_of_rfftn", np.fft.irfftn(np.fft.rfftn(rd), s=shape))
    save(name + "_irfft_odd", np.fft.irfft(xd, n=2 * last - 1))

# n / s: zero padding and cropping.
x = cplx((13, 17))
save("pad_c", x)
save("pad_fft_n20", np.fft.fft(x.astype(np.complex128), n=20))
save("pad_fft_n9", np.fft.fft(x.astype(np.complex128), n=9))
save("pad_fft2_s", np.fft.fft2(x.astype(np.complex128), s=(16, 11)))
save("pad_rfft2_s", np.fft.rfft2(x.real.astype(np.float64), s=(10, 21)))

# fftconvolve: every mode, 1-, 2- and 3-D, odd shapes.
for name, s1, s2 in [("cv1", (31,), (7,)), ("cv2", (23, 19), (5, 8)), ("cv3", (7, 9, 6), (3, 4, 3))]:
    a, b = real(s1), real(s2)
    save(name + "_a", a)
    save(name + "_b", b)
    for mode in ("full", "same", "valid"):
        save(name + "_" + mode, signal.fftconvolve(a.astype(np.float64), b.astype(np.float64), mode=mode))

# fourier_gaussian: full spectra (complex, odd and even lengths, 1- to
# 3-D), a real FFT's half spectrum with n (odd and even n), a float input.
for name, shape, sigma, n in [("fg2", (13, 17), (1.5, 2.5), -1), ("fg1", (12,), (3.0,), -1),
                              ("fg3", (5, 6, 7), (0.7, 1.2, 2.0), -1), ("fgr17", (13, 9), (2.0, 1.0), 17),
                              ("fgr16", (13, 9), 1.0, 16)]:
    x = cplx(shape)
    save(name + "_c", x)
    save(name + "_out", ndimage.fourier_gaussian(x.astype(np.complex128), sigma, n=n))
r = real((9, 11))
save("fgf_r", r)
save("fgf_out", ndimage.fourier_gaussian(r.astype(np.float64), 1.3))
