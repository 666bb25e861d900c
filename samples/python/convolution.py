#!/usr/bin/env python3
"""The CuPy lesson's convolutions with kiln: a Dirac grid (ones at [8::16,
8::16]) convolved with a 15 x 15 Gaussian as scipy.signal.convolve2d, then
the raveled grid with the Gaussian's diagonal as numpy.convolve; each on the
CPU (SciPy, NumPy) and on the GPU, timed, and checked with numpy.allclose as
the lesson does."""
import numpy as np
import scipy.signal

import kiln
import _lesson

SIZES = {"small": 256, "lesson": 2048}


def gaussian():
    """The lesson's 15 x 15 Gaussian of linspace(-2, 2, 15), sigma 1."""
    x, y = np.meshgrid(np.linspace(-2, 2, 15), np.linspace(-2, 2, 15))
    dst = np.sqrt(x * x + y * y)
    return np.exp(-(dst ** 2 / 2.0))


def run(name, cpu_label, cpu_fn, op, inputs, dtype, repeat, checks, cpu_repeat=None):
    """One convolution: the CPU reference, the GPU time with the inputs on
    the device, the wall time including their push and the result's pull,
    and numpy.allclose, the lesson's check."""
    # The GPU first: after seconds of SciPy an idle GPU has lowered its clock.
    on_device = [kiln.asarray(x, dtype) for x in inputs]
    gpu, _ = _lesson.gpu_ms(lambda: op(*on_device), repeat, name)
    cpu, want = _lesson.cpu_ms(cpu_fn, cpu_repeat or repeat)
    _lesson.report_times(cpu, gpu, cpu_label, f"kiln ({np.dtype(dtype).name})")
    wall, got = _lesson.cpu_ms(lambda: op(*[kiln.asarray(x, dtype) for x in inputs]).get(), max(3, repeat))
    print(f"  GPU including push of both inputs and pull of the result: {wall:.3f} ms")
    # Grid points 16 apart and a 15-wide kernel: each output is one product
    # 1 * g, so a float32 result differs from float64 by g's rounding alone
    # (< 6e-8 relative) and numpy.allclose's defaults hold.
    checks.close(name, got, want, 1e-5, 1e-8, "numpy.allclose's defaults, the lesson's check")


def main():
    p = _lesson.parser(__doc__, small=f"a {SIZES['small']} x {SIZES['small']} grid",
                       lesson=f"{SIZES['lesson']} x {SIZES['lesson']}")
    args = p.parse_args()
    _lesson.open_device(args.device)
    n = SIZES[args.size]
    deltas = np.zeros((n, n))
    deltas[8::16, 8::16] = 1
    gauss = gaussian()
    checks = _lesson.Checks()

    print(f"2-D convolution (full, fill 0) of the {n} x {n} Dirac grid with the 15 x 15 Gaussian")
    # The lesson's CPU reference is float64 (NumPy's default); the GPU runs in
    # float32, as the lesson's benchmark workload (W1) does. SciPy takes
    # seconds at the lesson's size: it runs at most 3 times.
    run("convolve2d", "scipy.signal.convolve2d (float64)", lambda: scipy.signal.convolve2d(deltas, gauss),
        kiln.convolve2d, [deltas, gauss], np.float32, args.repeat, checks, cpu_repeat=min(args.repeat, 3))

    deltas_1d, gauss_1d = deltas.ravel(), gauss.diagonal().copy()
    print(f"1-D convolution (numpy.convolve, full) of the raveled grid ({deltas_1d.size} values) with the "
          "Gaussian's diagonal, float64")
    run("convolve", "numpy.convolve (float64)", lambda: np.convolve(deltas_1d, gauss_1d),
        kiln.convolve, [deltas_1d, gauss_1d], np.float64, args.repeat, checks)
    _lesson.finish(checks)


if __name__ == "__main__":
    main()
