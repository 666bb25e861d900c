"""The FFT family's generated functions (engine/ops/fft_manifest.cpp) against
numpy.fft, scipy.signal.fftconvolve and scipy.ndimage.fourier_gaussian:
complex NumPy arrays in and out. float32 FFTs round about eps * log2(n) per
element relative to the largest output; the tests allow 1e-5 of it (the C++
tests' bound, tests/ops/test_fft.cpp)."""
import numpy as np
import pytest
import scipy.ndimage as ndi
import scipy.signal

import kiln


def close(got, want, rel=1e-5):
    got = got.get() if hasattr(got, "get") else np.asarray(got)
    assert got.shape == want.shape
    err = np.abs(got.astype(np.complex128) - want).max()
    assert err <= rel * max(np.abs(want).max(), 1e-30), err
    return got


@pytest.fixture
def data(rng):
    c = (rng.standard_normal((13, 17)) + 1j * rng.standard_normal((13, 17))).astype(np.complex64)
    r = rng.standard_normal((13, 17)).astype(np.float32)
    return c, r


def test_transforms_match_numpy(data):
    c, r = data
    cd, rd = c.astype(np.complex128), r.astype(np.float64)
    got = close(kiln.fft2(c), np.fft.fft2(cd))
    assert got.dtype == np.complex64
    close(kiln.fft(c, n=20), np.fft.fft(cd, n=20))
    close(kiln.ifft(c, norm="ortho"), np.fft.ifft(cd, norm="ortho"))
    close(kiln.rfft(r), np.fft.rfft(rd))
    close(kiln.irfft(c, n=31), np.fft.irfft(cd, n=31))
    close(kiln.ifft2(c, s=[16, 11]), np.fft.ifft2(cd, s=(16, 11)))
    close(kiln.rfft2(r), np.fft.rfft2(rd))
    close(kiln.irfft2(np.fft.rfft2(r).astype(np.complex64), s=[13, 17]), rd)
    close(kiln.fftn(c, norm="forward"), np.fft.fftn(cd, norm="forward"))
    close(kiln.ifftn(c), np.fft.ifftn(cd))
    close(kiln.rfftn(r), np.fft.rfftn(rd))
    close(kiln.irfftn(np.fft.rfftn(r).astype(np.complex64), s=[13, 17]), rd)
    assert kiln.fft(c.astype(np.complex128)).get().dtype == np.complex128


def test_parts_and_fftconvolve(data, rng):
    c, r = data
    np.testing.assert_array_equal(kiln.real(c).get(), c.real)
    np.testing.assert_array_equal(kiln.imag(c).get(), c.imag)
    close(kiln.abs(c), np.abs(c.astype(np.complex128)), 2.4e-7)
    k = rng.standard_normal((5, 8)).astype(np.float32)
    for mode in ("full", "same", "valid"):
        close(kiln.fftconvolve(r, k, mode=mode), scipy.signal.fftconvolve(r.astype(np.float64), k, mode=mode))


def test_fourier_gaussian(data):
    c, r = data
    close(kiln.fourier_gaussian(c, sigma=[1.5, 2.5]), ndi.fourier_gaussian(c.astype(np.complex128), [1.5, 2.5]),
          4.2e-7)
    half = np.fft.rfft2(r).astype(np.complex64)
    close(kiln.fourier_gaussian(half, sigma=[2.0], n=17), ndi.fourier_gaussian(half.astype(np.complex128), 2.0, n=17),
          4.2e-7)


def test_refusals(data):
    c, _ = data
    with pytest.raises(Exception, match="real"):
        kiln.rfft(c)
    with pytest.raises(Exception, match="norm"):
        kiln.fft(c, norm="none")
