"""kiln's runtime from Python: devices and contexts, the profile and trace,
benchmark, graph capture, user kernels and tuning, the errors, the GIL while
kiln waits, files, the synthetic sky, HDF5 frame stacks decoded on the GPU,
and the azimuthal integrator against an independent NumPy integration."""
import json
import sys
import threading
import time

import numpy as np
import pytest

import kiln
from conftest import DTYPES, random_array

EPS32 = float(np.finfo(np.float32).eps)


def own_context(**options):
    """A second context (validation as the suite's); its validation
    messages are checked by the caller with no_messages()."""
    return kiln.Context(**options)


def no_messages(ctx):
    ctx.sync()
    assert ctx.validation_message_count() == 0, ctx.validation_messages()


# -- devices and contexts -----------------------------------------------------------

def test_devices():
    devs = kiln.devices()
    assert len(devs) >= 1
    for i, d in enumerate(devs):
        assert isinstance(d, kiln.DeviceInfo) and d.index == i and d.name
        assert d.type in ("discrete", "integrated", "virtual", "cpu", "other")
        assert d.max_storage_buffer_range > 0 and d.subgroup_size > 0 and d.memory > 0
        assert d.name in str(d) and repr(d).startswith("kiln.DeviceInfo(index=")
    assert kiln.default_context().device.name in [d.name for d in devs]


def test_context_options_and_errors(tmp_path):
    name = kiln.devices()[0].name
    ctx = own_context(device=0, timing="submission", emulate_discrete=True, cache_dir=str(tmp_path))
    assert ctx.device.name == name and repr(ctx) == f"kiln.Context(device='{name}')"
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = kiln.asarray(x, context=ctx)
    assert a.context == ctx and a.context != kiln.default_context() and hash(a.context) == hash(ctx)
    assert (ctx == None) is False and ctx != "llvmpipe" and ctx in [None, ctx]  # noqa: E711
    np.testing.assert_array_equal((a * 2).get(), x * 2)
    np.testing.assert_array_equal(kiln.zeros(3, context=ctx).get(), np.zeros(3))
    # Ops run in their arrays' context; NumPy operands join it.
    b = kiln.add(a, x)
    assert b.context == ctx
    np.testing.assert_array_equal(b.get(), x + x)
    with pytest.raises(kiln.InvalidArgument):
        kiln.add(a, kiln.asarray(x))  # arrays of two contexts
    with pytest.raises(kiln.InvalidArgument, match="another context"):
        kiln.asarray(a, context=kiln.default_context())
    no_messages(ctx)
    by_name = own_context(device=name[:5].upper(), timing="off")  # a case-insensitive part of the name
    assert by_name.device.name == name
    no_messages(by_name)
    with pytest.raises(kiln.Error):
        kiln.Context(device=len(kiln.devices()) + 3)
    with pytest.raises(kiln.Error, match="no-such-gpu"):
        kiln.Context(device="no-such-gpu")
    with pytest.raises(kiln.InvalidArgument, match=">= 0"):
        kiln.Context(device=-1)
    with pytest.raises(ValueError, match="timing must be 'off', 'submission' or 'nodes', not 'bad'"):
        kiln.Context(timing="bad")
    with pytest.raises(TypeError, match="device must be"):
        kiln.Context(device=1.5)
    with pytest.raises(TypeError, match="context must be a kiln.Context"):
        kiln.zeros(3, context="default")


def test_select_device_replaces_the_default_context():
    old = kiln.default_context()
    old_array = kiln.asarray(np.arange(5, dtype=np.float32))
    ctx = kiln.select_device(0)  # the new default for the tests after this one too
    assert isinstance(ctx, kiln.Context) and kiln.default_context() == ctx and ctx != old
    assert kiln.zeros(3).context == ctx
    np.testing.assert_array_equal(old_array.get(), np.arange(5))  # the old context lives on with its arrays
    with pytest.raises(kiln.Error):
        kiln.select_device("no-such-gpu")
    assert kiln.default_context() == ctx  # unchanged by the failure
    no_messages(ctx)


def test_memory_stats_and_sync():
    s = kiln.memory_stats()
    for key in ["in_use", "peak", "reserved", "blocks", "allocations", "budget_available", "heaps"]:
        assert key in s
    assert s["peak"] >= s["in_use"] and s["reserved"] >= s["in_use"]
    assert all({"size", "in_use", "peak", "reserved"} <= set(h) for h in s["heaps"])
    assert kiln.memory_stats(kiln.default_context()).keys() == s.keys()
    kiln.sync()
    kiln.default_context().flush()


# -- profile, trace, benchmark -------------------------------------------------------

VADD = """#version 450
layout(local_size_x_id = 0) in;
layout(binding = 0) readonly buffer A { float v[]; } first;
layout(binding = 1) readonly buffer B { float v[]; } second;
layout(binding = 2) writeonly buffer Sum { float v[]; };
layout(push_constant) uniform P { uint n; float scale; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) v[i] = (first.v[i] + second.v[i]) * p.scale;
}
"""


def test_profile_and_trace(tmp_path, rng):
    ctx = own_context()
    x = kiln.asarray(random_array(rng, (33, 47), np.float32), context=ctx)
    ctx.clear_profile()
    for _ in range(3):
        y = kiln.gaussian_filter(x, sigma=2.0)
    y.get()
    stats = kiln.profile_stats(ctx)
    assert stats and all({"name", "count", "min", "median", "max", "mean", "std", "total"} <= set(s) for s in stats)
    assert all(s["min"] <= s["median"] <= s["max"] and s["count"] >= 1 for s in stats)
    assert max(s["count"] for s in stats) >= 3
    table = kiln.profile_table(ctx)
    assert all(s["name"] in table for s in stats)
    path = tmp_path / "trace.json"
    kiln.write_trace(str(path), ctx)
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    assert len(events) >= 3 and {s["name"] for s in stats} <= {e.get("name") for e in events}
    assert json.loads(ctx.chrome_trace())["traceEvents"]
    kiln.clear_profile(ctx)
    assert kiln.profile_stats(ctx) == []
    no_messages(ctx)


def test_profile_of_the_default_context():
    kiln.clear_profile()
    kiln.sum(np.ones(1000, np.float32))
    assert kiln.profile_stats() and kiln.profile_table()


def test_benchmark(rng):
    x = kiln.asarray(random_array(rng, (64, 64), np.float32))
    r = kiln.benchmark(kiln.gaussian_filter, (x,), {"sigma": 1.0}, n_repeat=4, n_warmup=1, name="gauss")
    assert isinstance(r, kiln.BenchmarkResult) and r.name == "gauss"
    assert r.cpu_times.shape == (4,) and r.gpu_times.shape == (4,)
    assert r.cpu_times.dtype == np.float64 and (r.cpu_times > 0).all() and (r.gpu_times >= 0).all()
    assert r.cpu_median_ms == pytest.approx(np.median(r.cpu_times) * 1e3)
    assert "gauss" in str(r) and str(r) == repr(r)
    assert kiln.benchmark(lambda: kiln.sum(x), n_repeat=2, n_warmup=0).name == "<lambda>"

    def boom():
        raise KeyError("from the benchmarked function")
    with pytest.raises(KeyError, match="from the benchmarked function"):
        kiln.benchmark(boom, n_repeat=2)


# -- graphs ----------------------------------------------------------------------------

def test_graph_capture_reruns_on_new_input(rng):
    host = random_array(rng, (21, 34), np.float32)
    x = kiln.asarray(host)
    g = kiln.Graph()
    with g.capture():
        y = kiln.gaussian_filter(x, sigma=1.5)
        z = kiln.multiply(y, 2.0)
    g.run()
    first = z.get()
    eager = kiln.multiply(kiln.gaussian_filter(host, sigma=1.5), 2.0).get()
    np.testing.assert_array_equal(first, eager)
    host2 = random_array(rng, (21, 34), np.float32)
    x.set(host2)
    g.run()
    np.testing.assert_array_equal(z.get(), kiln.multiply(kiln.gaussian_filter(host2, sigma=1.5), 2.0).get())
    assert not np.array_equal(z.get(), first)
    g.launch()
    np.testing.assert_array_equal(z.get(), kiln.multiply(kiln.gaussian_filter(host2, sigma=1.5), 2.0).get())
    stats = g.stats
    assert stats["nodes"] >= 2 and stats["levels"] >= 2


def test_graph_capture_broken_by_an_exception(rng):
    x = kiln.asarray(random_array(rng, (8, 9), np.float32))
    g = kiln.Graph()
    with pytest.raises(ZeroDivisionError):
        with g.capture():
            kiln.gaussian_filter(x, sigma=1.0)
            1 / 0
    with pytest.raises(kiln.InvalidArgument):
        g.run()
    # Capturing again makes it runnable.
    with g.capture():
        y = kiln.add(x, 1.0)
    g.run()
    np.testing.assert_array_equal(y.get(), x.get() + np.float32(1))
    # Pushes are refused during a capture.
    with pytest.raises(kiln.Error):
        with g.capture():
            kiln.asarray(np.ones(3, np.float32))


# -- user kernels ----------------------------------------------------------------------

def test_kernel_vector_add(rng):
    k = kiln.Kernel(VADD, name="py_vadd")
    assert k.name == "py_vadd" and k.tunable
    assert [b["name"] for b in k.bindings] == ["first", "second", "Sum"]  # instance names, else block names
    assert k.bindings[0]["readonly"] and k.bindings[2]["writeonly"]
    assert [(p["name"], p["type"]) for p in k.params] == [("n", "uint"), ("scale", "float")]
    assert "py_vadd" in repr(k) and "scale" in k.signature
    for n in [1, 13, 1031]:
        a, b = (kiln.asarray(random_array(rng, n, np.float32)) for _ in range(2))
        c = kiln.full(n, np.nan)
        k(a, b, c, n, 0.1, grid=n)  # 0.1 is rounded to the float member's type
        want = (a.get() + b.get()) * np.float32(0.1)  # an add, then a multiply: no FMA to contract
        np.testing.assert_array_equal(c.get(), want)
        d = kiln.full(n, np.nan)
        k(a, b, d, np.uint32(n), np.float32(2), groups=(n + k.local_size[0] - 1) // k.local_size[0])
        np.testing.assert_array_equal(d.get(), (a.get() + b.get()) * np.float32(2))
    kiln.clear_profile()
    k(a, b, c, n, 1.0, grid=n)
    kiln.sync()
    assert any(s["name"].startswith("py_vadd") for s in kiln.profile_stats())


def test_kernel_errors(rng):
    with pytest.raises(kiln.CompileError) as e:
        kiln.Kernel("#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undeclared = 1; }\n", name="bad")
    assert isinstance(e.value, ValueError) and isinstance(e.value, kiln.Error)
    assert "undeclared" in e.value.log and "ERROR" in e.value.log and "undeclared" in str(e.value)
    with pytest.raises(kiln.InvalidArgument, match="entry"):
        kiln.Kernel(VADD, entry="not_there")
    k = kiln.Kernel(VADD, name="py_vadd_errors")
    a = kiln.zeros(4)
    with pytest.raises(kiln.InvalidArgument, match="takes 3 arrays.*got 2 arguments"):
        k(a, a, grid=4)
    with pytest.raises(TypeError, match=r"'py_vadd_errors': argument 1 \(binding 'second'\) must be a kiln.Array"):
        k(a, np.zeros(4, np.float32), a, 4, 1.0, grid=4)
    with pytest.raises(kiln.InvalidArgument, match="fewer scalars"):
        k(a, a, a, 4, 1.0, 7, grid=4)
    with pytest.raises(TypeError, match=r"'scale' \(float\) takes a number, not 'x'"):
        k(a, a, a, 4, "x", grid=4)
    with pytest.raises(kiln.Error, match="n"):
        k(a, a, a, 1.5, 1.0, grid=4)  # a float for the uint member
    with pytest.raises(kiln.Error, match="n"):
        k(a, a, a, -1, 1.0, grid=4)  # outside uint's range
    for big in [2**70, -2**70]:  # beyond any integer member: named, not a pybind11 cast error
        with pytest.raises(kiln.InvalidArgument, match="'n' \\(uint\\)"):
            k(a, a, a, big, 1.0, grid=4)
    with pytest.raises(kiln.InvalidArgument, match="grid"):
        k(a, a, a, 4, 1.0, grid=-1)
    with pytest.raises(kiln.InvalidArgument, match="groups"):
        k(a, a, a, 4, 1.0, groups=2**40)  # not truncated to 32 bits
    with pytest.raises(TypeError, match="grid extents must be whole numbers, not 2.5"):
        k(a, a, a, 4, 1.0, grid=2.5)
    k(a, a, a, np.int64(4), 1.0, grid=np.int64(4))  # NumPy integers are whole numbers
    k(a, a, a, 4, 1.0, grid=(np.uint32(4), 1))
    with pytest.raises(kiln.InvalidArgument, match="grid= .* or groups="):
        k(a, a, a, 4, 1.0)
    with pytest.raises(kiln.InvalidArgument, match="grid= .* or groups="):
        k(a, a, a, 4, 1.0, grid=4, groups=1)
    with pytest.raises(kiln.InvalidArgument, match="scale|set"):
        k(a, a, a, 4, grid=4)  # a member not set
    with pytest.raises(kiln.IoError):
        kiln.Kernel.from_file("/nonexistent/kernel.comp")


def test_tune_a_user_kernel():
    k = kiln.Kernel("""#version 450
layout(local_size_x_id = 0) in;
layout(binding = 0) buffer X { uint x[]; };
layout(push_constant) uniform P { uint n; } p;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) x[i] += i; }
""", name="py_tune_me")
    x = kiln.zeros(1031, np.uint32)
    r = kiln.tune(k.name, k, (x, 1031), {"grid": 1031}, sizes=[(16, 1, 1), (128, 1, 1)], repeats=2, persist=False)
    assert r["kernel"] == "py_tune_me" and len(r["table"]) == 2
    assert tuple(r["best"]) in [(16, 1, 1), (128, 1, 1)] and tuple(k.local_size) == tuple(r["best"])
    assert all(e["ok"] for e in r["table"])
    got = x.get().astype(np.int64)
    runs = got[1] if got.size > 1 else 0
    assert runs >= 4 and np.array_equal(got, runs * np.arange(1031))  # each run added i once


# -- errors ----------------------------------------------------------------------------

def test_error_classes():
    assert issubclass(kiln.InvalidArgument, kiln.Error) and issubclass(kiln.InvalidArgument, ValueError)
    assert issubclass(kiln.CompileError, kiln.Error) and issubclass(kiln.CompileError, ValueError)
    assert issubclass(kiln.Unsupported, kiln.Error) and issubclass(kiln.Unsupported, RuntimeError)
    assert issubclass(kiln.VulkanError, kiln.Error) and issubclass(kiln.VulkanError, RuntimeError)
    assert issubclass(kiln.OutOfMemory, kiln.Error) and issubclass(kiln.OutOfMemory, MemoryError)
    assert issubclass(kiln.IoError, kiln.Error) and issubclass(kiln.IoError, OSError)
    assert issubclass(kiln.Error, Exception)
    # The message is kiln's own text.
    with pytest.raises(kiln.InvalidArgument) as e:
        kiln.gaussian_filter(np.ones((3, 3), np.float32), sigma=1, mode="sideways")
    assert "gaussian_filter: argument 'mode' is 'sideways'; accepted: reflect, constant" in str(e.value)
    with pytest.raises(kiln.IoError, match="unknown file type; kiln reads and writes .npy"):
        kiln.read_array("image.xyz")
    # Too large for a device: Unsupported or OutOfMemory, never a crash.
    with pytest.raises((kiln.OutOfMemory, kiln.Unsupported, kiln.InvalidArgument)):
        kiln.empty((1 << 20, 1 << 20, 1 << 10))


# -- threads and the GIL ------------------------------------------------------------------

# Each invocation iterates 60000 times: lavapipe (llvmpipe) stops any loop
# after 65535 iterations, so the work grows with the number of invocations.
BUSY = """#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer X { float x[]; };
void main() {
    float v = x[gl_GlobalInvocationID.x];
    for (uint k = 0u; k < 60000u; ++k) v = v * 0.999999 + 1.0;
    x[gl_GlobalInvocationID.x] = v;
}
"""


WAITS = {
    "get": lambda x, tmp: x.get(),
    "numpy.asarray": lambda x, tmp: np.asarray(x),
    "sum": lambda x, tmp: kiln.sum(x),
    "median": lambda x, tmp: kiln.median(x),
    "sync": lambda x, tmp: kiln.sync(),
    "write_array": lambda x, tmp: kiln.write_array(str(tmp / "busy.npy"), x),
}
BUSY_SIZE = [16]  # invocations that keep lavapipe busy for 50 ms, found once


@pytest.mark.parametrize("wait", WAITS)
def test_gil_is_released_while_kiln_waits(tmp_path, wait):
    """A second thread counts while the main thread waits in kiln. The switch
    interval is made huge, so the main thread never hands the GIL over on its
    own: the counter moves during the wait only if kiln released the GIL
    (the counting thread hands it back every 100 counts)."""
    k = kiln.Kernel(BUSY, name="py_busy")
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1
            if count[0] % 100 == 0:
                time.sleep(0)  # releases the GIL

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    t = threading.Thread(target=spin)
    t.start()
    try:
        before, t0 = count[0], time.perf_counter()
        time.sleep(0.02)  # releases the GIL: the counter's rate when it runs freely
        rate = (count[0] - before) / (time.perf_counter() - t0)
        while True:
            n = BUSY_SIZE[0]
            x = kiln.zeros(n)
            k(x, grid=n)  # recorded; the call below waits for it
            before, t0 = count[0], time.perf_counter()
            WAITS[wait](x, tmp_path)
            elapsed, during = time.perf_counter() - t0, count[0] - before
            if elapsed >= 0.05 or n >= 1 << 24:
                break
            BUSY_SIZE[0] = n * 4
        # Released, the counter keeps a good part of its free rate (it shares
        # the cores with lavapipe's threads); held, it moves only while kiln
        # is outside the wait (under 2% of it measured for write_array).
        assert elapsed >= 0.05 and during >= 0.1 * rate * elapsed, (n, elapsed, during, rate)
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(interval)


def test_threads_run_kiln_ops_concurrently(rng):
    inputs = [random_array(rng, (40, 57), np.float32) for _ in range(4)]
    want = [(kiln.gaussian_filter(x, sigma=1.5).get(), kiln.sum(x), kiln.median(x)) for x in inputs]
    barrier = threading.Barrier(len(inputs))
    errors = []

    def work(i):
        try:
            barrier.wait()
            for _ in range(5):
                a = kiln.asarray(inputs[i])
                g = kiln.gaussian_filter(a, sigma=1.5)
                np.testing.assert_array_equal(g.get(), want[i][0])
                assert kiln.sum(a) == want[i][1] and kiln.median(a) == want[i][2]
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


# -- files ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ext", [".npy", ".fits"])
def test_read_write_array_round_trip(tmp_path, rng, dtype, ext):
    for shape in [(7,), (5, 13), (3, 4, 9)]:
        x = random_array(rng, shape, dtype)
        if np.dtype(dtype).kind != "f":
            info = np.iinfo(dtype)
            x.flat[:2] = [info.min, info.max]
        path = str(tmp_path / f"a{len(shape)}{ext}")
        kiln.write_array(path, x)
        back = kiln.read_array(path)
        assert back.dtype == np.dtype(dtype) and back.shape == shape
        np.testing.assert_array_equal(back, x)
        kiln.write_array(path, kiln.asarray(x))  # a kiln.Array too
        np.testing.assert_array_equal(kiln.read_array(path), x)
    if ext == ".npy":
        np.testing.assert_array_equal(np.load(path), x)  # NumPy reads kiln's files


def test_png_round_trip(tmp_path, rng):
    img = rng.integers(0, 256, (13, 37)).astype(np.uint8)
    img.flat[:2] = [0, 255]  # the linear stretch's range is 0..255: levels unchanged
    path = str(tmp_path / "img.png")
    kiln.write_array(path, img)
    back = kiln.read_array(path)
    assert back.dtype == np.uint8
    np.testing.assert_array_equal(back, img)
    f = random_array(rng, (9, 11), np.float32)
    kiln.write_array(path, f)
    levels = np.rint(255 * (f.astype(np.float64) - f.min()) / (f.max() - f.min()))
    np.testing.assert_array_equal(kiln.read_array(path), levels.astype(np.uint8))
    with pytest.raises(kiln.IoError, match="2-D"):
        kiln.write_array(path, np.zeros(5, np.uint8))


def test_file_errors(tmp_path):
    with pytest.raises(kiln.IoError):
        kiln.read_array(str(tmp_path / "missing.npy"))
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"not an npy file")
    with pytest.raises(OSError):
        kiln.read_array(str(bad))
    with pytest.raises(kiln.IoError, match="unknown file type"):
        kiln.write_array(str(tmp_path / "a.txt"), np.zeros(3))


def border_strip(a):
    b = a.shape[0] // 16
    m = np.zeros(a.shape, bool)
    m[:b], m[-b:], m[:, :b], m[:, -b:] = True, True, True, True
    return a[m]


def test_synthetic_sky():
    a = kiln.synthetic_sky(size=128, n_compact=10, n_shells=1, seed=3)
    assert a.shape == (128, 128) and a.dtype == np.float32
    np.testing.assert_array_equal(a, kiln.synthetic_sky(size=128, n_compact=10, n_shells=1, seed=3))
    assert not np.array_equal(a, kiln.synthetic_sky(size=128, n_compact=10, n_shells=1, seed=4))
    assert a.max() > 100 * 0.013  # the bright core
    # Without sources the border strip (size/16 px) is Gaussian noise of the given sigma.
    border = border_strip(kiln.synthetic_sky(size=256, noise_sigma=0.02, n_compact=0, n_shells=0, seed=5))
    assert abs(np.std(border) / 0.02 - 1) < 0.05 and abs(np.mean(border)) < 0.05 * 0.02
    with pytest.raises(kiln.InvalidArgument):
        kiln.synthetic_sky(size=8)
    with pytest.raises(kiln.InvalidArgument):
        kiln.synthetic_sky(size=64, noise_sigma=0)


@pytest.mark.xfail(strict=True, reason="engine bug: compact sources keep their centres size/16 px from the "
                   "edges but their Gaussians (drawn out to 5 widths, up to 15 px) spill into the border strip "
                   "that kiln/sky.hpp says holds noise alone (engine/host/sky.cpp, add_compact_sources)")
def test_synthetic_sky_border_strip_holds_noise_alone():
    border = border_strip(kiln.synthetic_sky(size=256, n_compact=40, n_shells=0, seed=3))
    # ~3800 samples of N(0, sigma): |v| > 6 sigma has probability 2e-9 each.
    assert np.abs(border).max() < 6 * 0.013


# -- frame stacks and bitshuffle-LZ4 --------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.uint32, np.float32, np.float64])
def test_frame_stack_decoded_on_the_gpu(tmp_path, rng, dtype):
    rows, cols = 13, 37
    frames = [random_array(rng, (rows, cols), dtype) for _ in range(4)]
    frames[1][:] = 0  # compresses to almost nothing
    path = str(tmp_path / "stack.h5")
    with kiln.FrameStackWriter(path, rows, cols, dtype) as w:
        for f in frames:
            w.write_frame(f)
    stack = kiln.FrameStack(path)
    assert stack.frames == 4 and stack.shape == (4, rows, cols) and stack.dtype == np.dtype(dtype)
    assert stack.is_bslz4
    for i, f in enumerate(frames):
        np.testing.assert_array_equal(stack.read_frame(i), f)
    all_frames = stack.to_device()
    assert isinstance(all_frames, kiln.Array) and all_frames.shape == (4, rows, cols)
    np.testing.assert_array_equal(all_frames.get(), np.stack(frames))
    np.testing.assert_array_equal(stack.to_device(1, 2).get(), np.stack(frames[1:3]))
    chunks = [stack.read_chunk(i) for i in range(4)]
    assert all(isinstance(c, bytes) for c in chunks)
    decoded = kiln.decode_bslz4(chunks, (rows, cols), dtype)
    np.testing.assert_array_equal(decoded.get(), np.stack(frames))
    np.testing.assert_array_equal(kiln.decode_bslz4(chunks[2:3], (rows, cols), dtype).get(), frames[2][None])
    with pytest.raises(kiln.InvalidArgument, match="frames"):
        stack.to_device(3, 2)


def test_frame_stack_errors(tmp_path, rng):
    path = str(tmp_path / "plain.h5")
    frame = random_array(rng, (5, 6), np.uint16)
    with kiln.FrameStackWriter(path, 5, 6, np.uint16, bslz4=False) as w:
        w.write_frame(frame)
        with pytest.raises(kiln.InvalidArgument):
            w.write_frame(np.zeros((6, 5), np.uint16))
    stack = kiln.FrameStack(path)
    assert not stack.is_bslz4
    np.testing.assert_array_equal(stack.read_frame(0), frame)
    with pytest.raises(kiln.InvalidArgument, match="read_frame"):
        stack.to_device()
    with pytest.raises(kiln.IoError):
        kiln.FrameStack(str(tmp_path / "missing.h5"))
    # An exception inside the with block discards the file.
    broken = tmp_path / "broken.h5"
    with pytest.raises(ZeroDivisionError):
        with kiln.FrameStackWriter(str(broken), 5, 6, np.uint16) as w:
            w.write_frame(frame)
            1 / 0
    del w
    assert not broken.exists()
    with pytest.raises(kiln.InvalidArgument, match="no chunks"):
        kiln.decode_bslz4([], (5, 6), np.uint16)
    with pytest.raises(kiln.Error):
        kiln.decode_bslz4([b"garbage bytes that are no chunk"], (5, 6), np.uint16).get()


# -- azimuthal integration ------------------------------------------------------------------

GEOMETRY = dict(shape=(37, 45), pixel1=100e-6, pixel2=120e-6, dist=0.05, poni1=1.3e-3, poni2=2.9e-3)


def numpy_integration(frame, bins, mask=None, radial_range=None, dark=None, flat=None):
    """No pixel splitting, rot = 0: 2theta at each pixel centre from the
    PONI geometry, bins of equal width over [lo, hi] (the unmasked pixels'
    extent unless given; hi in the last bin), per-bin sums by bincount of
    kiln/reference/integrate.hpp's terms: signal frame - dark, normalization
    flat (1 without), Poisson variance max(frame, 1) + dark."""
    rows, cols = GEOMETRY["shape"]
    d1 = (np.arange(rows) + 0.5) * GEOMETRY["pixel1"] - GEOMETRY["poni1"]
    d2 = (np.arange(cols) + 0.5) * GEOMETRY["pixel2"] - GEOMETRY["poni2"]
    r = np.hypot(d1[:, None], d2[None, :])
    tth = np.degrees(np.arctan2(r, GEOMETRY["dist"])).ravel()
    use = np.ones(tth.size, bool) if mask is None else mask.ravel() == 0
    lo, hi = (tth[use].min(), tth[use].max()) if radial_range is None else radial_range
    width = (hi - lo) / bins
    use &= (tth >= lo) & (tth <= hi)
    k = np.minimum(np.floor((tth - lo) / width), bins - 1).astype(np.int64)
    f = frame.astype(np.float64).ravel()
    dk = np.zeros_like(f) if dark is None else dark.astype(np.float64).ravel()
    norm = np.ones_like(f) if flat is None else flat.astype(np.float64).ravel()

    def per_bin(values):
        return np.bincount(k[use], values[use], minlength=bins)
    return dict(radial=lo + (np.arange(bins) + 0.5) * width, count=per_bin(np.ones_like(f)),
                sum_signal=per_bin(f - dk), sum_normalization=per_bin(norm),
                sum_variance=per_bin(np.maximum(f, 1) + dk))


def check_profile(got, want, empty=0.0):
    """kiln's float32 results against float64 NumPy sums: a sum rounded to
    float32 once, a quotient of two such sums (and a square root) rounded
    again: at most 4 units of float32 rounding."""
    np.testing.assert_allclose(got["radial"], want["radial"], rtol=1e-12)
    np.testing.assert_array_equal(got["count"], want["count"])  # small whole numbers: exact
    for key in ["sum_signal", "sum_normalization", "sum_variance"]:
        np.testing.assert_allclose(got[key], want[key], rtol=EPS32, atol=0, err_msg=key)
    filled = want["count"] > 0
    assert filled.sum() > 3  # the test means something
    with np.errstate(invalid="ignore", divide="ignore"):
        intensity = np.where(filled, want["sum_signal"] / want["sum_normalization"], empty)
        sem = np.where(filled, np.sqrt(want["sum_variance"]) / want["sum_normalization"], empty)
    np.testing.assert_allclose(got["intensity"], intensity, rtol=4 * EPS32, atol=0)
    np.testing.assert_allclose(got["sem"], sem, rtol=4 * EPS32, atol=0)
    np.testing.assert_array_equal(got["sigma"], got["sem"])


@pytest.mark.parametrize("dtype", [np.float32, np.uint16, np.int32])
def test_azimuthal_integration_matches_numpy(rng, dtype):
    frame = np.abs(random_array(rng, GEOMETRY["shape"], dtype))
    ai = kiln.AzimuthalIntegrator(**GEOMETRY, npt=25, unit="2th_deg", empty=-1.0)
    assert ai.bins == 25 and ai.pixels == frame.size and ai.nnz == frame.size
    res = ai.integrate(frame)
    assert isinstance(res, kiln.AzimuthalResult) and isinstance(res.intensity, kiln.Array)
    assert res.intensity.dtype == np.float32 and res.intensity.shape == (25,)
    got = res.to_host()
    check_profile(got, numpy_integration(frame, 25), empty=-1.0)
    np.testing.assert_allclose(res.radial, got["radial"], rtol=0)
    np.testing.assert_array_equal(res.intensity.get(), got["intensity"].astype(np.float32))


def test_azimuthal_integration_stack_mask_range_dark_flat(rng):
    frames = np.abs(random_array(rng, (3,) + GEOMETRY["shape"], np.float32))
    mask = (rng.random(GEOMETRY["shape"]) < 0.2).astype(np.uint8)
    dark = rng.integers(0, 5, GEOMETRY["shape"]).astype(np.uint16)
    flat = (0.5 + rng.random(GEOMETRY["shape"])).astype(np.float32)
    ai = kiln.AzimuthalIntegrator(**GEOMETRY, npt=17, unit="2th_deg", mask=mask, radial_range=(1.0, 5.0),
                                  dark=dark, flat=flat)
    res = ai.integrate(frames)
    assert res.intensity.shape == (3, 17)
    for i in range(3):
        check_profile(res.to_host(i), numpy_integration(frames[i], 17, mask, (1.0, 5.0), dark, flat))
    with pytest.raises(kiln.InvalidArgument):
        ai.integrate(np.ones((5, 5), np.float32))
    with pytest.raises(kiln.InvalidArgument, match="unit"):
        kiln.AzimuthalIntegrator(**GEOMETRY, unit="r_pm")
    with pytest.raises(kiln.InvalidArgument, match="error_model"):
        kiln.AzimuthalIntegrator(**GEOMETRY, error_model="gauss")
    with pytest.raises(kiln.InvalidArgument, match="rows, cols"):
        kiln.AzimuthalIntegrator(**dict(GEOMETRY, shape=(3, 4, 5)))


def test_azimuthal_q_unit_and_sigma_clip(rng):
    frame = np.abs(random_array(rng, GEOMETRY["shape"], np.float32)) + 1
    ai = kiln.AzimuthalIntegrator(**GEOMETRY, npt=12, wavelength=1e-10)  # q in nm^-1
    got = ai.integrate(frame).to_host()
    # q = 4 pi sin(2theta / 2) / wavelength, in nm^-1: bin centres span the pixels' q.
    rows, cols = GEOMETRY["shape"]
    d1 = (np.arange(rows) + 0.5) * GEOMETRY["pixel1"] - GEOMETRY["poni1"]
    d2 = (np.arange(cols) + 0.5) * GEOMETRY["pixel2"] - GEOMETRY["poni2"]
    tth = np.arctan2(np.hypot(d1[:, None], d2[None, :]), GEOMETRY["dist"])
    q = 4 * np.pi * np.sin(tth / 2) / 1e-10 * 1e-9
    width = (q.max() - q.min()) / 12
    np.testing.assert_allclose(got["radial"], q.min() + (np.arange(12) + 0.5) * width, rtol=1e-12)
    assert got["count"].sum() == frame.size
    clipped = ai.sigma_clip(frame, kappa=2.0, max_iter=3).to_host()
    assert (clipped["count"] <= got["count"]).all() and clipped["count"].sum() < frame.size


def test_empty_pinned_arrays_push_and_pull():
    p = kiln.empty_pinned((3, 7), np.int16)
    assert isinstance(p, np.ndarray) and p.shape == (3, 7) and p.dtype == np.int16 and p.flags.c_contiguous
    p[...] = np.arange(21, dtype=np.int16).reshape(3, 7) - 10
    a = kiln.asarray(p)
    q = kiln.empty_pinned((3, 7), np.int16)
    assert (a * 2).get(out=q) is q
    np.testing.assert_array_equal(q, (np.arange(21, dtype=np.int16).reshape(3, 7) - 10) * 2)
    a.set(q)
    np.testing.assert_array_equal(a.get(), q)
    with pytest.raises(kiln.InvalidArgument, match="positive"):
        kiln.empty_pinned((0, 3))
