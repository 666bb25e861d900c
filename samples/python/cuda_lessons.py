#!/usr/bin/env python3
"""The CUDA lessons' kernels written as kiln.Kernel user kernels (GLSL
compiled at run time, as cupy.RawKernel compiles CUDA C): vector add, the
shared-memory histogram with workgroup-shared atomics, and primes by trial
division, one number per invocation. Each result is checked against NumPy
and timed beside kiln's built-in op for the same job."""
import numpy as np

import kiln
import _lesson

SIZES = {"small": (1 << 20, 1 << 20, 10_000), "lesson": (64 << 20, 64 << 20, 100_000)}

# A grid stride loop, so a vector of any size fits the 65535 workgroups a
# dispatch may have in x; the workgroup size is specialization constant 0
# (kiln.tune and Context.set_workgroup_size can change it).
VECTOR_ADD = """#version 450
layout(local_size_x_id = 0, local_size_x = 256) in;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) readonly buffer B { float b[]; };
layout(binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uint size; } p;
void main() {
    for (uint i = gl_GlobalInvocationID.x; i < p.size; i += gl_NumWorkGroups.x * gl_WorkGroupSize.x)
        c[i] = a[i] + b[i];
}
"""

# The lesson's histogram: each workgroup of 256 counts into 256 bins in
# shared memory (__shared__ in CUDA), then adds them to the global bins with
# one atomic per bin.
HISTOGRAM = """#version 450
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer Data { int data[]; };
layout(binding = 1) buffer Hist { uint hist[]; };
layout(push_constant) uniform P { uint size; } p;
shared uint local_hist[256];
void main() {
    const uint t = gl_LocalInvocationID.x;
    local_hist[t] = 0;
    barrier();
    for (uint i = gl_GlobalInvocationID.x; i < p.size; i += gl_NumWorkGroups.x * 256)
        atomicAdd(local_hist[uint(data[i]) & 255u], 1u);
    barrier();
    atomicAdd(hist[t], local_hist[t]);
}
"""

# The lesson's all_primes_to, one invocation per number, with two fixes: 0
# and 1 are not primes, and the divisors stop at sqrt(n) (d <= n / d, which
# cannot overflow) instead of n / 2.
PRIMES = """#version 450
layout(local_size_x_id = 0, local_size_x = 256) in;
layout(binding = 0) writeonly buffer Flags { uint flags[]; };
layout(push_constant) uniform P { uint size; } p;
void main() {
    const uint n = gl_GlobalInvocationID.x;
    if (n >= p.size) return;
    bool prime = n >= 2;
    for (uint d = 2; d <= n / d; ++d)
        if (n % d == 0) {
            prime = false;
            break;
        }
    flags[n] = prime ? 1u : 0u;
}
"""

MAX_GROUPS = 65535


def groups_for(n, local=256):
    return max(1, min(MAX_GROUPS, -(-n // local)))


def timed(user_fn, builtin_fn, cpu_fn, cpu_label, repeat):
    """Times the user kernel and the built-in op on the GPU (first: after
    seconds of NumPy an idle GPU has lowered its clock), then NumPy; prints
    the three. Returns (user kernel ms, its result, NumPy's result)."""
    user, result = _lesson.gpu_ms(user_fn, repeat, "user kernel")
    builtin, _ = _lesson.gpu_ms(builtin_fn, repeat, "built-in")
    cpu, want = _lesson.cpu_ms(cpu_fn, repeat)
    print(f"  {cpu_label} {cpu:10.3f} ms   user kernel {user:9.4f} ms   built-in {builtin:9.4f} ms   "
          f"speedup {cpu / max(user, 1e-9):8.1f}x")
    return user, result, want


def vector_add(n, repeat, rng, checks):
    print(f"vector add of two random float32 vectors of {n} elements")
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    k = kiln.Kernel(VECTOR_ADD, name="vector_add")
    a, b, c = kiln.asarray(x), kiln.asarray(y), kiln.empty(n)
    user, _, want = timed(lambda: k(a, b, c, n, groups=groups_for(n)), lambda: a + b, lambda: x + y,
                          "NumPy x + y", repeat)
    print(f"  user kernel bandwidth {3 * 4 * n / (user * 1e-3) / 1e9:.1f} GB/s (two reads, one write)")
    # IEEE float addition is correctly rounded on both sides.
    checks.equal("vector add", c.get(), want)


def histogram(n, repeat, rng, checks):
    print(f"histogram of {n} random int32 in [0, 256), 256 bins")
    data = rng.integers(0, 256, n, dtype=np.int32)
    k = kiln.Kernel(HISTOGRAM, name="shared_histogram")
    d = kiln.asarray(data)

    def user_histogram():
        counts = kiln.zeros(256, np.uint32)  # as the lesson's cp.zeros
        k(d, counts, n, groups=min(1024, groups_for(n)))
        return counts

    user, counts, want = timed(user_histogram, lambda: kiln.histogram(d, 256, (0, 256)),
                               lambda: np.histogram(data, bins=256, range=(0, 256))[0], "numpy.histogram", repeat)
    print(f"  user kernel read rate {4 * n / (user * 1e-3) / 1e9:.1f} GB/s")
    checks.equal("histogram counts", counts.get(), want)


def primes(upper, repeat, checks):
    print(f"primes below {upper}: one test by trial division per number")

    def trial_division():
        # NumPy's trial division: every number against each divisor up to
        # sqrt(upper), vectorised over the numbers.
        n = np.arange(upper)
        prime = n >= 2
        for d in range(2, int(np.sqrt(upper)) + 1):
            prime &= (n % d != 0) | (n == d)
        return np.flatnonzero(prime)

    k = kiln.Kernel(PRIMES, name="all_primes_to")
    flags = kiln.empty(upper, np.uint32)
    _, _, want = timed(lambda: k(flags, upper, grid=upper), lambda: kiln.prime_flags(upper, "trial_division"),
                       trial_division, "NumPy", repeat)
    got = np.flatnonzero(flags.get())
    print(f"  {got.size} primes; the last is {got[-1] if got.size else '-'}")
    checks.equal("primes", got, want)


def main():
    p = _lesson.parser(__doc__, small="1M-element vectors and histogram, primes below 10000",
                       lesson="64M elements each, primes below 100000", repeat=5)
    args = p.parse_args()
    _lesson.open_device(args.device)
    n_add, n_hist, upper = SIZES[args.size]
    rng = np.random.default_rng(20261126)
    checks = _lesson.Checks()
    vector_add(n_add, args.repeat, rng, checks)
    histogram(n_hist, args.repeat, rng, checks)
    primes(upper, args.repeat, checks)
    _lesson.finish(checks)


if __name__ == "__main__":
    main()
