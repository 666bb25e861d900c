#include <fstream>

#include "graph/context_impl.hpp"
#include "support.hpp"

using namespace kiln;

TEST_CASE("an explicit graph records once and runs many times with new inputs", "[graph]") {
    Context ctx = test::context();
    Array in = Array::zeros(ctx, Shape{37, 41});
    Array out;
    Graph g(ctx);
    {
        auto capture = g.capture();
        out = add(multiply(in, 2.0), 1.0);
        CHECK_THROWS_WITH(in.push(std::vector<float>(37 * 41).data(), 37 * 41 * 4),
                          Catch::Contains("inside a Graph capture"));
    }
    for (int run = 0; run < 3; ++run) {
        HostArray h = test::random(Shape{37, 41}, DType::float32, 100 + run);
        in.push(h.data(), h.nbytes());
        g.run();
        auto got = out.to_vector<float>();
        auto w = h.as<float>();
        for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == w[i] * 2.0f + 1.0f);
    }
    CHECK(g.stats().nodes == 2);
    CHECK(g.stats().levels == 2);
}

TEST_CASE("intermediates whose lifetimes do not overlap share memory", "[graph]") {
    Context ctx = test::context();
    HostArray h = test::random(Shape{1000}, DType::float32, 3);
    Array a = Array::from_host(ctx, h);
    Array out;
    Graph g(ctx);
    {
        auto capture = g.capture();
        Array t = a;
        for (int i = 0; i < 6; ++i) t = add(t, 1.0);  // a chain: each step's input dies after it
        out = t;
    }
    g.run();
    auto got = out.to_vector<float>();
    auto w = h.as<float>();
    for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == w[i] + 6.0f);
    GraphStats s = g.stats();
    CHECK(s.levels == 6);
    CHECK(s.transient_bytes >= 5 * 4000);
    CHECK(s.arena_bytes < s.transient_bytes);  // 5 intermediates in the space of 2
    CHECK(s.arena_bytes <= 2 * 4096);
}

TEST_CASE("schedule puts independent nodes in one level, dependent ones after", "[graph]") {
    using namespace kiln::detail;
    Context ctx = test::context();
    auto& st = ctx.state();
    auto s1 = std::make_shared<Storage>(&st.retired, 64), s2 = std::make_shared<Storage>(&st.retired, 64),
         s3 = std::make_shared<Storage>(&st.retired, 64);
    auto dispatch = [](std::vector<BufferRef> b) {
        Dispatch d;
        d.name = "k";
        d.buffers = std::move(b);
        return Node{d};
    };
    GraphIR g;
    g.nodes.push_back(dispatch({{s1, VK_NULL_HANDLE, 0, 0, Access::write}}));                   // 0: write s1
    g.nodes.push_back(dispatch({{s2, VK_NULL_HANDLE, 0, 0, Access::write}}));                   // 0: write s2
    g.nodes.push_back(dispatch({{s1, VK_NULL_HANDLE, 0, 0, Access::read}, {s3, VK_NULL_HANDLE, 0, 0, Access::write}}));  // 1
    g.nodes.push_back(dispatch({{s2, VK_NULL_HANDLE, 0, 0, Access::read}}));                    // 1: reads s2
    g.nodes.push_back(dispatch({{s1, VK_NULL_HANDLE, 0, 0, Access::write}}));                   // 2: WAR after node 2
    Plan p;
    schedule(g, p);
    plan_barriers(p);
    CHECK(p.level == std::vector<uint32_t>{0, 0, 1, 1, 2});
    CHECK(p.levels == 3);
    int barriers = 0;
    for (bool b : p.barrier_before) barriers += b;
    CHECK(barriers == 2);
}

TEST_CASE("every node is timed and the profile gives statistics and a Chrome trace", "[graph][profile]") {
    Context ctx = test::context();
    if (!ctx.device().timestamps) {
        WARN("the device has no timestamps");
        return;
    }
    Array a = Array::full(ctx, Shape{4096}, 1.0);
    for (int i = 0; i < 5; ++i) a = add(a, 1.0);
    ctx.sync();
    auto stats = ctx.profile().stats();
    auto it = std::find_if(stats.begin(), stats.end(), [](auto& k) { return k.name == "binary4"; });
    REQUIRE(it != stats.end());
    CHECK(it->count == 5);
    CHECK(it->min <= it->median);
    CHECK(it->median <= it->max);
    CHECK(it->min >= 0);
    CHECK(ctx.profile().table().find("binary4") != std::string::npos);
    std::string trace = ctx.profile().chrome_trace();
    CHECK(trace.find("\"traceEvents\"") != std::string::npos);
    CHECK(trace.find("\"name\":\"binary4\"") != std::string::npos);
    CHECK(a.to_vector<float>() == std::vector<float>(4096, 6.0f));
}

TEST_CASE("benchmark returns CPU and GPU times per repetition", "[graph][profile]") {
    Context ctx = test::context();
    Array a = Array::full(ctx, Shape{4096}, 1.0);
    Array b;
    auto r = benchmark(ctx, [&] { b = add(a, a); }, 4, 1, "add");
    CHECK(r.cpu_ms.size() == 4);
    if (ctx.device().timestamps) {
        REQUIRE(r.gpu_ms.size() == 4);
        CHECK(r.gpu_min() >= 0);
        CHECK(r.gpu_median() <= r.cpu_median() + 1e-9);
    }
    CHECK_THROWS_AS(benchmark(ctx, [] {}, 0), InvalidArgument);
}

TEST_CASE("pending work is submitted past the node threshold", "[graph]") {
    ContextOptions o;
    o.flush_nodes = 8;
    Context ctx = test::context(o);
    Array a = Array::zeros(ctx, Shape{100});
    for (int i = 0; i < 20; ++i) a = add(a, 1.0);
    CHECK(ctx.state().scheduler.pending_serial() >= 3);  // two submissions went before any pull
    CHECK(a.to_vector<float>() == std::vector<float>(100, 20.0f));
}

TEST_CASE("the pipeline cache is written to disk and reused", "[graph]") {
    // A folder of its own: gpu-check runs suites side by side in one folder.
    test::TempDir temp;
    const std::string dir = temp.file("pipeline-cache");
    {
        ContextOptions o;
        o.cache_dir = dir;
        o.pipeline_cache = true;
        Context ctx = test::context(o);
        Array a = Array::zeros(ctx, Shape{10});
        CHECK(add(a, 1.0).to_vector<float>()[0] == 1.0f);
    }
    size_t files = 0;
    for (auto& e : std::filesystem::directory_iterator(dir)) files += e.path().extension() == ".bin";
    CHECK(files == 1);
    {
        ContextOptions o;
        o.cache_dir = dir;
        Context ctx = test::context(o);
        Array a = Array::zeros(ctx, Shape{10});
        CHECK(add(a, 2.0).to_vector<float>()[0] == 2.0f);
    }
}

TEST_CASE("a graph pushes from and pulls into pinned buffers at every run", "[graph]") {
    Context ctx = test::context();
    const size_t n = 1031;
    PinnedBuffer in(ctx, n * 4), out(ctx, n * 4);
    Array a = Array::empty(ctx, Shape{n}), b;
    Graph g(ctx);
    {
        auto capture = g.capture();
        a.push(in.data(), in.size());
        b = multiply(a, 3.0);
        b.pull(out.data(), out.size());
    }
    for (int run = 0; run < 3; ++run) {
        auto x = in.as<float>();
        for (size_t i = 0; i < n; ++i) x[i] = float(i + run);
        g.run();
        auto y = out.as<float>();
        for (size_t i = 0; i < n; ++i) REQUIRE(y[i] == 3.0f * float(i + run));
    }
    CHECK(g.stats().nodes == 3);
}

TEST_CASE("a graph whose capture threw does not run until captured again", "[graph]") {
    Context ctx = test::context();
    Array a = Array::from(ctx, Shape{16}, std::vector<float>(16, 1.0f));
    Array wrong = Array::zeros(ctx, Shape{3});
    Array b, c;
    Graph g(ctx);
    try {
        auto capture = g.capture();
        b = add(a, 1.0);
        c = add(b, wrong);  // shapes differ: throws inside the capture
        FAIL("add of different shapes did not throw");
    } catch (const InvalidArgument&) {
    }
    CHECK_THROWS_WITH(g.run(), Catch::Contains("capture ended with an exception") &&
                                   Catch::Contains("capture the graph again"));
    CHECK_THROWS_AS(g.launch(), InvalidArgument);
    {
        auto capture = g.capture();
        b = add(a, 1.0);
        c = multiply(b, 2.0);
    }
    CHECK(g.stats().nodes == 2);  // the failed capture's node is gone
    g.run();
    CHECK(c.to_vector<float>() == std::vector<float>(16, 4.0f));
}
