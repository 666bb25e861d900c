// The lessons' workloads: W12 histogram (256 bins of 64M int32), W13 primes
// below 100000 by one-invocation-per-number trial division, and vector add as
// a user kernel next to the built-in add (W11). Each checks its result
// against the CPU.
#include "bench.hpp"
#include "kiln/histogram.hpp"
#include "kiln/kernel.hpp"
#include "kiln/primes.hpp"
#include "kiln/reference/histogram.hpp"
#include "kiln/reference/primes.hpp"

namespace kiln::bench {

namespace {

HostArray bytes_as_int32(size_t n) {
    HostArray h(Shape{n}, DType::int32);
    uint64_t s = 42;
    for (int32_t& v : h.as<int32_t>()) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v = static_cast<int32_t>(s >> 56);  // [0, 256)
    }
    return h;
}

// The histogram workloads: range (0, 256) as the lesson (one pass), or the
// automatic range (a min/max pass read back first, as numpy.histogram).
Result histogram_workload(Context& ctx, Size size, int n, bool auto_range) {
    const size_t count = size == Size::full ? (64ull << 20) : (1ull << 20);
    const HostArray h = bytes_as_int32(count);
    Array a = Array::from_host(ctx, h);
    std::optional<std::pair<double, double>> range;
    if (!auto_range) range = std::pair{0.0, 256.0};
    Histogram got;
    Result r;
    take_times(r, timed(ctx, size, [&] { got = histogram(a, 256, range); }, n, 3));
    r.metrics["GB/s"] = count * 4.0 / (r.gpu_ms * 1e-3) / 1e9;
    const cpu::Histogram want = cpu::histogram(h, 256, range);
    r.checked = true;
    r.ok = got.host_counts() == want.counts && got.edges == want.edges;
    if (!r.ok) r.note = "counts or edges differ from cpu::histogram";
    return r;
}

Register w12{{"W12", "histogram 256 bins of 64M int32, range (0, 256)", "lessons",
              [](Context& ctx, Size s, int n) { return histogram_workload(ctx, s, n, false); }}};

Register w12_auto{{"W12-auto", "histogram 256 bins of 64M int32, automatic range", "lessons",
                   [](Context& ctx, Size s, int n) { return histogram_workload(ctx, s, n, true); }}};

Register bincount_64m{{"bincount", "bincount of 64M int32 in [0, 256)", "lessons", [](Context& ctx, Size size, int n) {
    const size_t count = size == Size::full ? (64ull << 20) : (1ull << 20);
    const HostArray h = bytes_as_int32(count);
    Array a = Array::from_host(ctx, h);
    Array got;
    Result r;
    take_times(r, timed(ctx, size, [&] { got = bincount(a, 256); }, n, 3));
    r.metrics["GB/s"] = count * 4.0 / (r.gpu_ms * 1e-3) / 1e9;
    const std::vector<uint32_t> g = got.to_vector<uint32_t>();
    r.checked = true;
    r.ok = std::vector<int64_t>(g.begin(), g.end()) == cpu::bincount(h, 256);
    if (!r.ok) r.note = "counts differ from cpu::bincount";
    return r;
}}};

// The figure is the flags kernel, the work CuPy's peer (bench/compare.py)
// times; the lesson's whole answer (flags, compaction and the pull of the
// list) is the list_ms metric.
Register w13{{"W13", "primes below 100000, trial division per number (flags)", "lessons", [](Context& ctx, Size size, int n) {
    const uint32_t upper = 100000;
    Result r;
    Array flags;
    take_times(r, timed(ctx, size, [&] { flags = prime_flags_trial_division(ctx, upper); }, n, 2));
    std::vector<uint32_t> got;
    const BenchmarkResult list = timed(ctx, size, [&] { got = primes_trial_division(ctx, upper); }, n, 2);
    r.metrics["list_ms"] = list.gpu_median();
    const std::vector<uint32_t> want = cpu::primes_trial_division(upper);
    std::vector<uint8_t> want_flags(upper, 0);
    for (uint32_t p : want) want_flags[p] = 1;
    r.checked = true;
    r.ok = got == want && flags.to_vector<uint8_t>() == want_flags;
    if (!r.ok) r.note = "primes differ from cpu::primes_trial_division";
    return r;
}}};

Register sieve{{"sieve", "primes below 10^8, segmented sieve (flags)", "lessons", [](Context& ctx, Size size, int n) {
    const uint32_t upper = size == Size::full ? 100000000u : 1000000u;
    Array flags;
    Result r;
    take_times(r, timed(ctx, size, [&] { flags = prime_flags_sieve(ctx, upper); }, n, 2));
    const std::vector<uint8_t> got = flags.to_vector<uint8_t>();
    std::vector<uint8_t> want(upper, 0);
    for (uint32_t p : cpu::primes_sieve(upper)) want[p] = 1;
    r.checked = true;
    r.ok = got == want;
    if (!r.ok) r.note = "flags differ from cpu::primes_sieve";
    return r;
}}};

// vec4 loads and stores, one vec4 per invocation: what the built-in add does.
const char* const vector_add_source = R"(#version 450
layout(local_size_x_id = 0, local_size_x = 256) in;
layout(binding = 0) readonly buffer A { vec4 a[]; };
layout(binding = 1) readonly buffer B { vec4 b[]; };
layout(binding = 2) writeonly buffer C { vec4 c[]; };
layout(push_constant) uniform P { uint n4; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n4) c[i] = a[i] + b[i];
}
)";

Register user_add{{"W11-user", "vector add 64M float32 as a user kernel", "lessons", [](Context& ctx, Size size, int n) {
    const size_t count = size == Size::full ? (64ull << 20) : (1ull << 20);
    std::vector<float> x(count), y(count);
    for (size_t i = 0; i < count; ++i) x[i] = float(i % 1000), y[i] = float(i % 7);
    Array a = Array::from(ctx, Shape{count}, x), b = Array::from(ctx, Shape{count}, y);
    Array c = Array::empty(ctx, Shape{count}), builtin;
    Kernel k(ctx, vector_add_source, "main", {}, "user_vector_add");
    const auto n4 = static_cast<uint32_t>(count / 4);
    Result r;
    take_times(r, timed(ctx, size, [&] { k(a, b, c).push("n4", n4).grid(n4); }, n, 3));
    const BenchmarkResult base = timed(ctx, size, [&] { builtin = add(a, b); }, n, 3);
    r.metrics["GB/s"] = 3.0 * count * 4 / (r.gpu_ms * 1e-3) / 1e9;
    r.metrics["builtin_ms"] = base.gpu_median();
    r.metrics["vs_builtin_%"] = 100.0 * (r.gpu_ms / base.gpu_median() - 1);
    const std::vector<float> z = c.to_vector<float>();
    r.checked = true;
    for (size_t i = 0; i < count; ++i)
        if (z[i] != x[i] + y[i]) {
            r.ok = false;
            r.note = "mismatch at " + std::to_string(i);
            break;
        }
    return r;
}}};

} // namespace

} // namespace kiln::bench
