"""kiln from Python: shared/REFERENCE.md's W workloads through the kiln
package, timed as kiln-bench times them, and the Python cost of one op.

Each workload is timed with kiln.benchmark, the same kiln::benchmark
kiln-bench uses: n_warmup runs, then each repetition runs and syncs; the GPU
time of a repetition is the sum of its submissions' timestamp spans; medians
are reported. Rows with transfers (W2, W2-pg, W10) report the wall time, as
kiln-bench does. Before each workload the GPU is kept busy for a while so
its clock is at the sustained-load level (kiln-bench's --hold-clock-ms).

    PYTHONPATH=build/python python3 bench/kiln_python.py [--size small] [--repeat 20]

bench/compare.py --python imports this module for its kiln-from-Python column.
"""
import argparse
import json
import sys
import time

import numpy as np

import kiln
from compare import dirac_grid, gaussian15  # the same inputs as CuPy's and the CPU's side

WALL = ("W2", "W2-pg", "W10")


def hold_clock(ms=400.0):
    """Copies 64 MiB back and forth for `ms` (no-op at --size small)."""
    src = kiln.full(16 << 20, 1.0)
    t0 = time.perf_counter()
    while (time.perf_counter() - t0) * 1e3 < ms:
        for _ in range(16):
            kiln.copy(src)
        kiln.sync()


def workloads(full=True):
    """id -> (name, make): make() returns the function to time."""
    n = 2048 if full else 256
    w = {}
    grid, g = dirac_grid(n), gaussian15()

    def w1():
        a, k = kiln.asarray(grid), kiln.asarray(g)
        return lambda: kiln.convolve2d(a, k)
    w["W1"] = (f"convolve2d full {n}^2 x 15^2 float32", w1)

    def w2():
        host_in = kiln.empty_pinned(grid.shape)
        host_in[...] = grid
        host_out = kiln.empty_pinned((n + 14, n + 14))
        return lambda: kiln.convolve2d(kiln.asarray(host_in), g).get(out=host_out)
    w["W2"] = ("W1 + push image, pull result, pinned (kiln.empty_pinned)", w2)

    def w2pg():
        out = np.empty((n + 14, n + 14), np.float32)
        return lambda: kiln.convolve2d(kiln.asarray(grid), g).get(out=out)
    w["W2-pg"] = ("W1 + push image, pull result, pageable NumPy arrays", w2pg)

    flat, diag = grid.ravel().astype(np.float64), np.diag(g).astype(np.float64)

    def w3():
        a, v = kiln.asarray(flat), kiln.asarray(diag)
        return lambda: kiln.convolve(a, v)
    w["W3"] = (f"convolve {flat.size // (1 << 20)}M float64 x 15 taps", w3)

    for wid, side, seed in (("W4", n, 1), ("W5", 4 * n, 2)):
        img = np.random.default_rng(seed).random((side, side), dtype=np.float32)

        def make(img=img):
            a = kiln.asarray(img)
            return lambda: kiln.gaussian_filter(a, sigma=2.0)
        w[wid] = (f"gaussian_filter sigma 2, {side}^2 float32", make)

    sky = kiln.synthetic_sky(n)
    std = kiln.kappa_sigma_clip(sky, 3.0)["std"]
    mask = (sky > 5 * std).astype(np.uint8)

    def w6():
        a = kiln.asarray(sky)
        return lambda: kiln.kappa_sigma_clip(a, 3.0)
    w["W6"] = (f"kappa-sigma clipping {n}^2 radio sky", w6)

    def w7():
        a = kiln.asarray(sky)
        return lambda: kiln.threshold(a, 5 * std)
    w["W7"] = (f"5-sigma threshold {n}^2 to 0/1", w7)

    def w8():
        m = kiln.asarray(mask)
        return lambda: kiln.label_async(m, 4)  # kiln-bench's W8: the count left on the device
    w["W8"] = (f"label {n}^2 5-sigma mask, 4-connectivity", w8)

    def w9():
        a = kiln.asarray(sky)
        labels, count = kiln.label(kiln.asarray(mask), connectivity=4)
        return lambda: kiln.measure(a, labels, n=count)
    w["W9"] = ("measure all labels (sum, centre of mass, ...)", w9)

    def w10():
        image = kiln.empty(sky.shape)
        host = kiln.empty_pinned(sky.shape)  # as kiln-bench's W10: the image pushed from pinned memory
        host[...] = sky

        def once():
            image.set(host)
            clip = kiln.kappa_sigma_clip_async(image, 3.0)
            return kiln.measure_async(image, kiln.label_async(clip.threshold(image, 5.0), 4)).get()
        return once
    w["W10"] = ("astronomy pipeline end to end (push .. catalogue)", w10)

    count = (64 << 20) if full else (1 << 20)
    xa = np.random.default_rng(3).random(count, dtype=np.float32)
    xb = np.random.default_rng(4).random(count, dtype=np.float32)

    def w11():
        a, b = kiln.asarray(xa), kiln.asarray(xb)
        return lambda: a + b
    w["W11"] = (f"vector add {count >> 20}M float32", w11)

    ints = np.random.default_rng(5).integers(0, 256, count, dtype=np.int32)

    def w12():
        a = kiln.asarray(ints)
        return lambda: kiln.histogram(a, 256, (0, 256))
    w["W12"] = (f"histogram 256 bins of {count >> 20}M int32, range (0, 256)", w12)

    w["W13"] = ("primes below 100000, trial division per number",
                lambda: (lambda: kiln.prime_flags(100000, "trial_division")))

    m4 = np.random.default_rng(6).random((4 << 20) if full else (1 << 18), dtype=np.float32)

    def w14():
        a = kiln.asarray(m4)
        return lambda: kiln.median(a)
    w["W14"] = (f"median of {m4.size >> 10}K float32", w14)

    rows, cols = (2162, 2068) if full else (257, 263)
    pixel = 75e-6 if full else 75e-6 * 2162 / 257
    frame = np.random.default_rng(7).poisson(5.0, (rows, cols)).astype(np.uint32)
    for wid, split in (("W15", False), ("W16", True)):
        def make(split=split):
            ai = kiln.AzimuthalIntegrator((rows, cols), pixel, pixel, 0.1, 0.51 * rows * pixel, 0.48 * cols * pixel,
                                          wavelength=1e-10, npt=1000, unit="q_nm^-1", pixel_split=split)
            f = kiln.asarray(frame)
            return lambda: ai.integrate(f)
        w[wid] = (f"CSR integrate {rows}x{cols}, 1000 bins, {'split' if split else 'no split'}", make)
    return w


def run(full=True, repeat=20, only=""):
    """id -> {"name", "ms" (GPU, or wall for WALL rows), "gpu_ms", "wall_ms"}."""
    out = {}
    for wid, (name, make) in workloads(full).items():
        if only and only not in wid:
            continue
        fn = make()
        if full:
            hold_clock()
        r = kiln.benchmark(fn, n_repeat=repeat, n_warmup=3, name=wid)
        gpu = float(np.median(r.gpu_times)) * 1e3 if len(r.gpu_times) else None
        wall = float(np.median(r.cpu_times)) * 1e3
        out[wid] = {"name": name, "gpu_ms": gpu, "wall_ms": wall, "ms": wall if wid in WALL else gpu}
        print(f"{wid:6s} {name:55s} gpu {gpu if gpu is None else round(gpu, 4)} ms  wall {wall:.4f} ms", flush=True)
    return out


def overhead(calls=2000, rounds=20):
    """Host microseconds per call of a small op: recorded (no wait), and
    recorded then synced; medians of the rounds. A round records fewer ops
    than a context submits at once (ContextOptions::flush_nodes, 4096), so
    no GPU work runs while it is timed; a sync follows each round."""
    a = kiln.zeros((64, 64))
    kiln.sync()
    eager, synced = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            kiln.add(a, 1.0)
        eager.append((time.perf_counter() - t0) / calls * 1e6)
        kiln.sync()
        t0 = time.perf_counter()
        for _ in range(calls // 40):
            kiln.add(a, 1.0)
            kiln.sync()
        synced.append((time.perf_counter() - t0) / (calls // 40) * 1e6)
    operator = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            a + 1.0  # noqa: B018
        operator.append((time.perf_counter() - t0) / calls * 1e6)
        kiln.sync()
    return {"eager_us": float(np.median(eager)), "operator_us": float(np.median(operator)),
            "synced_us": float(np.median(synced)), "calls": calls}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="full", choices=["full", "small"])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--filter", default="", help="only workloads whose id contains this text")
    ap.add_argument("--json", default="", help="write the results here")
    args = ap.parse_args()
    print("device:", kiln.default_context().device.name, flush=True)
    res = {"workloads": run(args.size == "full", args.repeat, args.filter), "overhead": overhead()}
    print("overhead:", res["overhead"])
    if args.json:
        json.dump(res, open(args.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
