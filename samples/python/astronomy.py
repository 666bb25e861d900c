#!/usr/bin/env python3
"""The CuPy lesson's radio-astronomy pipeline with kiln: the background by
kappa-sigma clipping, a 5-sigma segmentation, connected component labelling,
and the sources' centres of mass and integrated fluxes; each step on the CPU
(NumPy, scipy.ndimage) and on the GPU, timed and checked. The input is
kiln's synthetic radio sky (fixed seed), or a 2-D FITS image given with
--input."""
import numpy as np
import scipy.ndimage

import kiln
import _lesson

SIZES = {"small": 512, "lesson": 2048}


def clip_cpu(image, kappa):
    """The lesson's loop: clip to median +- kappa * std until a pass keeps
    every value. In float64 on the finite values, as kiln clips (the
    lesson's float32 statistics would round at 1e-7)."""
    data = image[np.isfinite(image)].astype(np.float64)
    iterations = 0
    while True:
        iterations += 1
        med, std = np.median(data), np.std(data)
        kept = data[(data > med - kappa * std) & (data < med + kappa * std)]
        if kept.size == data.size or kept.size == 0:
            break
        data = kept
    return {"median": np.median(data), "std": np.std(data), "count": data.size, "iterations": iterations}


def measure_cpu(image, labels, n):
    index = np.arange(1, n + 1)
    image = image.astype(np.float64)
    return {"center_of_mass": np.array(scipy.ndimage.center_of_mass(image, labels, index)).reshape(n, 2),
            "sum": scipy.ndimage.sum_labels(image, labels, index)}


def load(args):
    if args.input:
        image = kiln.read_array(args.input)
        print(f"input: {args.input}, shape {image.shape}, {image.dtype}")
        if image.ndim != 2:
            raise SystemExit(f"astronomy: the lesson needs a 2-D image; {args.input} has shape {image.shape}")
        return image.astype(np.float32)
    n = SIZES[args.size]
    print(f"input: kiln.synthetic_sky({n}), seed 42")
    return kiln.synthetic_sky(n)


def gpu_pipeline(image, args):
    """The steps on the GPU, each timed, then end to end: (ms, results) by step."""
    print("running the pipeline on the GPU, step by step and end to end...")
    d = kiln.asarray(image)
    t, r = {}, {}
    t["clip"], r["clip"] = _lesson.gpu_ms(lambda: kiln.kappa_sigma_clip(d, args.kappa), args.repeat,
                                          "kappa-sigma clipping")
    cut = args.nsigma * r["clip"]["std"]
    t["threshold"], r["threshold"] = _lesson.gpu_ms(lambda: kiln.threshold(d, cut), args.repeat, "threshold")
    t["label"], r["label"] = _lesson.gpu_ms(lambda: kiln.label(r["threshold"], connectivity=args.connectivity),
                                            args.repeat, "label")
    t["measure"], r["measure"] = _lesson.gpu_ms(lambda: kiln.measure(d, r["label"][0]), args.repeat, "measure")

    def end_to_end():
        x = kiln.asarray(image)
        clip = kiln.kappa_sigma_clip(x, args.kappa)
        labels, _ = kiln.label(kiln.threshold(x, args.nsigma * clip["std"]), connectivity=args.connectivity)
        return kiln.measure(x, labels)

    # Wall time: the push, the statistics and the count read back, the pull.
    t["e2e"], r["e2e"] = _lesson.cpu_ms(end_to_end, args.repeat + 1)
    return t, r


def cpu_pipeline(image, args):
    """The steps in NumPy and scipy.ndimage, each timed: (ms, results) by step."""
    print("running the CPU reference (NumPy, scipy.ndimage)...")
    repeat = min(args.repeat, 3)
    structure = scipy.ndimage.generate_binary_structure(2, 1 if args.connectivity == 4 else 2)
    t, r = {}, {}
    t["clip"], r["clip"] = _lesson.cpu_ms(lambda: clip_cpu(image, args.kappa), repeat)
    cut = args.nsigma * r["clip"]["std"]
    t["threshold"], r["threshold"] = _lesson.cpu_ms(lambda: image > cut, repeat)
    t["label"], r["label"] = _lesson.cpu_ms(lambda: scipy.ndimage.label(r["threshold"], structure), repeat)
    t["measure"], r["measure"] = _lesson.cpu_ms(lambda: measure_cpu(image, *r["label"]), repeat)
    return t, r


def main():
    p = _lesson.parser(__doc__, small=f"a {SIZES['small']} x {SIZES['small']} synthetic sky",
                       lesson=f"{SIZES['lesson']} x {SIZES['lesson']}", repeat=5)
    p.add_argument("--input", help="a 2-D FITS image instead of the synthetic sky (--size is then ignored)")
    p.add_argument("--kappa", type=float, default=3.0, help="clipping threshold in standard deviations "
                   "(default: %(default)s)")
    p.add_argument("--nsigma", type=float, default=5.0, help="segmentation: pixels above nsigma times the "
                   "clipped std (default: %(default)s)")
    p.add_argument("--connectivity", type=int, choices=(4, 8), default=4, help="neighbours of a pixel in a "
                   "source (default: %(default)s, scipy.ndimage.label's)")
    args = p.parse_args()
    _lesson.open_device(args.device)
    image = load(args)
    # The GPU first: after seconds of NumPy an idle GPU has lowered its clock.
    g_time, g = gpu_pipeline(image, args)
    c_time, c = cpu_pipeline(image, args)
    report(args, g, g_time, c_time)
    _lesson.finish(compare(g, c))


def report(args, g, g_time, c_time):
    clip, (_, n), m = g["clip"], g["label"], g["measure"]
    print(f"\nbackground (kappa {args.kappa:g}): median {clip['median']:.6g}, std {clip['std']:.6g} Jy/beam, "
          f"{clip['count']} pixels kept, {clip['iterations']} iterations")
    print(f"segmentation: pixels > {args.nsigma:g} sigma = {args.nsigma * clip['std']:.6g} Jy/beam; {n} sources "
          f"({args.connectivity}-connectivity)")
    print("\nten highest integrated fluxes:\n   label          y          x   pixels   flux (Jy/beam)")
    for i in np.argsort(-m["sum"])[:10]:
        y, x = m["center_of_mass"][i]
        print(f"  {m['label'][i]:6d} {y:10.3f} {x:10.3f} {m['count'][i]:8d} {m['sum'][i]:16.6g}")

    steps = {"clip": "kappa-sigma clipping", "threshold": "5-sigma segmentation", "label": "labelling",
             "measure": "centres of mass, fluxes"}
    print(f"\n{'step':26s} {'CPU ms':>12s} {'GPU ms':>12s} {'speedup':>10s}")
    for key, name in steps.items():
        print(f"{name:26s} {c_time[key]:12.3f} {g_time[key]:12.4f} {c_time[key] / max(g_time[key], 1e-9):9.1f}x")
    cpu_total = sum(c_time[key] for key in steps)
    e2e = g_time["e2e"]
    print(f"{'end to end':26s} {cpu_total:12.3f} {e2e:12.4f} {cpu_total / e2e:9.1f}x   (GPU: wall time incl. push "
          "of the image, the statistics and count read back, pull of the catalogue)")


def compare(g, c):
    print("\nCPU (float64 NumPy, scipy.ndimage) vs GPU:")
    checks = _lesson.Checks()
    # Both clip in float64 on the same values; the GPU sums in another order
    # (a few ulp), so the statistics agree to 1e-9 and the kept pixels exactly.
    checks.close("clipped median and std", [g["clip"]["median"], g["clip"]["std"]],
                 [c["clip"]["median"], c["clip"]["std"]], 1e-9, 0, "float64 sums on both sides, in another order")
    checks.equal("pixels kept, iterations", [g["clip"]["count"], g["clip"]["iterations"]],
                 [c["clip"]["count"], c["clip"]["iterations"]])
    checks.equal("5-sigma mask", g["threshold"].get(), c["threshold"].astype(np.uint8))
    checks.equal("labels (SciPy's numbering)", g["label"][0].get(), c["label"][0])
    checks.equal("sources in the end-to-end run", len(g["e2e"]["label"]), c["label"][1])
    if g["label"][1] == c["label"][1]:
        checks.close("centres of mass (px)", g["measure"]["center_of_mass"], c["measure"]["center_of_mass"], 0,
                     1e-6, "float64 sums on both sides; 1e-6 px is far below what a source position means")
        checks.close("integrated fluxes", g["measure"]["sum"], c["measure"]["sum"], 1e-9, 0,
                     "float64 sums of float32 pixels on both sides, in another order")
    return checks

if __name__ == "__main__":
    main()
