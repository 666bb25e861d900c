"""kiln: GPU arrays and images through Vulkan compute, from Python.

    import numpy as np, kiln
    a = kiln.asarray(np.random.rand(512, 512).astype(np.float32))  # push
    b = kiln.gaussian_filter(a, sigma=2.0)                          # on the GPU
    print(b.get()[:2, :2], kiln.sum(b))                             # pull

Arrays have 1 to 3 dimensions in (z, y, x) order and hold float32 (the
default), float64, int8, uint8, int16, uint16, int32 or uint32. NumPy bool
is stored as uint8, float16 as float32, int64/uint64 as int32/uint32 when
the values fit.

Every op of kiln's manifest is a function here with SciPy's or NumPy's
name and keyword arguments (kiln.ops() lists them); label, measure,
histogram, bincount, percentile, kappa_sigma_clip, the azimuthal
integrator and the bitshuffle-LZ4 decoder are written by hand, as are the
pipeline forms that keep results on the device (kappa_sigma_clip_async,
label_async, measure_async: one read-back for the whole astronomy chain).

Ops record GPU work and return at once; a.get(), numpy.asarray(a), a
number result, or kiln.sync() waits. The GIL is released while kiln records
or waits, so other threads run. Threads: a context may be used from several
threads (kiln orders the calls); use one Array from one thread at a time.
Errors are kiln.Error subclasses that are also ValueError (InvalidArgument,
CompileError), RuntimeError (Unsupported, VulkanError), MemoryError
(OutOfMemory) or OSError (IoError).
"""
import atexit as _atexit
import time as _time

import numpy as _np

from . import _kiln
from . import _ops
from ._pyfai import Integrator, Result as IntegrationResult, load  # noqa: F401  (pyFAI-style integration)
from ._kiln import (  # noqa: F401  (the public names)
    Array, AzimuthalIntegrator, AzimuthalResult, BenchmarkResult, CompileError, Context, DeviceInfo, Error,
    FrameStack, FrameStackWriter, Graph, detector, detector_names, read_poni, InvalidArgument, IoError, Kernel, OutOfMemory, Unsupported, VulkanError,
    decode_bslz4, default_context, devices, empty_pinned, read_array, select_device, synthetic_sky, write_array,
    ClipAsync, LabelsAsync, MeasureAsync, kappa_sigma_clip_async, label_async, measure_async,
)

__version__ = _kiln.__version__

# The default context goes before the interpreter unloads the driver.
_atexit.register(_kiln._release_default_context)

# Hand-written below; every other manifest entry becomes a function.
_HAND_WRITTEN = {"full", "copy"}
globals().update(_ops.make_functions(skip=_HAND_WRITTEN))


def ops():
    """The names of the manifest's ops, as functions of this module."""
    return [e["name"] for e in _kiln.manifest() if e["name"] not in _HAND_WRITTEN] + ["full", "copy"]


# -- arrays ------------------------------------------------------------------

def asarray(obj, dtype=None, *, context=None):
    """A kiln.Array of obj: a kiln.Array as it is (converted when dtype
    differs), anything else through numpy.asarray, pushed to the device."""
    return _kiln._push(obj, dtype, context)


push = asarray


def pull(a):
    """a.get(): waits for the GPU and returns a NumPy array."""
    return asarray(a).get()


def empty(shape, dtype=_np.float32, *, context=None):
    """An uninitialised array; shape is an int or 1 to 3 ints (z, y, x)."""
    return _kiln._create(shape, dtype, "empty", 0.0, context)


create = empty  # pyclesperanto's name


def zeros(shape, dtype=_np.float32, *, context=None):
    return _kiln._create(shape, dtype, "zeros", 0.0, context)


def full(shape, fill_value, dtype=_np.float32, *, context=None):
    """Every element fill_value, converted to dtype as kiln's cast does."""
    return _kiln._create(shape, dtype, "full", float(fill_value), context)


def ones(shape, dtype=_np.float32, *, context=None):
    return full(shape, 1.0, dtype, context=context)


def empty_like(a, dtype=None):
    return empty(a.shape, a.dtype if dtype is None else dtype, context=_context_of(a))


def zeros_like(a, dtype=None):
    return zeros(a.shape, a.dtype if dtype is None else dtype, context=_context_of(a))


def full_like(a, fill_value, dtype=None):
    return full(a.shape, fill_value, a.dtype if dtype is None else dtype, context=_context_of(a))


def copy(a):
    """A copy of a in new device memory."""
    return asarray(a).copy()


def _context_of(a):
    return a.context if isinstance(a, Array) else None


# -- ops with results of their own shape -------------------------------------

def _connectivity(structure, ndim):
    """kiln's neighbour count for a SciPy structuring element."""
    s = _np.asarray(structure).astype(bool)
    if s.ndim != ndim or any(n != 3 for n in s.shape):
        raise InvalidArgument(f"structure must be a 3-wide array of the input's rank {ndim}, got shape {s.shape}")
    for rank in range(1, ndim + 1):
        # scipy.ndimage.generate_binary_structure(ndim, rank), written out
        grid = _np.indices((3,) * ndim) - 1
        ref = _np.abs(grid).sum(axis=0) <= rank
        if _np.array_equal(s, ref):
            return {1: {1: 2}, 2: {1: 4, 2: 8}, 3: {1: 6, 2: 18, 3: 26}}[ndim][rank]
    raise InvalidArgument("kiln labels with the structures of scipy.ndimage.generate_binary_structure(ndim, "
                          "rank) only (faces, edges, corners); this structure is not one")


def label(input, structure=None, *, connectivity=None):
    """scipy.ndimage.label: (labels, n), labels an int32 kiln.Array numbered
    1..n in raster order of each component's first pixel.

    structure: as SciPy's (generate_binary_structure(ndim, 1) by default);
    or connectivity: the neighbour count, 2 (1-D), 4 or 8 (2-D), 6, 18 or
    26 (3-D). Nonzero (and NaN) is foreground."""
    a = asarray(input)
    if structure is not None and connectivity is not None:
        raise TypeError("label: give structure or connectivity, not both")
    if structure is not None:
        connectivity = _connectivity(structure, a.ndim)
    return _kiln.label(a, connectivity or 0)


def measure(image, labels, index=None, n=None):
    """Per-label statistics as a dict of NumPy columns: label, count, sum,
    mean, variance, std, min, max (n,), and min_pos, max_pos,
    center_of_mass, bbox_start, bbox_stop (n, ndim), as scipy.ndimage's
    sum_labels/mean/variance/standard_deviation/minimum/maximum/
    minimum_position/center_of_mass/find_objects. Labels 1..max(labels), or
    those of index in its order; with n (label's count, labels int32)
    labels 1..n without searching for the largest. NaN pixels are skipped."""
    return _kiln.measure(image, labels, index, n)


def histogram(a, bins=10, range=None):
    """numpy.histogram: (counts, edges), counts a uint32 kiln.Array (lazy:
    .get() pulls it) and edges a float64 NumPy array of bins + 1 values."""
    if not isinstance(bins, (int, _np.integer)):
        raise TypeError("histogram: bins must be a whole number (kiln bins are equal-width)")
    return _kiln.histogram(a, int(bins), None if range is None else (float(range[0]), float(range[1])))


def bincount(x, minlength=0):
    """numpy.bincount of an integer array: a uint32 kiln.Array."""
    return _kiln.bincount(x, int(minlength))


def percentile(a, q):
    """numpy.percentile(a, q) over all elements (method 'linear'): a float
    for a number q, a float64 NumPy array for a sequence."""
    if _np.ndim(q) == 0:
        return float(_kiln.percentiles(a, [float(q)])[0])
    return _kiln.percentiles(a, [float(v) for v in _np.ravel(q)]).reshape(_np.shape(q))


def quantile(a, q):
    """numpy.quantile: percentile(a, 100 q)."""
    return percentile(a, _np.multiply(q, 100.0))


class ClipResult(dict):
    """kappa_sigma_clip's result: median, std, mean, count, iterations and
    mask (a uint8 kiln.Array or None), as keys and attributes."""
    __getattr__ = dict.__getitem__


def kappa_sigma_clip(a, kappa=3.0, max_iters=100, return_mask=False):
    """Clips to median +- kappa * std until a pass removes nothing (the
    lesson's loop, on the GPU); NaN and infinities are ignored."""
    return ClipResult(_kiln.kappa_sigma_clip(a, float(kappa), int(max_iters), bool(return_mask)))


def primes(upper, method="sieve", *, context=None):
    """The primes below upper as a uint32 NumPy array ('sieve' or
    'trial_division', the CUDA lesson's)."""
    return _kiln.primes(int(upper), method, context)


def prime_flags(upper, method="sieve", *, context=None):
    """uint8 kiln.Array: 1 where the index is prime, for 0..upper-1."""
    return _kiln.prime_flags(int(upper), method, context)


# -- the runtime ---------------------------------------------------------------

def sync(context=None):
    """Submits pending work and waits for it (the default context unless named)."""
    (context or default_context()).sync()


def memory_stats(context=None):
    """Bytes in use, peak and reserved, per heap and in all (a dict)."""
    return (context or default_context()).memory_stats()


def profile_table(context=None):
    """Per-kernel GPU times so far: count, min, median, max, mean, std (ms)."""
    return (context or default_context()).profile_table()


def profile_stats(context=None):
    return (context or default_context()).profile_stats()


def write_trace(path, context=None):
    """Writes a Chrome trace (Perfetto) of the GPU work kept in the profile."""
    (context or default_context()).write_trace(path)


def clear_profile(context=None):
    (context or default_context()).clear_profile()


def benchmark(func, args=(), kwargs=None, n_repeat=10, n_warmup=3, name=None, *, context=None):
    """Times func(*args, **kwargs) as cupyx.profiler.benchmark does: n_warmup
    untimed runs, then n_repeat runs each followed by a sync. The result's
    cpu_times and gpu_times (timestamp queries) are in seconds."""
    kwargs = kwargs or {}
    label = name or getattr(func, "__name__", "function")
    return _kiln.benchmark(lambda: func(*args, **kwargs), int(n_repeat), int(n_warmup), label, context)


def tune(kernel, func, args=(), kwargs=None, sizes=None, repeats=10, persist=True, *, context=None):
    """Times workgroup sizes of a kernel (built-in or kiln.Kernel name) running
    func(*args, **kwargs), keeps the fastest on the context (and on disk
    when persist); returns the table."""
    kwargs = kwargs or {}
    return _kiln.tune(kernel, lambda: func(*args, **kwargs), sizes, int(repeats), bool(persist), context)
