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
    structure = scipy.ndimage.generate_binary_structure(2, 1 if args.connectivity == 4 else 2)
    cpu_repeat = min(args.repeat, 3)

    # The GPU first: after seconds of NumPy an idle GPU has lowered its clock.
    print("running the pipeline on the GPU, step by step and end to end...")
    d = kiln.asarray(image)
    g_time = {}
    g_time["clip"], g_clip = _lesson.gpu_ms(lambda: kiln.kappa_sigma_clip(d, args.kappa), args.repeat,
                                            "kappa-sigma clipping")
    g_cut = args.nsigma * g_clip["std"]
    g_time["threshold"], g_mask = _lesson.gpu_ms(lambda: kiln.threshold(d, g_cut), args.repeat, "threshold")
    g_time["label"], (g_labels, g_n) = _lesson.gpu_ms(
        lambda: kiln.label(g_mask, connectivity=args.connectivity), args.repeat, "label")
    g_time["measure"], g_meas = _lesson.gpu_ms(lambda: kiln.measure(d, g_labels), args.repeat, "measure")

    def end_to_end():
        x = kiln.asarray(image)
        clip = kiln.kappa_sigma_clip(x, args.kappa)
        labels, _ = kiln.label(kiln.threshold(x, args.nsigma * clip["std"]), connectivity=args.connectivity)
        return kiln.measure(x, labels)

    e2e, table = _lesson.cpu_ms(end_to_end, args.repeat + 1)

    print("running the CPU reference (NumPy, scipy.ndimage)...")
    c_time = {}
    c_time["clip"], c_clip = _lesson.cpu_ms(lambda: clip_cpu(image, args.kappa), cpu_repeat)
    c_cut = args.nsigma * c_clip["std"]
    c_time["threshold"], c_mask = _lesson.cpu_ms(lambda: image > c_cut, cpu_repeat)
    c_time["label"], (c_labels, c_n) = _lesson.cpu_ms(lambda: scipy.ndimage.label(c_mask, structure), cpu_repeat)
    c_time["measure"], c_meas = _lesson.cpu_ms(lambda: measure_cpu(image, c_labels, c_n), cpu_repeat)
    steps = {"clip": "kappa-sigma clipping", "threshold": "5-sigma segmentation", "label": "labelling",
             "measure": "centres of mass, fluxes"}
    times = [(name, c_time[k], g_time[k]) for k, name in steps.items()]

    print(f"\nbackground (kappa {args.kappa:g}): median {g_clip['median']:.6g}, std {g_clip['std']:.6g} Jy/beam, "
          f"{g_clip['count']} pixels kept, {g_clip['iterations']} iterations")
    print(f"segmentation: pixels > {args.nsigma:g} sigma = {g_cut:.6g} Jy/beam; {g_n} sources "
          f"({args.connectivity}-connectivity)")
    order = np.argsort(-g_meas["sum"])[:10]
    print("\nten highest integrated fluxes:\n   label          y          x   pixels   flux (Jy/beam)")
    for i in order:
        y, x = g_meas["center_of_mass"][i]
        print(f"  {g_meas['label'][i]:6d} {y:10.3f} {x:10.3f} {g_meas['count'][i]:8d} {g_meas['sum'][i]:16.6g}")

    print(f"\n{'step':26s} {'CPU ms':>12s} {'GPU ms':>12s} {'speedup':>10s}")
    for name, c, g in times:
        print(f"{name:26s} {c:12.3f} {g:12.4f} {c / max(g, 1e-9):9.1f}x")
    cpu_total = sum(c for _, c, _ in times)
    print(f"{'end to end':26s} {cpu_total:12.3f} {e2e:12.4f} {cpu_total / e2e:9.1f}x   (GPU: wall time incl. push "
          "of the image, the statistics and count read back, pull of the catalogue)")

    print("\nCPU (float64 NumPy, scipy.ndimage) vs GPU:")
    checks = _lesson.Checks()
    # Both clip in float64 on the same values; the GPU sums in another order
    # (a few ulp), so the statistics agree to 1e-9 and the kept pixels exactly.
    checks.close("clipped median and std", [g_clip["median"], g_clip["std"]], [c_clip["median"], c_clip["std"]],
                 1e-9, 0, "float64 sums on both sides, in another order")
    checks.equal("pixels kept, iterations", [g_clip["count"], g_clip["iterations"]],
                 [c_clip["count"], c_clip["iterations"]])
    checks.equal("5-sigma mask", g_mask.get(), c_mask.astype(np.uint8))
    checks.equal("labels (SciPy's numbering)", g_labels.get(), c_labels)
    checks.equal("sources in the end-to-end run", len(table["label"]), c_n)
    if g_n == c_n:
        checks.close("centres of mass (px)", g_meas["center_of_mass"], c_meas["center_of_mass"], 0, 1e-6,
                     "float64 sums on both sides; 1e-6 px is far below what a source position means")
        checks.close("integrated fluxes", g_meas["sum"], c_meas["sum"], 1e-9, 0,
                     "float64 sums of float32 pixels on both sides, in another order")
    _lesson.finish(checks)


if __name__ == "__main__":
    main()
