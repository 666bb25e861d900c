#!/usr/bin/env python3
"""pyFAI's GPU tutorial with kiln: an Eiger-like stack of powder-diffraction
frames stored as bitshuffle-LZ4 HDF5 is decoded on the GPU
(FrameStack.to_device: the compressed chunks are pushed as stored) and
integrated azimuthally to 1-D profiles in q (kiln.AzimuthalIntegrator: no
pixel splitting, solid angle and polarization corrections, module gaps as
dummy pixels). The CPU reference reads the frames through HDF5
(FrameStack.read_frame) and integrates them with numpy.histogram over the
same geometry. Without --input the script first writes a synthetic stack
(silicon rings, Poisson counts) with kiln.FrameStackWriter."""
import os
import tempfile
import time

import numpy as np

import kiln
import _lesson

# (rows, cols, frames, frames the CPU reference integrates)
SIZES = {"small": (270, 258, 8, 8), "lesson": (2162, 2068, 100, 10)}
EIGER_ROWS, EIGER_PIXEL = 2162, 75e-6
NPT = 1000
POLARIZATION = 0.99


def geometry(rows, cols):
    """pyFAI's PONI geometry of an Eiger 4M 0.1 m from the sample, scaled to
    rows x cols pixels (the same angles at any pixel count)."""
    pixel = EIGER_PIXEL * EIGER_ROWS / rows
    return dict(pixel1=pixel, pixel2=pixel, dist=0.1, poni1=0.51 * rows * pixel, poni2=0.48 * cols * pixel,
                rot1=0.002, rot2=-0.001, rot3=0.0, wavelength=1.0e-10)


def pixel_terms(rows, cols, g):
    """q (nm^-1), solid angle and polarization at each pixel centre, in NumPy
    from pyFAI's formulas: the point (d1 - poni1, d2 - poni2, dist) rotated by
    R3 R2 R1 to t, 2theta = atan2(|t1, t2|, t3), chi = atan2(t1, t2)."""
    p1 = ((np.arange(rows) + 0.5) * g["pixel1"] - g["poni1"])[:, None]
    p2 = ((np.arange(cols) + 0.5) * g["pixel2"] - g["poni2"])[None, :]
    c1, s1 = np.cos(g["rot1"]), np.sin(g["rot1"])
    c2, s2 = np.cos(g["rot2"]), np.sin(g["rot2"])
    c3, s3 = np.cos(g["rot3"]), np.sin(g["rot3"])
    r = (np.array([[c3, -s3, 0], [s3, c3, 0], [0, 0, 1]]) @ np.array([[c2, 0, -s2], [0, 1, 0], [s2, 0, c2]])
         @ np.array([[1, 0, 0], [0, c1, s1], [0, -s1, c1]]))
    dist = g["dist"]
    t1, t2, t3 = (r[k, 0] * p1 + r[k, 1] * p2 + r[k, 2] * dist for k in range(3))
    tth = np.arctan2(np.hypot(t1, t2), t3)
    q = 4e-9 * np.pi * np.sin(tth / 2) / g["wavelength"]
    solid = (dist / np.sqrt(dist * dist + p1 * p1 + p2 * p2)) ** 3
    cos2 = np.cos(tth) ** 2
    polar = 0.5 * (1 + cos2 - POLARIZATION * np.cos(2 * np.arctan2(t1, t2)) * (1 - cos2))
    return q, solid, polar


def gaps(rows, cols):
    """Eiger 4M's module gaps (2 x 4 modules of 1030 x 514 pixels), scaled."""
    mh, mw = int(514 * rows / 2162), int(1030 * cols / 2068)
    gh, gw = (rows - 4 * mh) // 3, cols - 2 * mw
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    return ((i % (mh + gh) >= mh) & (i < 3 * (mh + gh))) | ((j >= mw) & (j < mw + gw))


def write_stack(path, rows, cols, frames, seed):
    """Silicon powder rings on an air-scattering background, Poisson counts,
    gaps marked 0xFFFFFFFF as Eiger marks them; the rings fade and return."""
    g = geometry(rows, cols)
    q, solid, polar = pixel_terms(rows, cols, g)
    mean = 1.5 + 40 * np.exp(-q / 4)
    for n, hkl in enumerate((3, 8, 11, 16, 19, 24, 27, 32, 35, 40, 43, 48)):
        mean += 80 / np.sqrt(n + 1) * np.exp(-0.5 * ((q - 2 * np.pi * np.sqrt(hkl) / 0.5431) / 0.12) ** 2)
    mean *= solid * polar
    gap = gaps(rows, cols)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    with kiln.FrameStackWriter(path, rows, cols, np.uint32, bslz4=True) as w:
        for f in range(frames):
            frame = rng.poisson(mean * (1.0 + 0.2 * np.sin(2 * np.pi * f / 60))).astype(np.uint32)
            frame[gap] = 0xFFFFFFFF
            w.write_frame(frame)
    print(f"wrote {path}: {frames} frames of {rows} x {cols} uint32, bitshuffle-LZ4 "
          f"({time.perf_counter() - t0:.2f} s)")


def integrate_cpu(frame, q, norm, dummy, edges):
    """pyFAI's histogram integration without pixel splitting, in NumPy:
    sum of counts over sum of solid angle x polarization per bin, dummy
    pixels left out; empty bins 0."""
    valid = frame != dummy
    signal, _ = np.histogram(q, edges, weights=np.where(valid, frame, 0).ravel())
    weight, _ = np.histogram(q, edges, weights=np.where(valid, norm, 0).ravel())
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight > 0, signal / weight, 0.0)


def gpu_integrate(stack, ai, args):
    """Batches of frames pushed as stored, decoded and integrated on the GPU:
    (profiles, wall seconds a frame, the first batch decoded). Prints the
    whole stack's rate and one batch's GPU time from timestamps."""
    frames, rows, cols = stack.shape
    # Decoded frames and the decoder's input must fit one binding each.
    limit = kiln.default_context().device.max_storage_buffer_range // (2 * rows * cols * stack.dtype.itemsize)
    batch = max(1, min(args.batch, frames, limit))
    both, _ = _lesson.gpu_ms(lambda: ai.integrate(stack.to_device(0, batch)), args.repeat, "decode and integrate")
    decoded = stack.to_device(0, batch)
    alone, _ = _lesson.gpu_ms(lambda: ai.integrate(decoded), args.repeat, "integrate")
    profiles = []
    t0 = time.perf_counter()
    for first in range(0, frames, batch):
        n = min(batch, frames - first)
        profiles.append(ai.integrate(stack.to_device(first, n)).intensity.get().reshape(n, NPT))
    wall = (time.perf_counter() - t0) / frames
    print(f"GPU: {frames} frames in batches of {batch} (chunks read and pushed as stored, decoded, integrated, "
          f"profiles pulled): {wall * 1e3:.2f} ms a frame, {1 / wall:.1f} frames/s")
    print(f"  GPU time a frame (timestamps): decode and integrate {both / batch:.4f} ms, integrate alone "
          f"{alone / batch:.4f} ms")
    return np.concatenate(profiles), wall, decoded


def cpu_integrate(stack, which, q, norm, dummy, edges):
    """Frames `which` read through HDF5 and integrated with NumPy:
    (profiles, the frames, seconds a frame)."""
    t0 = time.perf_counter()
    host_frames = [stack.read_frame(f) for f in which]
    read_s = time.perf_counter() - t0
    want = np.array([integrate_cpu(f, q, norm, dummy, edges) for f in host_frames])
    per_frame = (time.perf_counter() - t0) / len(which)
    print(f"CPU: {len(which)} frames read through HDF5 in {read_s * 1e3:.1f} ms and integrated with NumPy: "
          f"{per_frame * 1e3:.2f} ms a frame, {1 / per_frame:.1f} frames/s")
    return want, host_frames, per_frame


def main():
    p = _lesson.parser(__doc__, small="a {} x {} detector, {} frames".format(*SIZES["small"]),
                       lesson="Eiger 4M, {} x {}, {} frames".format(*SIZES["lesson"]), repeat=5)
    p.add_argument("--input", help="an HDF5 stack (bitshuffle-LZ4, one chunk per frame) instead of the synthetic "
                   "one; its geometry is taken to be the synthetic one scaled to its shape")
    p.add_argument("--dataset", default="/entry/data/data", help="the stack's dataset (default: %(default)s)")
    p.add_argument("--frames", type=_lesson.positive_int, help="frames of the synthetic stack (default: by --size)")
    p.add_argument("--cpu-frames", type=_lesson.positive_int,
                   help="frames the CPU reference integrates, spread over the stack (default: by --size)")
    p.add_argument("--batch", type=_lesson.positive_int, default=16, help="frames decoded and integrated per GPU "
                   "run, fewer when the device's binding range needs it (default: %(default)s)")
    args = p.parse_args()
    _lesson.open_device(args.device)
    rows, cols, frames, cpu_frames = SIZES[args.size]
    with tempfile.TemporaryDirectory() as tmp:
        path = args.input
        if not path:
            path = os.path.join(tmp, "eiger_stack.h5")
            write_stack(path, rows, cols, args.frames or frames, seed=1)
        stack = kiln.FrameStack(path, args.dataset)
        run(stack, os.path.getsize(path), args, args.cpu_frames or cpu_frames)


def run(stack, file_size, args, cpu_frames):
    frames, rows, cols = stack.shape
    dtype = stack.dtype
    if not stack.is_bslz4:
        raise SystemExit(f"azimuthal: {args.input} is not bitshuffle-LZ4 compressed; the lesson decodes it on the GPU")
    dummy = np.iinfo(dtype).max if dtype.kind in "ui" else None  # Eiger's value for gaps and dead pixels
    print(f"stack: {frames} frames of {rows} x {cols} {dtype}, {file_size / 1e6:.1f} MB "
          f"({frames * rows * cols * dtype.itemsize / file_size:.1f}x compressed)")

    g = geometry(rows, cols)
    q, solid, polar = pixel_terms(rows, cols, g)
    # The pixels' q range widened by float32's epsilon at both ends (pyFAI
    # widens its upper bound so): kiln's q and NumPy's may differ in the last
    # bit, and the extreme pixels must fall inside the range for both.
    eps = float(np.finfo(np.float32).eps)
    q_range = (float(q.min()) * (1 - eps), float(q.max()) * (1 + eps))
    t0 = time.perf_counter()
    ai = kiln.AzimuthalIntegrator((rows, cols), npt=NPT, unit="q_nm^-1", radial_range=q_range, solid_angle=True,
                                  polarization_factor=POLARIZATION, dummy=dummy, error_model="none", **g)
    print(f"integrator: {ai.bins} bins in q from {q_range[0]:.3f} to {q_range[1]:.3f} nm^-1, {ai.nnz} matrix "
          f"entries, built in {time.perf_counter() - t0:.2f} s")

    # The GPU first: after seconds of NumPy an idle GPU has lowered its clock.
    got, gpu_s, decoded = gpu_integrate(stack, ai, args)
    which = sorted({k * frames // min(cpu_frames, frames) for k in range(min(cpu_frames, frames))})
    edges = np.linspace(q_range[0], q_range[1], NPT + 1)
    want, host_frames, cpu_s = cpu_integrate(stack, which, q.ravel(), solid * polar, dummy, edges)
    print(f"speedup in wall time a frame: {cpu_s / gpu_s:.1f}x (CPU {cpu_s * 1e3:.2f} ms, GPU {gpu_s * 1e3:.2f} ms)")

    checks = _lesson.Checks()
    checks.equal("frames decoded on the GPU vs HDF5", np.concatenate([stack.to_device(f, 1).get() for f in which]),
                 np.array(host_frames))
    checks.close("bin centres (nm^-1)", ai.integrate(decoded).radial, (edges[:-1] + edges[1:]) / 2, 1e-12, 0,
                 "the same range and bin count, float64 on both sides")
    # kiln keeps the solid angle and polarization as float32 (6e-8) and sums
    # in compensated float32 or float64: 1e-5 leaves a wide margin, and a
    # pixel in the wrong bin would be off by percents.
    checks.close("intensities", got[which], want, 1e-5, 0, "float32 pixel corrections on the GPU")
    _lesson.finish(checks)


if __name__ == "__main__":
    main()
