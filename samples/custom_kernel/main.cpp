// Writing your own kernels: vector add and the lessons' shared-memory
// histogram as GLSL compiled at run time (kiln::Kernel, as CuPy's RawKernel),
// checked against kiln's built-in ops and the CPU, and timed side by side.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "kiln/histogram.hpp"
#include "kiln/kernel.hpp"
#include "kiln/kiln.hpp"
#include "kiln/reference/histogram.hpp"
#include "kiln/tune.hpp"

namespace {

// c = a + b, four floats per invocation. The workgroup size is 256 unless
// specialization constant 0 says otherwise, so ctx.set_workgroup_size(
// "vector_add", ...) and `kiln tune kernel` can change it.
const char* const vector_add_source = R"(#version 450
layout(local_size_x_id = 0, local_size_x = 256) in;
layout(binding = 0) readonly buffer A { vec4 a[]; };
layout(binding = 1) readonly buffer B { vec4 b[]; };
layout(binding = 2) writeonly buffer C { vec4 c[]; };
layout(push_constant) uniform P { uint n4; } p;  // number of vec4s
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n4) c[i] = a[i] + b[i];
}
)";

// The lesson's histogram: each workgroup counts into 256 bins in shared
// memory, then adds them to the global bins with one atomic per bin.
const char* const histogram_source = R"(#version 450
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer Data { int data[]; };
layout(binding = 1) buffer Hist { uint hist[]; };
layout(push_constant) uniform P { uint n; } p;
shared uint local_hist[256];
void main() {
    uint t = gl_LocalInvocationID.x;
    local_hist[t] = 0;
    barrier();
    for (uint i = gl_GlobalInvocationID.x; i < p.n; i += gl_NumWorkGroups.x * 256)
        atomicAdd(local_hist[uint(data[i]) & 255u], 1u);
    barrier();
    atomicAdd(hist[t], local_hist[t]);
}
)";

uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

} // namespace

int main(int argc, char** argv) {
    using namespace kiln;
    CLI::App app{"User kernels: vector add and the shared-memory histogram in GLSL, compiled at run time"};
    size_t n = 16ull << 20;
    int repeats = 5;
    std::string device;
    app.add_option("--size", n, "Elements (a multiple of 4)")->capture_default_str();
    app.add_option("--repeat", repeats, "GPU runs timed (median reported)")->capture_default_str();
    app.add_option("--device", device, "Device index or part of its name");
    CLI11_PARSE(app, argc, argv);
    try {
        if (n == 0 || n % 4) throw InvalidArgument("--size must be a positive multiple of 4");
        ContextOptions o;
        o.timing = Timing::submission;
        if (!device.empty()) o.device_name = device;
        Context ctx(o);
        load_tuning(ctx);
        std::printf("custom kernels on %s\n", ctx.device().name.c_str());

        Kernel vadd(ctx, vector_add_source, "main", {}, "vector_add");
        Kernel hist(ctx, histogram_source, "main", {}, "shared_histogram");
        std::printf("%s\n%s\n", vadd.signature().c_str(), hist.signature().c_str());

        std::vector<float> x(n), y(n);
        std::vector<int32_t> v(n);
        for (size_t i = 0; i < n; ++i) {
            x[i] = static_cast<float>(mix(i) >> 40), y[i] = static_cast<float>(mix(i + n) >> 44);
            v[i] = static_cast<int32_t>(mix(i * 3) & 255);
        }
        Array a = Array::from(ctx, Shape{n}, x), b = Array::from(ctx, Shape{n}, y);
        Array c = Array::empty(ctx, Shape{n}), builtin;
        const uint32_t n4 = static_cast<uint32_t>(n / 4);
        auto user_add = [&] { vadd(a, b, c).push("n4", n4).grid(n4); };
        const BenchmarkResult tu = benchmark(ctx, user_add, repeats, 2, "user add");
        const BenchmarkResult tb = benchmark(ctx, [&] { builtin = add(a, b); }, repeats, 2, "built-in add");
        const bool add_ok = c.to_vector<float>() == builtin.to_vector<float>();
        std::printf("vector add, %zu float32: user kernel %.4f ms, built-in %.4f ms (%+.1f%%), %s\n", n,
                    tu.gpu_median(), tb.gpu_median(), 100 * (tu.gpu_median() / tb.gpu_median() - 1),
                    add_ok ? "results agree" : "RESULTS DIFFER");

        Array data = Array::from(ctx, Shape{n}, v);
        Array counts = Array::zeros(ctx, Shape{256}, DType::uint32);
        auto user_hist = [&] {
            fill(counts, 0);
            hist(data, counts).push("n", static_cast<uint32_t>(n)).groups(1024);
        };
        Histogram built;
        const BenchmarkResult hu = benchmark(ctx, user_hist, repeats, 2, "user histogram");
        const BenchmarkResult hb =
            benchmark(ctx, [&] { built = histogram(data, 256, std::pair{0.0, 256.0}); }, repeats, 2, "histogram");
        const std::vector<uint32_t> got = counts.to_vector<uint32_t>();
        const std::vector<int64_t> want = cpu::histogram(HostArray::from(Shape{n}, v), 256, std::pair{0.0, 256.0}).counts;
        const bool hist_ok = std::vector<int64_t>(got.begin(), got.end()) == want && built.host_counts() == want;
        std::printf("histogram, %zu int32 in [0, 256): user kernel %.4f ms, built-in %.4f ms, %s\n", n,
                    hu.gpu_median(), hb.gpu_median(), hist_ok ? "results agree with the CPU" : "RESULTS DIFFER");
        return add_ok && hist_ok ? 0 : 1;
    } catch (const CompileError& e) {
        std::cerr << "custom_kernel: " << e.what() << "\n";
        return 1;
    } catch (const Error& e) {
        std::cerr << "custom_kernel: error: " << e.what() << "\n";
        return 1;
    }
}
