#!/usr/bin/env python3
"""pyclesperanto's GPU-arrays walk-through with kiln: list the devices and
select one, create arrays on the device, push NumPy arrays to it and pull
them back, the dtypes an array may hold, memory in use before and after,
and arithmetic and comparison operators; each checked against NumPy, with
the transfer rates and the operators' GPU times beside NumPy's."""
import numpy as np

import kiln
import _lesson

SIZES = {"small": (512, 512), "lesson": (4096, 4096)}
DTYPES = [np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]


def mib(n):
    return f"{n / 2**20:.1f} MiB"


def memory(what):
    s = kiln.memory_stats()
    print(f"  memory {what}: {mib(s['in_use'])} in use, peak {mib(s['peak'])}, {mib(s['reserved'])} reserved "
          f"in {s['blocks']} block(s), {s['allocations']} allocation(s)")
    return s["in_use"]


def devices(spec):
    print("devices (kiln.devices()):")
    for d in kiln.devices():
        print(f"  [{d.index}] {d.name} ({d.type}), {mib(d.memory)} device-local, "
              f"arrays up to {mib(d.max_storage_buffer_range)} per binding")
    ctx = _lesson.open_device(spec)
    d = ctx.device
    print(f"  float64 {'yes' if d.float64 else 'no'}, subgroup size {d.subgroup_size}, "
          f"{d.max_shared_memory // 1024} KiB shared memory per workgroup")


def create_push_pull(shape, repeat, rng, checks):
    print(f"\ncreate, push and pull a {shape[0]} x {shape[1]} float32 image")
    empty = kiln.create(shape)  # uninitialised, as cle.create
    print(f"  kiln.create{shape}: shape {empty.shape}, dtype {empty.dtype}, {empty.size} elements, "
          f"{mib(empty.nbytes)}")
    checks.equal("kiln.zeros", kiln.zeros(shape).get(), np.zeros(shape, np.float32))
    checks.equal("kiln.full", kiln.full(shape, 7.5).get(), np.full(shape, 7.5, np.float32))
    host = rng.random(shape, dtype=np.float32)

    def push_and_wait():
        a = kiln.push(host)
        kiln.sync()  # the copy to the device may still be under way
        return a

    push, a = _lesson.cpu_ms(push_and_wait, repeat)
    pull, back = _lesson.cpu_ms(lambda: kiln.pull(a), repeat)
    copy, _ = _lesson.cpu_ms(lambda: host.copy(), repeat)
    rate = host.nbytes / 1e6
    print(f"  push {push:.3f} ms ({rate / push:.2f} GB/s), pull {pull:.3f} ms ({rate / pull:.2f} GB/s); "
          f"NumPy copy in host memory {copy:.3f} ms ({rate / copy:.2f} GB/s)")
    checks.equal("push then pull", back, host)


def dtypes(rng, checks):
    print("\ndtypes: each pushed and pulled, and converted on the device (astype)")
    # Whole numbers in int8's range: every conversion between these dtypes
    # is exact, so NumPy's astype is the reference for kiln's cast.
    values = rng.integers(-128, 128, 1000).astype(np.float32)
    for t in DTYPES:
        want = values.astype(t) if np.dtype(t).kind != "u" else np.abs(values).astype(t)
        a = kiln.push(want)
        got = [a.get(), a.astype(np.float32).get(), kiln.push(want.astype(np.float32)).astype(t).get()]
        checks.equal(f"{np.dtype(t).name:7s} push and pull, astype to and from float32",
                     np.concatenate(got).astype(np.float64),
                     np.concatenate([want, want.astype(np.float32), want]).astype(np.float64))
    print("  NumPy dtypes kiln lacks are stored as documented:")
    for host in (np.array([True, False]), np.array([1.5], np.float16), np.array([-3, 3], np.int64)):
        print(f"    {host.dtype} -> {kiln.push(host).dtype}")


def operators(shape, repeat, rng, checks):
    print("\noperators on two float32 images, against NumPy's")
    x = rng.random(shape, dtype=np.float32) + 0.5
    y = rng.random(shape, dtype=np.float32) + 0.5
    a, b = kiln.push(x), kiln.push(y)
    # +, -, * and comparisons are correctly rounded (exact) in Vulkan and
    # NumPy alike; division may be 2.5 ulp off in Vulkan: rtol 3e-7 (2.5 ulp
    # of float32 at 1.19e-7 each).
    cases = [("a + b", lambda p, q: p + q), ("a - b", lambda p, q: p - q), ("a * b", lambda p, q: p * q),
             ("2 * a - 1", lambda p, q: 2 * p - 1), ("-a", lambda p, q: -p), ("a > b", lambda p, q: p > q),
             ("a <= b", lambda p, q: p <= q)]
    for name, op in cases:
        want = op(x, y)
        checks.equal(name, op(a, b).get(), want.astype(np.uint8) if want.dtype == bool else want)
    checks.close("a / b", (a / b).get(), x / y, 3e-7, 0, "Vulkan allows division 2.5 ulp off")
    checks.close("kiln.sum(a)", kiln.sum(a), np.sum(x, dtype=np.float64), 1e-6, 0,
                 "float32 sums in another order than NumPy's")
    cpu, _ = _lesson.cpu_ms(lambda: x + y, repeat)
    gpu, _ = _lesson.gpu_ms(lambda: a + b, repeat, "a + b")
    print(f"  a + b: NumPy {cpu:.3f} ms, GPU {gpu:.4f} ms")


def main():
    p = _lesson.parser(__doc__, small=f"{SIZES['small'][0]} x {SIZES['small'][1]} images",
                       lesson=f"{SIZES['lesson'][0]} x {SIZES['lesson'][1]}")
    args = p.parse_args()
    devices(args.device)
    shape = SIZES[args.size]
    rng = np.random.default_rng(20261126)
    checks = _lesson.Checks()
    print()
    before = memory("before")
    create_push_pull(shape, args.repeat, rng, checks)
    dtypes(rng, checks)
    operators(shape, args.repeat, rng, checks)
    print("\nmemory")
    kiln.sync()  # arrays dropped above are released once the GPU is done with them
    during = memory("now")
    big = [kiln.zeros(shape) for _ in range(4)]
    kiln.sync()  # an array's memory is taken when the work that first writes it is submitted
    grown = memory(f"after 4 more {shape[0]} x {shape[1]} float32 arrays")
    print(f"    they take {mib(grown - during)} for {mib(4 * big[0].nbytes)} of values")
    del big
    kiln.sync()
    after = memory("after del and kiln.sync()")
    print(f"    {mib(grown - after)} freed; {mib(after - before)} more in use than at the start")
    _lesson.finish(checks)


if __name__ == "__main__":
    main()
