"""CuPy's side of bench/fft.cpp (W80-W86): cp.fft and
cupyx.scipy.signal.fftconvolve on the same shapes and dtypes."""
import numpy as np


def workloads(cp, cndi, csig, ndi, sig):
    rng = np.random.default_rng(1)

    def real(shape):
        return rng.standard_normal(shape).astype(np.float32)

    def cplx(shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)

    def gpu(op, make):
        def maker():
            a = cp.asarray(make())
            return lambda: op(a)
        return maker

    def cpu(op, make):
        def maker():
            a = make()
            return lambda: op(a)
        return maker

    def conv(mod):
        def maker():
            a, b = real((2048, 2048)), real((31, 31))
            if mod is not np:
                a, b = cp.asarray(a), cp.asarray(b)
                return lambda: csig.fftconvolve(a, b, mode="same")
            return lambda: sig.fftconvolve(a, b, mode="same")
        return maker

    def conv2d():
        # W86's own time: convolve2d at 31^2 (CuPy's direct sum).
        a, b = cp.asarray(real((2048, 2048))), cp.asarray(rng.uniform(-1, 1, (31, 31)).astype(np.float32))
        return lambda: csig.convolve2d(a, b, mode="same")

    n2, n3, n1, p = (2048, 2048), (256, 256, 256), (1 << 22,), (2039, 2039)
    return {
        "W80": dict(name="rfft2 2048^2 float32", cupy=gpu(cp.fft.rfft2, lambda: real(n2)),
                    cpu=cpu(np.fft.rfft2, lambda: real(n2)), bytes=2048 * 2048 * 4 + 2048 * 1025 * 8),
        "W81": dict(name="fft2 2048^2 complex64", cupy=gpu(cp.fft.fft2, lambda: cplx(n2)),
                    cpu=cpu(np.fft.fft2, lambda: cplx(n2)), bytes=2 * 2048 * 2048 * 8),
        "W82": dict(name="fftn 256^3 complex64", cupy=gpu(cp.fft.fftn, lambda: cplx(n3)),
                    cpu=None, bytes=2 * 256 ** 3 * 8),
        "W83": dict(name="fftconvolve 2048^2 x 31^2 float32, same", cupy=conv(cp), cpu=conv(np),
                    bytes=2 * 2048 * 2048 * 4),
        "W84": dict(name="rfft 2^22 float32", cupy=gpu(cp.fft.rfft, lambda: real(n1)),
                    cpu=cpu(np.fft.rfft, lambda: real(n1)), bytes=(1 << 22) * 4 + ((1 << 21) + 1) * 8),
        "W85": dict(name="fft2 2039^2 complex64 (prime: Bluestein)", cupy=gpu(cp.fft.fft2, lambda: cplx(p)),
                    cpu=None, bytes=2 * 2039 * 2039 * 8),
        "W86": dict(name="convolve2d 2048^2 float32 same: direct vs FFT for kernels 7^2-63^2", cupy=conv2d,
                    cpu=None, bytes=2 * 2048 * 2048 * 4),
    }
