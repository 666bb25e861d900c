// A soak: many mixed eager ops, pulls and graph runs on one context, with
// host RSS and the context's memory sampled; both must be flat after the
// warm-up. KILN_SOAK_ITERATIONS sets the length (scripts/soak runs 10^5).
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "support.hpp"

using namespace kiln;

namespace {

// Resident set size of this process, bytes (Linux /proc).
uint64_t rss_bytes() {
    std::ifstream f("/proc/self/statm");
    uint64_t pages = 0, resident = 0;
    f >> pages >> resident;
    return resident * 4096;
}

uint64_t soak_iterations() {
    const char* v = std::getenv("KILN_SOAK_ITERATIONS");
    return v && *v ? std::strtoull(v, nullptr, 10) : 1500;
}

} // namespace

TEST_CASE("a long run keeps host and device memory flat", "[soak]") {
    ContextOptions o;
    o.profile_capacity = 512;  // reached during the warm-up, then a ring
    Context ctx = test::context(o);
    const uint64_t n = std::max<uint64_t>(soak_iterations(), 100);
    const uint64_t warmup = n / 5;
    HostArray h = test::random(Shape{33, 35}, DType::float32, 5, -1, 1);
    Array in = Array::from_host(ctx, h);
    PinnedBuffer pinned(ctx, h.nbytes());
    Graph g(ctx);
    Array graph_out = Array::empty(ctx, h.shape);
    {
        auto capture = g.capture();
        graph_out = add(multiply(in, 2.0), 1.0);
    }
    uint64_t rss_after_warmup = 0, rss_max = 0;
    MemoryStats device_after_warmup;
    for (uint64_t i = 0; i < n; ++i) {
        switch (i % 4) {
        case 0: {  // eager chain and a pull into a fresh vector
            Array b = threshold(subtract(in, double(i % 7) / 10), 0.0);
            const auto v = b.to_vector<uint8_t>();
            REQUIRE(v.size() == h.size());
            break;
        }
        case 1:  // a reduction read back
            REQUIRE(std::isfinite(sum(multiply(in, in))));
            break;
        case 2: {  // a graph run, its output pulled into pinned memory
            g.run();
            graph_out.pull(pinned.data(), pinned.size());
            break;
        }
        default: {  // push into a fresh array, label it, drop everything
            Array m = Array::from_host(ctx, h);
            Labels l = label(threshold(m, 0.5), 4);
            REQUIRE(l.count >= 0);
        }
        }
        if (i + 1 == warmup) {
            ctx.sync();
            rss_after_warmup = rss_bytes();
            device_after_warmup = ctx.memory_stats();
        }
        if (i + 1 > warmup && (i % 64 == 0 || i + 1 == n)) rss_max = std::max(rss_max, rss_bytes());
    }
    ctx.sync();
    const MemoryStats device_end = ctx.memory_stats();
    WARN("soak: " << n << " iterations, host RSS " << rss_after_warmup / 1024 << " KiB after the warm-up, at most "
                  << rss_max / 1024 << " KiB after it; device memory in use " << device_after_warmup.in_use
                  << " then " << device_end.in_use << " bytes, reserved " << device_after_warmup.reserved
                  << " then " << device_end.reserved);
    // Flat: host growth within allocator noise (2 MiB), device memory the
    // same. Under AddressSanitizer freed memory waits in its quarantine
    // (256 MiB), so RSS grows by design there: only the device is checked.
#if !defined(__SANITIZE_ADDRESS__)
    CHECK(rss_max <= rss_after_warmup + (2u << 20));
#endif
    CHECK(device_end.in_use == device_after_warmup.in_use);
    CHECK(device_end.reserved == device_after_warmup.reserved);
    CHECK(ctx.profile().events().size() <= 512);
}
