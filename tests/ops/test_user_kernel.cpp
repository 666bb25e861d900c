// User kernels compiled at run time: results against the CPU, the checks a
// launch makes (arrays, scalars, grid), compile errors, workgroup sizes from
// specialization constants, the graph and the profile, the SPIR-V cache.
#include <cmath>
#include <filesystem>
#include <random>

#include "kiln/kernel.hpp"
#include "kiln/reference/histogram.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

const char* const saxpy = R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) readonly buffer B { float b[]; };
layout(binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uint n; float alpha; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) c[i] = p.alpha * a[i] + b[i];
}
)";

// The lesson's histogram: per-workgroup bins in shared memory, merged with atomics.
const char* const shared_histogram = R"(#version 450
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

// Workgroup size from specialization constants: tunable.
const char* const scale_source = R"(#version 450
layout(local_size_x_id = 0) in;
layout(binding = 0) buffer X { double x[]; };
layout(push_constant) uniform P { uint n; double factor; int offset; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) x[i] = x[i] * p.factor + double(p.offset);
}
)";

// alpha * a + b as a GPU may compute it: SPIR-V without NoContraction lets
// the driver fuse the multiply and the add into one FMA (NVIDIA's does,
// lavapipe's does not), so each element must equal the fused or the
// separately rounded result, and nothing else.
void require_saxpy(const std::vector<float>& got, const HostArray& a, const HostArray& b, float alpha) {
    REQUIRE(got.size() == a.size());
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const float x = a.as<float>()[i], y = b.as<float>()[i];
        const float product = alpha * x;
        const float separate = product + y, fused = std::fma(alpha, x, y);
        if (got[i] != separate && got[i] != fused && bad++ < 5)
            UNSCOPED_INFO("element " << i << ": " << got[i] << ", want " << separate << " or (fused) " << fused);
    }
    CHECK(bad == 0);
}

using kiln::test::TempDir;

} // namespace

TEST_CASE("a user kernel adds vectors as the CPU does", "[ops][kernel]") {
    Context ctx = test::context();
    Kernel k(ctx, saxpy);
    CHECK(k.name() == "kernel");
    CHECK(k.bindings().size() == 3);
    CHECK(k.bindings()[0].readonly);
    CHECK(k.bindings()[2].writeonly);
    REQUIRE(k.params().size() == 2);
    CHECK(k.params()[1].name == "alpha");
    CHECK(k.params()[1].type == "float");
    CHECK(k.local_size() == std::array<uint32_t, 3>{64, 1, 1});
    CHECK_FALSE(k.tunable());
    for (size_t n : {size_t(1), size_t(13), size_t(1031)}) {
        HostArray ha = test::random(Shape{n}, DType::float32, 1), hb = test::random(Shape{n}, DType::float32, 2);
        Array a = Array::from_host(ctx, ha), b = Array::from_host(ctx, hb);
        Array c = test::poisoned(ctx, Shape{n}, DType::float32);
        k(a, b, c).push("n", uint32_t(n)).push("alpha", 2.5f).grid(n);
        require_saxpy(c.to_vector<float>(), ha, hb, 2.5f);
        // By order, with an int literal for the uint and an exact double for the float.
        Array d = test::poisoned(ctx, Shape{n}, DType::float32);
        k.launch({a, b, d}, {int(n), 0.5}, {n, 1, 1});
        require_saxpy(d.to_vector<float>(), ha, hb, 0.5f);
    }
}

TEST_CASE("the lesson's shared-memory histogram as a user kernel", "[ops][kernel]") {
    Context ctx = test::context();
    Kernel k(ctx, shared_histogram, "main", {}, "lesson_histogram");
    HostArray h = test::random(Shape{127, 129}, DType::int32, 3, 0, 255);
    Array data = Array::from_host(ctx, h), hist = Array::zeros(ctx, Shape{256}, DType::uint32);
    k(data, hist).push(uint32_t(h.size())).groups(7);
    std::vector<uint32_t> got = hist.to_vector<uint32_t>();
    CHECK(std::vector<int64_t>(got.begin(), got.end()) == cpu::bincount(h, 256));
}

TEST_CASE("user kernels join the graph: barriers, profile, capture", "[ops][kernel]") {
    Context ctx = test::context();
    Kernel k(ctx, saxpy, "main", {}, "saxpy");
    HostArray ha = test::random(Shape{1031}, DType::float32, 4), hb = test::random(Shape{1031}, DType::float32, 5);
    Array a = Array::from_host(ctx, ha), b = Array::from_host(ctx, hb);
    // A chain through built-in ops: each step must see the previous one's writes.
    Array c = Array::empty(ctx, Shape{1031});
    k(a, b, c).push("n", 1031u).push("alpha", 2.0f).grid(1031);
    Array d = add(c, 1.0);
    Array e = Array::empty(ctx, Shape{1031});
    k(d, c, e).push("n", 1031u).push("alpha", -1.0f).grid(1031);
    const std::vector<float> got_e = e.to_vector<float>();
    // c as the GPU made it (fused or not), then e = -1 * (c + 1) + c exactly
    // either way: the product by -1 is exact.
    const std::vector<float> got_c = c.to_vector<float>();
    require_saxpy(got_c, ha, hb, 2.0f);
    std::vector<float> want = got_c;
    for (float& w : want) w = -(w + 1.0f) + w;
    CHECK(got_e == want);
    bool seen = false;
    for (const KernelStats& s : ctx.profile().stats()) seen = seen || (s.name == "saxpy" && s.count == 2);
    CHECK(seen);

    Graph g(ctx);
    Array out = Array::empty(ctx, Shape{1031});
    {
        auto capture = g.capture();
        k(a, b, out).push("n", 1031u).push("alpha", 3.0f).grid(1031);
    }
    for (int run = 0; run < 2; ++run) {
        g.run();
        require_saxpy(out.to_vector<float>(), ha, hb, 3.0f);
    }
}

TEST_CASE("workgroup size from specialization constants is tunable", "[ops][kernel][tune]") {
    Context ctx = test::context();
    Kernel k(ctx, scale_source, "main", {}, "scale");
    CHECK(k.tunable());
    CHECK(k.params()[1].type == "double");
    HostArray h = test::random(Shape{1031}, DType::float64, 6);
    for (uint32_t size : {1u, 32u, 64u, 0u}) {
        ctx.set_workgroup_size("scale", {size, size ? 1u : 0u, size ? 1u : 0u});
        CHECK(k.local_size()[0] == (size ? size : 1u));  // 1: the source's default
        Array x = Array::from_host(ctx, h);
        k(x).push("n", 1031u).push("factor", 0.5).push("offset", -3).grid(1031);
        std::vector<double> got = x.to_vector<double>();
        for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == h.as<double>()[i] * 0.5 - 3.0);
    }
}

TEST_CASE("entry points, defines and skipped binding numbers", "[ops][kernel]") {
    Context ctx = test::context();
    const char* source = R"(#version 450
layout(local_size_x = 32) in;
layout(binding = 0) readonly buffer In { uint src[]; };
layout(binding = 2) writeonly buffer Out { uint dst[]; };
layout(push_constant) uniform P { uint n; } p;
void twice() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) dst[i] = src[i] * FACTOR;
}
void main() {}
)";
    Kernel k(ctx, source, "twice", {"FACTOR=3u"});
    CHECK(k.name() == "twice");
    REQUIRE(k.bindings().size() == 2);
    CHECK(k.bindings()[1].binding == 2);
    HostArray h = test::random(Shape{77}, DType::uint32, 7, 0, 1000);
    Array in = Array::from_host(ctx, h), out = test::poisoned(ctx, Shape{77}, DType::uint32);
    k(in, out).push(77u).grid(77);
    std::vector<uint32_t> got = out.to_vector<uint32_t>();
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == h.as<uint32_t>()[i] * 3);
}

TEST_CASE("code compiled under one name twice runs as two kernels", "[ops][kernel]") {
    Context ctx = test::context();
    const std::string source = "#version 450\nlayout(local_size_x = 16) in;\n"
                               "layout(binding = 0) writeonly buffer O { uint o[]; };\n"
                               "void main() { if (gl_GlobalInvocationID.x < 16) o[gl_GlobalInvocationID.x] = V; }\n";
    Kernel one(ctx, source, "main", {"V=1u"}, "fill_v"), two(ctx, source, "main", {"V=2u"}, "fill_v");
    CHECK(one.profile_name() != two.profile_name());
    Array a = Array::empty(ctx, Shape{16}, DType::uint32), b = Array::empty(ctx, Shape{16}, DType::uint32);
    one(a).grid(16);
    two(b).grid(16);
    CHECK(a.to_vector<uint32_t>() == std::vector<uint32_t>(16, 1));
    CHECK(b.to_vector<uint32_t>() == std::vector<uint32_t>(16, 2));
}

TEST_CASE("compiled kernels are cached on disk by source", "[ops][kernel]") {
    TempDir dir;
    ContextOptions o;
    o.cache_dir = dir.path.string();
    Context ctx = test::context(o);
    CHECK(cache_directory(ctx) == dir.path.string());
    Kernel first(ctx, saxpy);
    size_t files = 0;
    for (auto& e : std::filesystem::directory_iterator(dir.path / "kernels")) files += e.path().extension() == ".spv";
    CHECK(files == 1);
    Kernel again(ctx, saxpy);  // read back from the cache
    CHECK(again.params().size() == 2);
    HostArray ha = test::random(Shape{13}, DType::float32, 8);
    Array a = Array::from_host(ctx, ha), c = Array::empty(ctx, Shape{13});
    again(a, a, c).push("n", 13u).push("alpha", 1.0f).grid(13);
    require_saxpy(c.to_vector<float>(), ha, ha, 1.0f);
}

TEST_CASE("user kernel errors are clear and leave the context usable", "[ops][kernel][errors]") {
    Context ctx = test::context();
    SECTION("GLSL syntax error: CompileError with glslang's log and the line") {
        const char* bad = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { float x = ; }\n";
        try {
            Kernel k(ctx, bad, "main", {}, "broken");
            FAIL("no CompileError");
        } catch (const CompileError& e) {
            CHECK_THAT(e.what(), Catch::Contains("broken:3:"));
            CHECK_THAT(e.log(), Catch::Contains("ERROR"));
        }
    }
    SECTION("missing entry point") {
        CHECK_THROWS_WITH(Kernel(ctx, saxpy, "vadd"), Catch::Contains("'vadd' not found"));
    }
    SECTION("constant_id 0-2 used for something else") {
        const char* src = "#version 450\nlayout(local_size_x = 8) in;\nlayout(constant_id = 1) const uint K = 3;\n"
                          "layout(binding = 0) buffer O { uint o[]; };\nvoid main() { o[0] = K; }\n";
        CHECK_THROWS_AS(Kernel(ctx, src), Unsupported);
    }
    Kernel k(ctx, saxpy, "main", {}, "saxpy");
    Array a = Array::zeros(ctx, Shape{16}), c = Array::empty(ctx, Shape{16});
    SECTION("a binding left unbound, or an extra array") {
        CHECK_THROWS_WITH(k(a, a), Catch::Contains("3 storage buffer") && Catch::Contains("2 array"));
        CHECK_THROWS_AS(k(a, a, c, c), InvalidArgument);
        CHECK_THROWS_AS(k(a, Array(), c), InvalidArgument);
    }
    SECTION("scalars of the wrong type or not set") {
        CHECK_THROWS_WITH(k(a, a, c).push("n", 2.0f), Catch::Contains("'n' is uint") && Catch::Contains("not an integer"));
        CHECK_THROWS_WITH(k(a, a, c).push("n", -1), Catch::Contains("'n' is uint") && Catch::Contains("outside"));
        CHECK_THROWS_WITH(k(a, a, c).push("alpha", 2), Catch::Contains("'alpha' is float") && Catch::Contains("integer"));
        CHECK_THROWS_WITH(k(a, a, c).push("alpha", 0.1), Catch::Contains("not exactly a float"));
        CHECK_THROWS_WITH(k(a, a, c).push("beta", 1.0f), Catch::Contains("no push constant 'beta'"));
        CHECK_THROWS_WITH(k(a, a, c).push("n", 16u).grid(16), Catch::Contains("'alpha' (float) not set"));
        CHECK_THROWS_WITH(k(a, a, c).push(16u).push(1.0f).push(3u), Catch::Contains("one too many"));
    }
    SECTION("a global size of zero") {
        CHECK_THROWS_WITH(k(a, a, c).push("n", 16u).push("alpha", 1.0f).grid(0), Catch::Contains("zero"));
        CHECK_THROWS_AS(k(a, a, c).push("n", 16u).push("alpha", 1.0f).groups(4, 0), InvalidArgument);
    }
    SECTION("a built-in kernel's name") {
        CHECK_THROWS_WITH(Kernel(ctx, saxpy, "main", {}, "binary_float32"), Catch::Contains("built-in"));
    }
    // Whatever failed above, the context still runs kernels.
    Array b = Array::full(ctx, Shape{16}, 1.0);
    k(b, b, c).push("n", 16u).push("alpha", 2.0f).grid(16);
    CHECK(c.to_vector<float>() == std::vector<float>(16, 3.0f));
}

TEST_CASE("a submission that outlasts the fence timeout is a VulkanError naming its kernels", "[ops][kernel]") {
    ContextOptions o;
    o.fence_timeout_ms = 1;
    o.spin_wait_us = 0;
    Context ctx = test::context(o);
    // 2048 invocations, each a dependent chain of m * n = 6 * 10^7
    // multiply-adds on a GPU (about 0.1 s on an H100); llvmpipe stops any
    // invocation's loops after 65535 iterations in all, which still takes
    // it well over 1 ms. It ends either way: the context's destruction
    // waits for it.
    Kernel k(ctx, R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer X { float x[]; };
layout(push_constant) uniform P { uint m, n; } p;
void main() {
    float v = x[gl_GlobalInvocationID.x];
    for (uint i = 0; i < p.m; ++i)
        for (uint j = 0; j < p.n; ++j) v = v * 1.0000001 + 1e-7;
    x[gl_GlobalInvocationID.x] = v;
}
)", "main", {}, "spin");
    Array x = Array::zeros(ctx, Shape{2048});
    k(x).push("m", 1000u).push("n", 60000u).groups(32);
    try {
        ctx.sync();
        FAIL("the wait did not time out");
    } catch (const VulkanError& e) {
        CHECK_THAT(e.what(), Catch::Contains("did not finish within 1 ms") && Catch::Contains("spin") &&
                                 Catch::Contains("fence_timeout_ms"));
    }
}
