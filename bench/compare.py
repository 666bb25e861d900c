#!/usr/bin/env python3
"""Side-by-side benchmark: kiln, CuPy (GPU) and NumPy/SciPy (CPU) in one run.

Runs kiln-bench (JSON), then the same workloads of shared/REFERENCE.md with
CuPy and NumPy/SciPy where importable (skipped with a note where not), checks
that CuPy and the CPU agree, and prints one table: workload, kiln ms, CuPy ms,
ratio, CPU ms, speedup over the CPU, the floor from bytes moved and FLOPs, and
the fraction of the floor reached. Writes JSON and a Markdown table.

    bench/compare.py --kiln-bench build/bench/kiln-bench --out bench/results/DATE-h200

With --python (and the kiln package importable: PYTHONPATH=build/python),
the same W workloads also run through kiln from Python (bench/kiln_python.py),
timed the same way, in a column beside kiln-bench's, with the Python host
cost of one op.
"""
import argparse
import datetime
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

try:
    import cupy as cp
    import cupyx.profiler
    import cupyx.scipy.ndimage as cndi
    import cupyx.scipy.signal as csig
    import cupyx.scipy.sparse as csp
except Exception as e:  # noqa: BLE001 - any import failure means "no CuPy here"
    cp = None
    CUPY_NOTE = f"CuPy not importable: {e}"
try:
    import scipy.ndimage as ndi
    import scipy.signal as sig
    import scipy.sparse as sp
except Exception as e:  # noqa: BLE001
    ndi = None
    SCIPY_NOTE = f"SciPy not importable: {e}"

# Workloads whose figures include transfers: wall times on both sides (and
# every row of the transfer sweep, T-*).
WALL_IDS = ("W2", "W2-pg", "W10")


def is_wall(wid):
    return wid in WALL_IDS or wid.startswith("T-") or wid.startswith("W2-")


# The transfer sweep's sizes (kiln-bench's T-* rows).
SWEEP = [("4K", 4 << 10), ("64K", 64 << 10), ("1M", 1 << 20), ("4M", 4 << 20), ("16M", 16 << 20),
         ("64M", 64 << 20), ("256M", 256 << 20), ("1G", 1 << 30)]

# Floors for the card at hand: the bytes each workload must move at least
# (read once, write once), divided by the bandwidth kiln-bench measured on
# the same card in the same run (its "copy" workload for device memory,
# "push-p"/"pull-p" for transfers from and to pinned memory). W1's 1.9 GFLOP
# are not counted: the floor is memory's alone. Earlier runs quoted the
# H200's floors of shared/REFERENCE.md on every card.
MB = 1e6
FLOOR_BYTES = {"W1": 33.8 * MB, "W3": 67.1 * MB, "W4": 33.6 * MB, "W5": 537 * MB, "W6": 16.8 * MB,
               "W7": 21.0 * MB, "W8": 21.0 * MB, "W9": 33.6 * MB, "W11": 805 * MB, "W12": 268 * MB,
               "W14": 16.8 * MB}
# Bytes over PCIe (push + pull) of the workloads timed with their transfers.
FLOOR_PCIE_BYTES = {"W2": 33.8 * MB, "W2-pg": 33.8 * MB, "W10": 16.8 * MB}


def floor_ms(wid, kres):
    """The floor of workload wid from this run's measured bandwidths, or None."""
    def metric(rid, key):
        return (kres.get(rid) or {}).get("metrics", {}).get(key)
    if wid in FLOOR_PCIE_BYTES:
        gbs = [g for g in (metric("push-p", "GB/s"), metric("pull-p", "GB/s")) if g]
        return FLOOR_PCIE_BYTES[wid] / (min(gbs) * 1e9) * 1e3 if gbs else None
    b = FLOOR_BYTES.get(wid) or FAMILY_BYTES.get(wid)
    tbs = metric("copy", "TB/s")
    return b / (tbs * 1e12) * 1e3 if b and tbs else None


def dirac_grid(n=2048):
    g = np.zeros((n, n), dtype=np.float32)
    g[8::16, 8::16] = 1
    return g


def gaussian15():
    x = np.linspace(-2, 2, 15)
    xx, yy = np.meshgrid(x, x)
    return np.exp(-(xx ** 2 + yy ** 2)).astype(np.float32)


def synthetic_sky(path):
    """The same image kiln uses: written by `kiln synthetic-sky`."""
    return np.load(path)


def clip_loop(xp, data, kappa=3.0):
    d = data[xp.isfinite(data)]
    n_old = d.size
    it = 0
    while True:
        it += 1
        med = xp.median(d)
        std = xp.std(d)
        d = d[(d > med - kappa * std) & (d < med + kappa * std)]
        if d.size == n_old:
            break
        n_old = d.size
    return float(med), float(std), it


def radial_csr(rows=2162, cols=2068, bins=1000, split=False, seed=0):
    """A CSR matrix like pyFAI's: pixels to radial bins around a beam centre."""
    y, x = np.mgrid[0:rows, 0:cols]
    r = np.hypot(y - rows * 0.45, x - cols * 0.52).ravel()
    b = np.minimum((r / r.max() * bins).astype(np.int64), bins - 1)
    pix = np.arange(r.size)
    if not split:
        m = sp.csr_matrix((np.ones(r.size, np.float32), (b, pix)), shape=(bins, r.size))
    else:
        frac = (r / r.max() * bins) - b
        b2 = np.minimum(b + 1, bins - 1)
        keep = frac > 0.03  # most pixels span two bins
        rr = np.concatenate([b, b2[keep]])
        cc = np.concatenate([pix, pix[keep]])
        vv = np.concatenate([1 - frac * keep, frac[keep]]).astype(np.float32)
        m = sp.csr_matrix((vv, (rr, cc)), shape=(bins, r.size))
    m.sum_duplicates()
    return m


def cake_csr(rows=2162, cols=2068, rad_bins=500, azim_bins=360, seed=0):
    """A cake's CSR matrix like pyFAI's integrate2d without splitting: each
    pixel in the (azimuth, radius) bin of its centre, around a beam centre."""
    y, x = np.mgrid[0:rows, 0:cols]
    r = np.hypot(y - rows * 0.45, x - cols * 0.52).ravel()
    chi = np.arctan2(y - rows * 0.45, x - cols * 0.52).ravel()
    rb = np.minimum((r / r.max() * rad_bins).astype(np.int64), rad_bins - 1)
    ab = np.minimum(((chi + np.pi) / (2 * np.pi) * azim_bins).astype(np.int64), azim_bins - 1)
    pix = np.arange(r.size)
    m = sp.csr_matrix((np.ones(r.size, np.float32), (ab * rad_bins + rb, pix)), shape=(rad_bins * azim_bins, r.size))
    m.sum_duplicates()
    return m


def to_host(x):
    """CuPy results (arrays, tuples, lists, scalars) as NumPy values."""
    if cp is not None and isinstance(x, cp.ndarray):
        return cp.asnumpy(x)
    if isinstance(x, (tuple, list)):
        return [to_host(v) for v in x]
    return x


def agree(a, b, wid):
    """Whether a CuPy result and the CPU's agree (labels: the same count)."""
    a, b = to_host(a), to_host(b)
    if wid == "W8":
        return int(a[1]) == int(b[1])
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(agree(x, y, wid) for x, y in zip(a, b))
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    scale = float(np.nanmax(np.abs(b))) if b.size else 0.0
    return bool(np.allclose(a, b, rtol=1e-4, atol=1e-6 * scale + 1e-12, equal_nan=True))


_clock_load = None


def hold_clock(ms=400.0):
    """Keeps the GPU busy for `ms` so its clock is at the sustained-load level,
    as kiln-bench does before each workload (--hold-clock-ms): the driver idles
    the clock within ~2 s and raises it after ~0.3 s of continuous load."""
    global _clock_load
    if _clock_load is None:
        _clock_load = (cp.ones(16 << 20, dtype=cp.float32), cp.empty(16 << 20, dtype=cp.float32))
    src, dst = _clock_load
    t0 = time.perf_counter()
    while (time.perf_counter() - t0) * 1e3 < ms:
        for _ in range(16):
            cp.copyto(dst, src)
        cp.cuda.Stream.null.synchronize()


def gpu_time(fn, repeat):
    hold_clock()
    r = cupyx.profiler.benchmark(fn, n_repeat=repeat, n_warmup=3)
    return float(np.median(r.gpu_times[0]) * 1e3), float(np.median(r.cpu_times) * 1e3)


def wall_time(fn, repeat, gpu=True):
    if gpu and cp is not None:
        hold_clock()
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(t))


def peer_workloads(sky_path):
    """id -> (name, cupy_fn_maker, cpu_fn_maker, check). Makers take no args and return a callable."""
    w = {}
    grid, g = dirac_grid(), gaussian15()

    def w1():
        a, k = cp.asarray(grid), cp.asarray(g)
        return lambda: csig.convolve2d(a, k)
    w["W1"] = ("convolve2d full 2048^2 x 15^2 float32", w1,
               lambda: (lambda: sig.convolve2d(grid.astype(np.float64), g.astype(np.float64))))

    def w2(pinned):
        # Input and output in host memory allocated once, as kiln-bench's W2
        # (PinnedBuffer) and W2-pg (std::vector) do.
        if pinned:
            host_in = cupyx.empty_pinned(grid.shape, np.float32)
            host_out = cupyx.empty_pinned((grid.shape[0] + 14, grid.shape[1] + 14), np.float32)
        else:
            host_in = np.empty(grid.shape, np.float32)
            host_out = np.empty((grid.shape[0] + 14, grid.shape[1] + 14), np.float32)
        host_in[...] = grid

        def f():
            csig.convolve2d(cp.asarray(host_in), cp.asarray(g)).get(out=host_out)
            cp.cuda.Stream.null.synchronize()
        return f
    w["W2"] = ("W1 with push and pull, pinned host memory", lambda: w2(True), None)
    w["W2-pg"] = ("W1 with push and pull, pageable host memory", lambda: w2(False), None)
    w.update(transfer_peers())

    flat, diag = grid.ravel().astype(np.float64), np.diag(g).astype(np.float64)

    def w3():
        a, v = cp.asarray(flat), cp.asarray(diag)
        return lambda: cp.convolve(a, v)
    w["W3"] = ("numpy.convolve 4M x 15 float64", w3, lambda: (lambda: np.convolve(flat, diag)))

    img2k = np.random.default_rng(1).random((2048, 2048), dtype=np.float32)

    def w4():
        a = cp.asarray(img2k)
        return lambda: cndi.gaussian_filter(a, 2)
    w["W4"] = ("gaussian_filter sigma 2, 2048^2 float32", w4, lambda: (lambda: ndi.gaussian_filter(img2k, 2)))

    img8k = np.random.default_rng(2).random((8192, 8192), dtype=np.float32)

    def w5():
        a = cp.asarray(img8k)
        return lambda: cndi.gaussian_filter(a, 2)
    w["W5"] = ("gaussian_filter sigma 2, 8192^2 float32", w5, lambda: (lambda: ndi.gaussian_filter(img8k, 2)))

    if sky_path and os.path.exists(sky_path):
        sky = synthetic_sky(sky_path).astype(np.float32)
        med, std, _ = clip_loop(np, sky)
        mask = (sky > 5 * std).astype(np.uint8)

        def w6():
            a = cp.asarray(sky)
            return lambda: clip_loop(cp, a)
        w["W6"] = ("kappa-sigma clipping 2048^2", w6, lambda: (lambda: clip_loop(np, sky)))

        def w7():
            a = cp.asarray(sky)
            return lambda: cp.where(a > 5 * std, 1, 0)
        w["W7"] = ("5-sigma threshold 2048^2", w7, lambda: (lambda: np.where(sky > 5 * std, 1, 0)))

        def w8():
            m = cp.asarray(mask)
            return lambda: cndi.label(m)
        w["W8"] = ("label 2048^2 4-connectivity", w8, lambda: (lambda: ndi.label(mask)))

        labels_np, n = ndi.label(mask)

        def w9():
            a, l = cp.asarray(sky), cp.asarray(labels_np)
            idx = cp.arange(1, n + 1)
            return lambda: (cndi.center_of_mass(a, l, idx), cndi.sum_labels(a, l, idx))
        w["W9"] = (f"center_of_mass + sum_labels, {n} labels", w9,
                   lambda: (lambda: (ndi.center_of_mass(sky, labels_np, range(1, n + 1)),
                                     ndi.sum_labels(sky, labels_np, range(1, n + 1)))))

        def pipeline(xp, lab, host):
            d = xp.asarray(host)
            _, s, _ = clip_loop(xp, d)
            m = xp.where(d > 5 * s, 1, 0)
            l, k = lab.label(m)
            idx = xp.arange(1, k + 1)
            com = lab.center_of_mass(d, l, idx)
            flux = lab.sum_labels(d, l, idx)
            if xp is cp:
                com, flux = cp.asnumpy(cp.asarray(com)), cp.asnumpy(flux)
            return com, flux

        w["W10"] = ("astronomy pipeline end to end (push .. catalogue)", lambda: (lambda: pipeline(cp, cndi, sky)),
                    lambda: (lambda: pipeline(np, ndi, sky)))

    n64 = 64 << 20
    xa = np.random.default_rng(3).random(n64, dtype=np.float32)
    xb = np.random.default_rng(4).random(n64, dtype=np.float32)

    def w11():
        a, b = cp.asarray(xa), cp.asarray(xb)
        return lambda: a + b
    w["W11"] = ("vector add 64M float32", w11, lambda: (lambda: xa + xb))

    ints = np.random.default_rng(5).integers(0, 256, n64, dtype=np.int32)

    def w12():
        a = cp.asarray(ints)
        return lambda: cp.histogram(a, bins=256, range=(0, 256))
    w["W12"] = ("histogram 256 bins, 64M int32", w12, lambda: (lambda: np.histogram(ints, bins=256, range=(0, 256))))

    def w13():
        kern = cp.RawKernel(r'''
        extern "C" __global__ void primes(const int upper, int* is_prime) {
            int n = blockDim.x * blockIdx.x + threadIdx.x;
            if (n >= upper) return;
            int p = n >= 2;
            for (int d = 2; d * d <= n; ++d) if (n % d == 0) { p = 0; break; }
            is_prime[n] = p;
        }''', "primes")
        out = cp.zeros(100000, dtype=cp.int32)
        return lambda: kern(((100000 + 255) // 256,), (256,), (np.int32(100000), out))
    w["W13"] = ("primes below 100000, trial division", w13, None)

    m4 = np.random.default_rng(6).random(4 << 20, dtype=np.float32)

    def w14():
        a = cp.asarray(m4)
        return lambda: cp.median(a)
    w["W14"] = ("median of 4M float32", w14, lambda: (lambda: np.median(m4)))

    for wid, split in (("W15", False), ("W16", True), ("W17", None)):
        m = radial_csr(split=split) if split is not None else cake_csr()
        vec = np.random.default_rng(7).random(m.shape[1], dtype=np.float32)

        def make(m=m, vec=vec):
            gm, gv = csp.csr_matrix(m), cp.asarray(vec)
            return lambda: gm @ gv
        FAMILY_BYTES[wid] = m.nnz * 8 + m.shape[1] * 4 + m.shape[0] * 8  # entries, vector, row pointers and result
        w[wid] = (f"CSR SpMV {m.shape[0]} bins x Eiger 4M, {m.nnz / 1e6:.1f}M nnz", make,
                  (lambda m=m, vec=vec: (lambda: m @ vec)))
    w.update(family_peers())
    return w


def family_peers():
    """The image-processing families' peers, one module each (bench/peers_*.py).

    Each module defines workloads(cp, cndi, csig, ndi, sig) returning
    id -> dict(name=..., cupy=maker, cpu=maker or None, bytes=bytes moved by
    the minimal kernel, for the floor). Makers take no arguments and return a
    callable, as peer_workloads' do."""
    import glob
    import importlib.util
    w = {}
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers_*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for wid, d in mod.workloads(cp, cndi, csig, ndi, sig).items():
            w[wid] = (d["name"], d["cupy"], d.get("cpu"))
            if d.get("bytes"):
                FAMILY_BYTES[wid] = d["bytes"]
    return w


# Bytes each family workload must move at least (read + write), from its
# peers_*.py module: its floor on the card at hand is bytes / copy bandwidth.
FAMILY_BYTES = {}


def transfer_peers():
    """CuPy's side of kiln-bench's transfer sweep: push (ndarray.set), pull
    (ndarray.get(out=)) and a round trip (push, add 1, pull) from pageable
    NumPy arrays and from cupyx.empty_pinned ones, each to completion."""
    w = {}
    for label, nbytes in SWEEP:
        n = nbytes // 4
        for mem in ("pg", "pin"):
            def buffers(n=n, mem=mem):
                if mem == "pin":
                    host, back = cupyx.empty_pinned((n,), np.float32), cupyx.empty_pinned((n,), np.float32)
                else:
                    host, back = np.empty(n, np.float32), np.empty(n, np.float32)
                host[...] = np.arange(n, dtype=np.int64) & 1023
                return host, back, cp.asarray(host)

            def push(buffers=buffers):
                host, _, dev = buffers()

                def f():
                    dev.set(host)
                    cp.cuda.Stream.null.synchronize()
                return f

            def pull(buffers=buffers):
                _, back, dev = buffers()

                def f():
                    dev.get(out=back)
                    cp.cuda.Stream.null.synchronize()
                return f

            def round_trip(buffers=buffers):
                host, back, dev = buffers()

                def f():
                    dev.set(host)
                    (dev + 1).get(out=back)
                    cp.cuda.Stream.null.synchronize()
                return f
            what = "pageable" if mem == "pg" else "pinned"
            w[f"T-push-{mem}-{label}"] = (f"push {label}B {what}", push, None)
            w[f"T-pull-{mem}-{label}"] = (f"pull {label}B {what}", pull, None)
            w[f"T-rt-{mem}-{label}"] = (f"push, add 1, pull {label}B {what}", round_trip, None)
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiln-bench", default="build/bench/kiln-bench", help="path of the kiln-bench executable")
    ap.add_argument("--kiln", default="build/src/kiln", help="path of the kiln CLI (makes the synthetic sky)")
    ap.add_argument("--size", default="full", choices=["full", "small"])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--cpu-repeat", type=int, default=3, help="CPU runs per workload (0: no CPU column)")
    ap.add_argument("--filter", default="", help="only workloads whose id contains this text")
    ap.add_argument("--out", default="", help="write OUT.json and OUT.md")
    ap.add_argument("--kiln-json", default="", help="use this kiln-bench JSON instead of running it")
    ap.add_argument("--rerender", default="", help="render a saved OUT.json again (to --out) and exit")
    ap.add_argument("--python", action="store_true",
                    help="add a kiln-from-Python column (bench/kiln_python.py; kiln importable)")
    args = ap.parse_args()
    if args.rerender:
        return rerender(args.rerender, args.out)

    notes = []
    if args.kiln_json:
        kiln = json.load(open(args.kiln_json))
    else:
        tmp = (args.out or "/tmp/kiln-compare") + ".kiln.json"
        cmd = [args.kiln_bench, "--size", args.size, "--repeat", str(args.repeat), "--json", tmp]
        if args.filter:
            cmd += ["--filter", args.filter]
        print("running:", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=False)
        kiln = json.load(open(tmp))
        # The bandwidths the floors divide by, measured on this card now.
        have = {r["id"] for r in kiln["results"]}
        missing = [rid for rid in ("copy", "push-p", "pull-p") if rid not in have]
        if missing:
            sub = tmp + ".bandwidth.json"
            subprocess.run([args.kiln_bench, "--size", args.size, "--repeat", str(args.repeat), "--json", sub]
                           + [a for rid in missing for a in ("--id", rid)], check=False)
            kiln["results"] += [r for r in json.load(open(sub))["results"] if r["id"] in missing]
    kres = {r["id"]: r for r in kiln["results"]}

    sky_path = "/tmp/kiln-sky.npy"
    if not os.path.exists(sky_path) and os.path.exists(args.kiln):
        subprocess.run([args.kiln, "synthetic-sky", "-o", sky_path], check=False)

    py, py_overhead = {}, None
    if args.python:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import kiln_python
        py = kiln_python.run(args.size == "full", args.repeat, args.filter)
        py_overhead = kiln_python.overhead()
        print("kiln from Python, host cost per op:", py_overhead, flush=True)

    rows = []
    peers = {}
    if cp is None:
        notes.append(CUPY_NOTE)
    if ndi is None:
        notes.append(SCIPY_NOTE)
    if cp is not None and ndi is not None and args.size == "full":
        peers = peer_workloads(sky_path)
    elif args.size != "full":
        notes.append("peers run only at --size full")
    ids = sorted(set(kres) | set(peers), key=lambda s: (not s.startswith("W"), int(s[1:]) if s[1:].isdigit() else 0, s))
    for wid in ids:
        if args.filter and args.filter not in wid:
            continue
        k = kres.get(wid, {})
        row = {"id": wid, "name": k.get("name") or (peers[wid][0] if wid in peers else ""),
               "kiln_ms": k.get("wall_ms") if is_wall(wid) else k.get("gpu_ms"), "kiln_ok": k.get("ok"),
               "kiln_metrics": k.get("metrics", {}),
               "cupy_ms": None, "cpu_ms": None, "floor_ms": floor_ms(wid, kres), "note": k.get("note", ""),
               "kiln_py_ms": py.get(wid, {}).get("ms")}
        if wid in peers:
            name, mk_gpu, mk_cpu = peers[wid]
            fn = None
            if mk_gpu is None:
                row["note"] += " CuPy has no equivalent."
            else:
                try:
                    fn = mk_gpu()
                    if is_wall(wid):  # transfers included: wall time, as the GPU timer misses host copies
                        _, row["cupy_ms"] = gpu_time(fn, max(3, args.repeat // 4))
                    else:
                        row["cupy_ms"], _ = gpu_time(fn, args.repeat)
                except Exception as e:  # noqa: BLE001
                    row["note"] += f" CuPy failed: {e}"
            if mk_cpu is not None and args.cpu_repeat > 0:
                try:
                    cpu_fn = mk_cpu()
                    row["cpu_ms"] = wall_time(cpu_fn, args.cpu_repeat, gpu=False)
                    if fn is not None:
                        row["cupy_agrees_with_cpu"] = agree(fn(), cpu_fn(), wid)
                except Exception as e:  # noqa: BLE001
                    row["note"] += f" CPU failed: {e}"
            print(f"{wid}: kiln {row['kiln_ms']} CuPy {row['cupy_ms']} CPU {row['cpu_ms']}", flush=True)
        derive(row)
        rows.append(row)
    meta = {"date": datetime.date.today().isoformat(), "device": kiln.get("device"), "driver": kiln.get("driver"),
            "vulkan": kiln.get("vulkan"), "kiln": kiln.get("kiln"),
            "cupy": getattr(cp, "__version__", None), "numpy": np.__version__, "notes": notes,
            "python_overhead": py_overhead}
    render(rows, meta, kiln, args.out)
    return 0


def derive(row):
    kms, cms, pms, fms = row["kiln_ms"], row["cupy_ms"], row["cpu_ms"], row["floor_ms"]
    row["ratio_cupy_over_kiln"] = cms / kms if kms and cms else None
    row["speedup_over_cpu"] = pms / kms if kms and pms else None
    row["fraction_of_floor"] = fms / kms if kms and fms else None
    yms = row.get("kiln_py_ms")
    row["python_over_bench"] = yms / kms if kms and yms else None
    row["cupy_over_python"] = cms / yms if yms and cms else None


def rerender(path, out):
    """Renders a saved comparison again (kiln's transfer workloads as wall times)."""
    saved = json.load(open(path))
    kres = {r["id"]: r for r in saved["kiln"]["results"]}
    for row in saved["rows"]:
        if is_wall(row["id"]) and row["id"] in kres:
            row["kiln_ms"] = kres[row["id"]]["wall_ms"]
        derive(row)
    render(saved["rows"], saved["meta"], saved["kiln"], out)
    return 0


def render(rows, meta, kiln, out):
    notes = meta["notes"]

    def f(v, fmt="{:.3f}"):
        return fmt.format(v) if isinstance(v, (int, float)) and v is not None and math.isfinite(v) else "-"
    python = any(r.get("kiln_py_ms") for r in rows)
    head = ("| id | workload | kiln ms | CuPy ms | CuPy/kiln | CPU ms | kiln speedup vs CPU | floor ms | floor/kiln "
            "| kiln = CPU ref | CuPy = CPU |")
    if python:
        head += " kiln from Python ms | Python/kiln-bench | CuPy/Python |"
    lines = [head, "|" + "---|" * (14 if python else 11)]

    def yn(v):
        return "-" if v is None else ("yes" if v else "NO")
    for r in rows:
        lines.append(f"| {r['id']} | {r['name']} | {f(r['kiln_ms'], '{:.4f}')} | {f(r['cupy_ms'], '{:.4f}')} | "
                     f"{f(r['ratio_cupy_over_kiln'], '{:.1f}x')} | {f(r['cpu_ms'], '{:.1f}')} | "
                     f"{f(r['speedup_over_cpu'], '{:.0f}x')} | {f(r['floor_ms'], '{:.3f}')} | "
                     f"{f(r['fraction_of_floor'], '{:.0%}')} | {yn(r['kiln_ok'] if r['kiln_ms'] else None)} | "
                     f"{yn(r.get('cupy_agrees_with_cpu'))} |" +
                     (f" {f(r.get('kiln_py_ms'), '{:.4f}')} | {f(r.get('python_over_bench'), '{:.2f}')} | "
                      f"{f(r.get('cupy_over_python'), '{:.1f}x')} |" if python else ""))
    table = "\n".join(lines)
    print("\n" + table)
    for n in notes:
        print("note:", n)
    if out:
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        json.dump({"meta": meta, "rows": rows, "kiln": kiln}, open(out + ".json", "w"), indent=1)
        with open(out + ".md", "w") as fh:
            fh.write(f"# kiln vs CuPy vs CPU, {meta['date']}\n\n{meta['device']}, driver {meta['driver']}, "
                     f"Vulkan {meta['vulkan']}, CuPy {meta['cupy']}, NumPy {meta['numpy']}.\n"
                     "GPU times are medians of repeated runs from timestamp queries (kiln) and CUDA events "
                     "(cupyx.profiler.benchmark); W2, W2-pg, W10 and the transfer sweep (T-*) include transfers and "
                     "are wall times. "
                     "'kiln = CPU ref': kiln-bench compared its output with kiln's CPU reference (itself "
                     "tested against SciPy fixtures); 'CuPy = CPU': CuPy's output against NumPy/SciPy's "
                     "(allclose rtol 1e-4; labelling: the same number of labels).\n\n")
            if python:
                o = meta.get("python_overhead") or {}
                fh.write("'kiln from Python': the same workloads through the kiln package (bench/kiln_python.py), "
                         "timed by kiln.benchmark as kiln-bench times them. Python host cost per op (64x64 add, "
                         f"median of 20 rounds of {o.get('calls')} calls, each followed by a sync): recorded without waiting "
                         f"{o.get('eager_us', 0):.2f} us (kiln.add), {o.get('operator_us', 0):.2f} us (a + 1.0); "
                         f"recorded and synced {o.get('synced_us', 0):.1f} us.\n\n")
            fh.write(table + "\n")
            for n in notes:
                fh.write(f"\nNote: {n}\n")


if __name__ == "__main__":
    sys.exit(main())
