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


class Case:
    """One convolution of the lesson: its title, the CPU reference (label,
    function, runs), the kiln op with its host inputs and the dtype they are
    pushed as."""

    def __init__(self, title, cpu_label, cpu_fn, cpu_repeat, op, inputs, dtype):
        self.title, self.cpu_label, self.cpu_fn, self.cpu_repeat = title, cpu_label, cpu_fn, cpu_repeat
        self.op, self.inputs, self.dtype = op, inputs, dtype

    def gpu_ms(self, repeat):
        on_device = [kiln.asarray(x, self.dtype) for x in self.inputs]
        return _lesson.gpu_ms(lambda: self.op(*on_device), repeat, self.op.__name__)[0]

    def run(self, gpu, repeat, checks):
        """The CPU reference beside the GPU time, the wall time including the
        inputs' push and the result's pull, and numpy.allclose, the lesson's
        check."""
        print(self.title)
        cpu, want = _lesson.cpu_ms(self.cpu_fn, self.cpu_repeat)
        _lesson.report_times(cpu, gpu, self.cpu_label, f"kiln ({np.dtype(self.dtype).name})")
        wall, got = _lesson.cpu_ms(lambda: self.op(*[kiln.asarray(x, self.dtype) for x in self.inputs]).get(),
                                   max(3, repeat))
        print(f"  GPU including push of both inputs and pull of the result: {wall:.3f} ms")
        # Grid points 16 apart and a 15-wide kernel: each output is one
        # product 1 * g, so a float32 result differs from float64 by g's
        # rounding alone (< 6e-8 relative) and numpy.allclose's defaults hold.
        checks.close(self.op.__name__, got, want, 1e-5, 1e-8, "numpy.allclose's defaults, the lesson's check")


def main():
    p = _lesson.parser(__doc__, small=f"a {SIZES['small']} x {SIZES['small']} grid",
                       lesson=f"{SIZES['lesson']} x {SIZES['lesson']}")
    args = p.parse_args()
    _lesson.open_device(args.device)
    n = SIZES[args.size]
    deltas = np.zeros((n, n))
    deltas[8::16, 8::16] = 1
    gauss = gaussian()
    deltas_1d, gauss_1d = deltas.ravel(), gauss.diagonal().copy()
    cases = [
        # The lesson's CPU reference is float64 (NumPy's default); the GPU
        # runs in float32, as the lesson's benchmark workload (W1) does.
        # SciPy takes seconds at the lesson's size: it runs at most 3 times.
        Case(f"2-D convolution (full, fill 0) of the {n} x {n} Dirac grid with the 15 x 15 Gaussian",
             "scipy.signal.convolve2d (float64)", lambda: scipy.signal.convolve2d(deltas, gauss),
             min(args.repeat, 3), kiln.convolve2d, [deltas, gauss], np.float32),
        Case(f"1-D convolution (numpy.convolve, full) of the raveled grid ({deltas_1d.size} values) with the "
             "Gaussian's diagonal, float64", "numpy.convolve (float64)", lambda: np.convolve(deltas_1d, gauss_1d),
             args.repeat, kiln.convolve, [deltas_1d, gauss_1d], np.float64),
    ]
    # The GPU first: after seconds of SciPy an idle GPU has lowered its clock.
    gpu = [c.gpu_ms(args.repeat) for c in cases]
    checks = _lesson.Checks()
    for c, g in zip(cases, gpu):
        c.run(g, args.repeat, checks)
    _lesson.finish(checks)


if __name__ == "__main__":
    main()
