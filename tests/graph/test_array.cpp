#include <cstring>

#include "graph/copy_pool.hpp"
#include "support.hpp"

using namespace kiln;

TEST_CASE("push and pull round-trip every dtype and odd shapes", "[array]") {
    Context ctx = test::context();
    for (DType t : all_dtypes) {
        for (Shape s : {Shape{13}, Shape{127, 129}, Shape{3, 5, 7}}) {
            HostArray h = test::random(s, t, 17);
            Array a = Array::from_host(ctx, h);
            CHECK(a.shape() == s);
            CHECK(a.dtype() == t);
            test::require_close(a.to_host(), h, 0, 0);
        }
    }
}

TEST_CASE("bad shapes, sizes and handles give clear errors", "[array]") {
    Context ctx = test::context();
    CHECK_THROWS_WITH(Shape({0, 3}), Catch::Contains("zero extent"));
    CHECK_THROWS_WITH(Shape({1, 2, 3, 4}), Catch::Contains("1, 2 or 3"));
    CHECK_THROWS_WITH(Array::empty(ctx, Shape{}), Catch::Contains("empty"));
    Array a = Array::zeros(ctx, Shape{4, 5});
    std::vector<float> small(3);
    CHECK_THROWS_WITH(a.pull(small.data(), small.size() * 4), Catch::Contains("needs exactly 80"));
    CHECK_THROWS_WITH(a.push(small.data(), 12), Catch::Contains("needs exactly 80"));
    std::vector<int32_t> ints(20);
    CHECK_THROWS_WITH(a.pull(std::span<int32_t>(ints)), Catch::Contains("float32") && Catch::Contains("int32"));
    Array null;
    CHECK_THROWS_WITH(null.to_host(), Catch::Contains("null Array"));
    CHECK_THROWS_WITH(a.reshape(Shape{3, 7}), Catch::Contains("cannot reshape"));
    CHECK_THROWS_WITH(parse_dtype("complex256"), Catch::Contains("accepted: float32"));
    // Element counts that overflow, or whose bytes would, are refused where
    // the shape is made (-1 read as an unsigned extent is 2^64 - 1).
    const size_t huge = size_t(1) << 32;
    CHECK_THROWS_WITH(Shape({huge, huge}), Catch::Contains("more than 2^64") && Catch::Contains("at most 2^60"));
    CHECK_THROWS_WITH(Shape({size_t(-1)}), Catch::Contains("at most 2^60"));
    CHECK_THROWS_WITH(Shape({huge, huge / 2, 2}), Catch::Contains("more than 2^64"));
    CHECK_NOTHROW(Shape({size_t(1) << 30, size_t(1) << 30}));
    CHECK(byte_size(Shape{size_t(1) << 30, size_t(1) << 30}, DType::float64) == uint64_t(1) << 63);
    // More than the device holds: refused with both sizes; the host likewise,
    // both as OutOfMemory, which the CLI tells apart (exit code 3).
    CHECK_THROWS_AS(Array::empty(ctx, Shape{size_t(1) << 30, size_t(1) << 30}), OutOfMemory);
    CHECK_THROWS_AS(HostArray(Shape{size_t(1) << 30, size_t(1) << 30}, DType::float64), OutOfMemory);
    CHECK_THROWS_WITH(Array::empty(ctx, Shape{size_t(1) << 30, size_t(1) << 30}),
                      Catch::Contains("needs 4611686018427387904 bytes") && Catch::Contains("can hold at most"));
    CHECK_THROWS_WITH(HostArray(Shape{size_t(1) << 30, size_t(1) << 30}, DType::float64),
                      Catch::Contains("out of host memory") && Catch::Contains("9223372036854775808 bytes"));
    // The context still works.
    CHECK(a.to_vector<float>() == std::vector<float>(20, 0.0f));
}

TEST_CASE("zeros, full and reshape", "[array]") {
    Context ctx = test::context();
    CHECK(Array::full(ctx, Shape{2, 3}, 2.5).to_vector<float>() == std::vector<float>(6, 2.5f));
    CHECK(Array::full(ctx, Shape{5}, 300, DType::uint8).to_vector<uint8_t>() == std::vector<uint8_t>(5, 255));
    CHECK(Array::full(ctx, Shape{5}, -7.9, DType::int16).to_vector<int16_t>() == std::vector<int16_t>(5, -7));
    Array z = Array::zeros(ctx, Shape{2, 3, 4}, DType::int32);
    Array r = z.reshape(Shape{24});
    CHECK(r.shape() == Shape{24});
    CHECK(r.to_vector<int32_t>() == std::vector<int32_t>(24, 0));
}

TEST_CASE("memory is sub-allocated in blocks, reused and returned", "[array][memory]") {
    ContextOptions o;
    o.block_size = 4 << 20;
    Context ctx = test::context(o);
    auto before = ctx.memory_stats();
    {
        std::vector<Array> arrays;
        for (int i = 0; i < 64; ++i) arrays.push_back(Array::zeros(ctx, Shape{1000 + size_t(i)}));
        ctx.sync();
        auto during = ctx.memory_stats();
        CHECK(during.in_use >= before.in_use + 64 * 4000);
        CHECK(during.blocks <= before.blocks + 1);  // 64 arrays, not 64 allocations from Vulkan
        Array big = Array::zeros(ctx, Shape{3 << 20});  // larger than half a block: its own block
        ctx.sync();
        CHECK(ctx.memory_stats().blocks >= during.blocks + 1);
        CHECK(ctx.memory_stats().peak >= during.in_use + (12 << 20));
    }
    ctx.sync();
    auto after = ctx.memory_stats();
    CHECK(after.in_use == before.in_use);
    // Kept for reuse: one spare block per usage, and the block of the latest
    // array larger than half a block.
    CHECK(after.blocks <= before.blocks + 2);
    CHECK(ctx.memory_stats().str().find("in use") != std::string::npos);
    {
        // The next large array takes the kept block; a small one does not.
        Array big = Array::zeros(ctx, Shape{(3 << 20) - 1000});
        Array small = Array::zeros(ctx, Shape{10});
        ctx.sync();
        CHECK(ctx.memory_stats().blocks == after.blocks);
        CHECK(big.to_vector<float>()[12345] == 0.0f);
    }
    ctx.sync();
    CHECK(ctx.memory_stats().blocks == after.blocks);
}

TEST_CASE("every transfer path moves the bytes intact", "[array]") {
    // In place (host-visible memory), through the staging ring in chunks
    // (larger than the ring), and by importing the caller's pages.
    ContextOptions o;
    o.staging_size = 1 << 20;
    int path = GENERATE(0, 1, 2, 3);
    o.direct_host_access = path == 0;
    o.import_threshold = path == 2 ? (64 << 10) : ~0ull;
    Context ctx = test::context(o);
    if (path == 2 && !ctx.device().external_memory_host) return;
    INFO("path " << path);
    HostArray h = test::random(Shape{3, 333, 1031}, DType::float32, 5);
    Array a = Array::from_host(ctx, h);
    Array b = add(a, 1.0);
    HostArray got(h.shape, h.dtype);
    if (path == 3) {
        // Pinned memory: one DMA each way.
        PinnedBuffer pin(ctx, h.nbytes());
        std::memcpy(pin.data(), h.data(), h.nbytes());
        a.push(pin.data(), pin.size());
        b = add(a, 1.0);
        b.pull(pin.data(), pin.size());
        std::memcpy(got.data(), pin.data(), pin.size());
    } else {
        got = b.to_host();
    }
    auto g = got.as<float>();
    auto w = h.as<float>();
    for (size_t i = 0; i < g.size(); ++i) REQUIRE(g[i] == w[i] + 1.0f);
}

TEST_CASE("pulling a fresh result is one submission", "[array]") {
    // The copy out is recorded behind the work that computes the array:
    // through the staging ring and into pinned memory alike.
    ContextOptions o;
    o.direct_host_access = false;
    o.import_threshold = ~0ull;
    Context ctx = test::context(o);
    std::vector<float> x(4099);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);
    Array a = Array::from(ctx, Shape{x.size()}, x);
    ctx.sync();
    const bool pinned = GENERATE(false, true);
    INFO((pinned ? "pinned" : "staging"));
    PinnedBuffer pin(ctx, x.size() * 4);
    std::vector<float> pageable(x.size());
    std::span<float> out = pinned ? pin.as<float>() : std::span<float>(pageable);
    const uint64_t before = ctx.profile().submission_count();
    Array b = add(a, 1.0);
    b.pull(out);
    CHECK(ctx.profile().submission_count() - before == 1);
    for (size_t i = 0; i < x.size(); ++i) REQUIRE(out[i] == x[i] + 1.0f);
}

TEST_CASE("pushing into an array in use keeps program order", "[array]") {
    Context ctx = test::context();
    std::vector<float> one(1031, 1.0f), two(1031, 2.0f);
    Array a = Array::from(ctx, Shape{1031}, one);
    Array b = add(a, a);  // pending, reads a
    a.push(std::span<const float>(two));
    Array c = add(a, a);
    CHECK(b.to_vector<float>() == std::vector<float>(1031, 2.0f));
    CHECK(c.to_vector<float>() == std::vector<float>(1031, 4.0f));
}

TEST_CASE("float64 is available where the device has it, else a clear error", "[array]") {
    Context ctx = test::context();
    if (ctx.device().float64) {
        Array a = Array::full(ctx, Shape{7}, 1.0 / 3.0, DType::float64);
        CHECK(a.to_vector<double>() == std::vector<double>(7, 1.0 / 3.0));
    } else {
        CHECK_THROWS_WITH(Array::zeros(ctx, Shape{7}, DType::float64), Catch::Contains("shaderFloat64"));
    }
}

TEST_CASE("pageable transfers in pieces, copied by several threads, move the bytes intact", "[array]") {
    // Four copy threads, even on a 2-core host (where one is the default).
    const unsigned threads = kiln::detail::copy_threads();
    kiln::detail::set_copy_threads(4);
    REQUIRE(kiln::detail::copy_threads() == 4);
    ContextOptions o;
    o.direct_host_access = false;
    o.import_threshold = ~0ull;
    const uint64_t piece = GENERATE(uint64_t(0), uint64_t(1) << 20, uint64_t(300) << 10);
    o.transfer_piece = piece;
    Context ctx = test::context(o);
    INFO("piece " << piece);
    // 6 MiB and a bit: pieces of 1 MiB (chosen by size), 1 MiB or 300 KiB,
    // the last one short, each split among the threads in 4 KiB-aligned parts.
    std::vector<float> x((6u << 18) + 123), back(x.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 65521);
    Array a = Array::from(ctx, Shape{x.size()}, x);
    Array b = add(a, 1.0);
    b.pull(std::span<float>(back));
    for (size_t i = 0; i < x.size(); ++i) REQUIRE(back[i] == x[i] + 1.0f);
    a.pull(std::span<float>(back));
    CHECK(std::memcmp(back.data(), x.data(), x.size() * 4) == 0);
    kiln::detail::set_copy_threads(threads);
}
