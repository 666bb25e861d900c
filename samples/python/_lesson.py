"""What the lesson scripts share: the command line (--size, --device,
--repeat), the device, the timings, the CPU vs GPU agreement checks and the
end of a run (exit status 2 when a check fails, 3 when KILN_VALIDATION=1 and
the validation layer reported anything)."""
import argparse
import os
import sys
import time

import numpy as np

import kiln

EPILOG = """exit status: 0 when the GPU agrees with the CPU, 1 on an error, 2 when a
result differs, 3 when KILN_VALIDATION=1 and the Vulkan validation layer
reported anything (KILN_EMULATE_DISCRETE=1 runs on lavapipe as on a discrete
GPU)."""


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a whole number >= 1")
    return value


def parser(description, small, lesson, repeat=10):
    """An ArgumentParser with --size, --device and --repeat; small and lesson
    say what each size is."""
    p = argparse.ArgumentParser(description=description, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", choices=("small", "lesson"), default="lesson",
                   help=f"small: {small} (for CI and lavapipe); lesson: {lesson}, the lesson's own "
                        "size, for a GPU (default: %(default)s)")
    p.add_argument("--device", help="device index or part of its name (default: KILN_DEVICE, else the best GPU)")
    p.add_argument("--repeat", type=positive_int, default=repeat,
                   help="timed runs of each step; medians are printed (default: %(default)s)")
    return p


def open_device(spec):
    """Makes the device named by --device (an index or part of a name) kiln's
    default, and prints it; the default context when spec is None."""
    if spec is None:
        ctx = kiln.default_context()
    else:
        ctx = kiln.select_device(int(spec) if spec.isdigit() else spec)
    print(f"device: {ctx.device.name} ({ctx.device.driver})")
    return ctx


def cpu_ms(fn, repeat):
    """(median wall time of fn() over repeat runs in ms, the last result)."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e3, result


def gpu_ms(fn, repeat, name=None):
    """(median GPU time of fn() in ms from timestamp queries, the last
    result): kiln.benchmark's gpu_times, one warm-up run, then repeat runs
    each followed by a sync."""
    last = [None]

    def run():
        last[0] = fn()

    r = kiln.benchmark(run, n_repeat=repeat, n_warmup=1, name=name)
    return float(np.median(r.gpu_times)) * 1e3, last[0]


def report_times(cpu, gpu, cpu_label="CPU", gpu_label="GPU"):
    speedup = f"{cpu / gpu:9.1f}x" if gpu > 0 else "        -"
    print(f"  {cpu_label} {cpu:10.3f} ms   {gpu_label} {gpu:10.4f} ms   speedup {speedup}")


class Checks:
    """CPU vs GPU agreement: each check prints one line and is remembered."""

    def __init__(self):
        self.failed = []

    def _record(self, what, ok, line):
        print(f"  {what}: {line} -> {'agree' if ok else 'DIFFER'}")
        if not ok:
            self.failed.append(what)
        return ok

    def equal(self, what, got, want):
        """Exact match (same shape, every element equal)."""
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape:
            return self._record(what, False, f"shape {got.shape}, the CPU's {want.shape}")
        differ = int(np.count_nonzero(got != want))
        return self._record(what, differ == 0, f"exact match required, {differ} of {want.size} elements differ")

    def close(self, what, got, want, rtol, atol, why):
        """numpy.allclose(got, want, rtol, atol), with the largest absolute
        and relative errors and why the tolerance is what it is."""
        got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
        if got.shape != want.shape:
            return self._record(what, False, f"shape {got.shape}, the CPU's {want.shape}")
        err = np.abs(got - want)
        max_abs = float(err.max()) if err.size else 0.0
        nonzero = want != 0
        max_rel = float((err[nonzero] / np.abs(want[nonzero])).max()) if nonzero.any() else 0.0
        ok = bool(np.allclose(got, want, rtol=rtol, atol=atol))
        return self._record(what, ok, f"max abs error {max_abs:.3g}, max rel error {max_rel:.3g} "
                                      f"(allclose rtol {rtol:g}, atol {atol:g}: {why})")


def finish(checks):
    """Waits for the GPU, fails the run on validation messages (when
    KILN_VALIDATION is set) and on disagreement; exits with the status."""
    ctx = kiln.default_context()
    ctx.sync()
    if os.environ.get("KILN_VALIDATION", "0") not in ("", "0"):
        n = ctx.validation_message_count()
        if n:
            print(f"{n} Vulkan validation message(s):", file=sys.stderr)
            for m in ctx.validation_messages():
                print("  " + m, file=sys.stderr)
            sys.exit(3)
    if checks.failed:
        print("RESULTS DIFFER: " + ", ".join(checks.failed))
        sys.exit(2)
    print("done: the GPU results agree with the CPU's")
    sys.exit(0)
