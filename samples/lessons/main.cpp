// The CUDA lessons' kernels with kiln: vector add, a 256-bin histogram and
// primes by trial division, each on the CPU and the GPU, with the times, the
// speedup and whether the results agree. GPU times come from timestamp
// queries (the median of a few runs after warm-up), with the data already on
// the GPU, as the lessons time their kernels.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "kiln/histogram.hpp"
#include "kiln/kiln.hpp"
#include "kiln/primes.hpp"
#include "kiln/random.hpp"
#include "kiln/reference/histogram.hpp"
#include "kiln/reference/primes.hpp"
#include "kiln/tune.hpp"

namespace {

using namespace kiln;

template <typename F> double cpu_ms(F&& f) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A fast, seeded generator: the lessons use random inputs, not any one sequence.
struct Random {
    uint64_t s;
    uint64_t next() { return kiln::splitmix64(s); }
    float uniform() { return static_cast<float>(next() >> 40) / 16777216.0f; }
};

void report(const char* what, double cpu, double gpu, bool agree) {
    std::printf("  CPU %10.3f ms   GPU %9.4f ms   speedup %8.1fx   %s\n", cpu, gpu, gpu > 0 ? cpu / gpu : 0.0,
                agree ? "results agree" : "RESULTS DIFFER");
    if (!agree) std::fprintf(stderr, "%s: the GPU result differs from the CPU's\n", what);
}

bool vector_add(Context& ctx, size_t n, int repeats) {
    std::printf("vector add of two random float32 vectors of %zu elements\n", n);
    Random r{1};
    std::vector<float> x(n), y(n), cpu(n);
    for (size_t i = 0; i < n; ++i) x[i] = r.uniform(), y[i] = r.uniform();
    const double t_cpu = cpu_ms([&] {
        for (size_t i = 0; i < n; ++i) cpu[i] = x[i] + y[i];
    });
    Array a = Array::from(ctx, Shape{n}, x), b = Array::from(ctx, Shape{n}, y), c;
    const BenchmarkResult g = benchmark(ctx, [&] { c = add(a, b); }, repeats, 2, "vector add");
    const bool agree = c.to_vector<float>() == cpu;
    report("vector add", t_cpu, g.gpu_median(), agree);
    std::printf("  GPU bandwidth %.1f GB/s (two reads, one write)\n", 3.0 * n * 4 / (g.gpu_median() * 1e-3) / 1e9);
    return agree;
}

bool histogram_lesson(Context& ctx, size_t n, int repeats) {
    std::printf("histogram of %zu random int32 in [0, 256), 256 bins\n", n);
    Random r{2};
    HostArray h(Shape{n}, DType::int32);
    for (int32_t& v : h.as<int32_t>()) v = static_cast<int32_t>(r.next() & 255);
    cpu::Histogram want;
    const double t_cpu = cpu_ms([&] { want = cpu::histogram(h, 256, std::pair{0.0, 256.0}); });
    Array a = Array::from_host(ctx, h);
    Histogram got;
    const BenchmarkResult g =
        benchmark(ctx, [&] { got = histogram(a, 256, std::pair{0.0, 256.0}); }, repeats, 2, "histogram");
    const bool agree = got.host_counts() == want.counts && got.edges == want.edges;
    report("histogram", t_cpu, g.gpu_median(), agree);
    std::printf("  GPU read rate %.1f GB/s\n", n * 4.0 / (g.gpu_median() * 1e-3) / 1e9);
    return agree;
}

bool primes_lesson(Context& ctx, uint32_t upper, int repeats) {
    std::printf("primes below %u: one test by trial division per number\n", upper);
    std::vector<uint32_t> want;
    const double t_cpu = cpu_ms([&] { want = cpu::primes_trial_division(upper); });
    Array flags;
    const BenchmarkResult g =
        benchmark(ctx, [&] { flags = prime_flags_trial_division(ctx, upper); }, repeats, 1, "primes");
    const std::vector<uint32_t> got = primes_trial_division(ctx, upper);
    const bool agree = got == want;
    report("primes", t_cpu, g.gpu_median(), agree);
    std::printf("  %zu primes; the last is %u\n", got.size(), got.empty() ? 0u : got.back());

    std::printf("primes below %u: sieve of Eratosthenes\n", upper);
    std::vector<uint32_t> sieved;
    const double t_sieve_cpu = cpu_ms([&] { sieved = cpu::primes_sieve(upper); });
    const BenchmarkResult s = benchmark(ctx, [&] { flags = prime_flags_sieve(ctx, upper); }, repeats, 1, "sieve");
    const bool sieve_agree = primes_sieve(ctx, upper) == sieved && sieved == want;
    report("sieve", t_sieve_cpu, s.gpu_median(), sieve_agree);
    return agree && sieve_agree;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"The CUDA lessons' kernels with kiln: vector add, histogram, primes (CPU vs GPU)"};
    size_t vector_size = 64ull << 20, hist_size = 64ull << 20;
    uint32_t upper = 100000;
    int repeats = 5;
    std::string device;
    app.add_option("--vector-size", vector_size, "Elements of the vectors to add")->capture_default_str();
    app.add_option("--size", hist_size, "Elements of the histogram's data")->capture_default_str();
    app.add_option("--upper", upper, "Primes below this number")->capture_default_str();
    app.add_option("--repeat", repeats, "GPU runs timed (median reported)")->capture_default_str();
    app.add_option("--device", device, "Device index or part of its name");
    CLI11_PARSE(app, argc, argv);
    try {
        kiln::ContextOptions o;
        o.timing = kiln::Timing::submission;
        if (!device.empty()) {
            if (device.find_first_not_of("0123456789") == std::string::npos) o.device_index = std::stoul(device);
            else o.device_name = device;
        }
        kiln::Context ctx(o);
        kiln::load_tuning(ctx);
        std::printf("kiln lessons on %s\n", ctx.device().name.c_str());
        bool ok = vector_add(ctx, vector_size, repeats);
        ok = histogram_lesson(ctx, hist_size, repeats) && ok;
        ok = primes_lesson(ctx, upper, repeats) && ok;
        return ok ? 0 : 1;
    } catch (const kiln::Error& e) {
        std::cerr << "lessons: error: " << e.what() << "\n";
        return 1;
    }
}
