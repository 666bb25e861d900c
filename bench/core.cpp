// The engine's own figures: compute copy bandwidth, vector add, graph
// overhead per node, push/pull bandwidth.
#include <chrono>
#include <cstring>

#include "bench.hpp"

namespace kiln::bench {

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

Register copy_bw{{"copy", "compute copy 1 GiB float32 (read+write)", "core", [](Context& ctx, Size size, int n) {
    size_t count = size == Size::full ? (1ull << 28) : (1ull << 20);
    Array a = Array::full(ctx, Shape{count}, 1.5);
    Array b;
    Result r;
    take_times(r, timed(ctx, size, [&] { b = copy(a); }, n, 3));
    r.metrics["TB/s"] = 2.0 * count * 4 / (r.gpu_ms * 1e-3) / 1e12;
    auto v = b.to_vector<float>();
    r.checked = v.front() == 1.5f && v.back() == 1.5f;
    r.ok = r.checked;
    return r;
}}};

Register vector_add{{"W11", "vector add 64M float32", "core", [](Context& ctx, Size size, int n) {
    size_t count = size == Size::full ? (64ull << 20) : (1ull << 20);
    std::vector<float> x(count), y(count);
    for (size_t i = 0; i < count; ++i) x[i] = float(i % 1000), y[i] = float(i % 7);
    Array a = Array::from(ctx, Shape{count}, x), b = Array::from(ctx, Shape{count}, y);
    Array c;
    Result r;
    take_times(r, timed(ctx, size, [&] { c = add(a, b); }, n, 3));
    r.metrics["GB/s"] = 3.0 * count * 4 / (r.gpu_ms * 1e-3) / 1e9;
    auto z = c.to_vector<float>();
    r.checked = true;
    for (size_t i = 0; i < count; ++i)
        if (z[i] != x[i] + y[i]) {
            r.checked = r.ok = false;
            r.note = "mismatch at " + std::to_string(i);
            break;
        }
    return r;
}}};

Register graph_overhead{{"nodes", "graph of 1000 small dependent nodes", "core", [](Context& ctx, Size size, int n) {
    const int nodes = 1000;
    Array a = Array::zeros(ctx, Shape{256});
    Array out;
    Graph g(ctx);
    auto t0 = clock_type::now();
    {
        auto capture = g.capture();
        Array t = a;
        for (int i = 0; i < nodes; ++i) t = add(t, 1.0);
        out = t;
    }
    double record_ms = ms_since(t0);
    g.run();  // compile and warm up
    Result r;
    take_times(r, timed(ctx, size, [&] { g.launch(); }, n, 2));
    // Eager recording cost per op, without submission.
    auto t1 = clock_type::now();
    Array e = a;
    for (int i = 0; i < nodes; ++i) e = add(e, 1.0);
    double eager_ms = ms_since(t1);
    ctx.sync();
    r.metrics["gpu_us_per_node"] = r.gpu_ms * 1000 / nodes;
    r.metrics["capture_us_per_node"] = record_ms * 1000 / nodes;
    r.metrics["eager_record_us_per_node"] = eager_ms * 1000 / nodes;
    r.checked = out.to_vector<float>()[0] == float(nodes) && e.to_vector<float>()[255] == float(nodes);
    r.ok = r.checked;
    return r;
}}};

enum class Path { staging, import, pinned };

Result transfer(Context& main_ctx, Size size, int n, bool push, Path path) {
    const bool import = path == Path::import;
    // Each path in a context of its own: the staging ring, or an import of
    // the caller's pages (VK_EXT_external_memory_host).
    ContextOptions o;
    o.timing = Timing::submission;
    o.device_index = main_ctx.device().index;
    o.import_threshold = import ? (1ull << 20) : ~0ull;
    Context ctx(o);
    if (import && !ctx.device().external_memory_host) throw Unsupported("no VK_EXT_external_memory_host");
    size_t bytes = size == Size::full ? (256ull << 20) : (8ull << 20);
    std::vector<float> pageable(bytes / 4), pageable_back(bytes / 4);
    PinnedBuffer pin, pin_back;
    std::span<float> host(pageable), back(pageable_back);
    if (path == Path::pinned) {
        pin = PinnedBuffer(ctx, bytes);
        pin_back = PinnedBuffer(ctx, bytes);
        host = pin.as<float>();
        back = pin_back.as<float>();
    }
    for (size_t i = 0; i < host.size(); ++i) host[i] = float(i & 1023);
    Array a = Array::from(ctx, Shape{host.size()}, std::span<const float>(host));
    Result r;
    std::vector<double> wall;
    auto once = [&] {
        auto t0 = clock_type::now();
        if (push) a.push(std::span<const float>(host));
        else a.pull(back);
        ctx.sync();
        return ms_since(t0);
    };
    for (int i = 0; i < 2; ++i) once();
    hold_clock(ctx, size);
    const uint64_t before = ctx.profile().submission_count();
    for (int i = 0; i < n; ++i) wall.push_back(once());
    const std::vector<double> gpu = ctx.profile().submissions_since(before);
    r.wall_ms = median_of(wall);
    r.gpu_ms = median_of(gpu);
    if (!gpu.empty()) {
        r.gpu_min = *std::min_element(gpu.begin(), gpu.end());
        r.gpu_max = *std::max_element(gpu.begin(), gpu.end());
    }
    r.metrics["GB/s"] = bytes / (r.wall_ms * 1e-3) / 1e9;
    if (r.gpu_ms > 0) r.metrics["dma_GB/s"] = bytes / (r.gpu_ms * 1e-3) / 1e9;
    if (!push) {
        r.checked = std::memcmp(back.data(), host.data(), bytes) == 0;
        r.note = r.checked ? "" : "pulled data differ";
        r.ok = r.checked;
    }
    return r;
}

Register push_bw{{"push", "push 256 MiB pageable (staging ring)", "core",
                  [](Context& ctx, Size s, int n) { return transfer(ctx, s, n, true, Path::staging); }}};
Register pull_bw{{"pull", "pull 256 MiB pageable (staging ring)", "core",
                  [](Context& ctx, Size s, int n) { return transfer(ctx, s, n, false, Path::staging); }}};
Register push_imp{{"push-i", "push 256 MiB pageable (host import)", "core",
                   [](Context& ctx, Size s, int n) { return transfer(ctx, s, n, true, Path::import); }}};
Register pull_imp{{"pull-i", "pull 256 MiB pageable (host import)", "core",
                   [](Context& ctx, Size s, int n) { return transfer(ctx, s, n, false, Path::import); }}};
Register push_pin{{"push-p", "push 256 MiB from PinnedBuffer", "core",
                   [](Context& ctx, Size s, int n) { return transfer(ctx, s, n, true, Path::pinned); }}};
Register pull_pin{{"pull-p", "pull 256 MiB into PinnedBuffer", "core",
                   [](Context& ctx, Size s, int n) { return transfer(ctx, s, n, false, Path::pinned); }}};

// What the host itself manages: memcpy of 256 MiB between pageable buffers.
Register host_copy{{"memcpy", "host memcpy 256 MiB (1 thread), reference", "core", [](Context&, Size size, int n) {
    size_t bytes = size == Size::full ? (256ull << 20) : (8ull << 20);
    std::vector<std::byte> a(bytes, std::byte{1}), b(bytes, std::byte{2});
    std::vector<double> wall;
    for (int i = 0; i < n; ++i) {
        auto t0 = clock_type::now();
        std::memcpy(b.data(), a.data(), bytes);
        wall.push_back(ms_since(t0));
    }
    Result r;
    r.wall_ms = median_of(wall);
    r.metrics["GB/s"] = bytes / (r.wall_ms * 1e-3) / 1e9;
    return r;
}}};

} // namespace

} // namespace kiln::bench
