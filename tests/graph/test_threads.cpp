// One Context shared by several threads (copies share its state): every
// call takes the context's lock, so nothing crashes and every result is
// the CPU reference's, with validation on. Before the lock, two threads
// pulling results crashed in Allocator::free in 5 runs of 5.
#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "cpu/select.hpp"
#include "kiln/reference/label.hpp"
#include "kiln/reference/transforms.hpp"
#include "kiln/transforms.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

// A thread's work: element-wise chain, sum, median (kept scratch), label and
// measure (kept scratch), map_coordinates (a kept image), each checked; `failures` counts wrong results.
void work(Context ctx, int id, int rounds, std::atomic<int>& failures, std::string& error) {
    try {
        for (int r = 0; r < rounds; ++r) {
            const uint64_t seed = 1000 * uint64_t(id) + uint64_t(r);
            HostArray h = test::random(Shape{37, 41}, DType::float32, seed, -1, 1);
            Array a = Array::from_host(ctx, h);
            Array b = add(multiply(a, 2.0), 1.0);
            const std::vector<float> got = b.to_vector<float>();
            for (size_t i = 0; i < got.size(); ++i)
                if (got[i] != h.as<float>()[i] * 2.0f + 1.0f) ++failures;
            if (median(a) != cpu::median(h)) ++failures;
            HostArray mask(h.shape, DType::uint8);
            for (size_t i = 0; i < h.size(); ++i) mask.as<uint8_t>()[i] = h.as<float>()[i] > 0.3f;
            Labels l = label(Array::from_host(ctx, mask), 4);
            const cpu::LabelResult want = cpu::label(mask, 4);
            if (l.count != want.count || l.labels.to_vector<int32_t>() != std::vector<int32_t>(
                                                                              want.labels.as<int32_t>().begin(),
                                                                              want.labels.as<int32_t>().end()))
                ++failures;
            const auto stats = measure(a, l);
            if (int64_t(stats.size()) != want.count) ++failures;
            size_t pixels = 0;
            for (const LabelStats& s : stats) pixels += s.count;
            size_t fg = 0;
            for (size_t i = 0; i < mask.size(); ++i) fg += mask.as<uint8_t>()[i];
            if (pixels != fg) ++failures;
            // map_coordinates through the context's one kept image (each
            // thread's input different): fill and gather must not interleave.
            HostArray co = test::random(Shape{2, 2000}, DType::float32, seed + 7, 0, 36);
            const Interp linear{1, InterpMode::reflect, 0, true};
            const HostArray got_map = map_coordinates(a, Array::from_host(ctx, co), linear).to_host();
            const HostArray want_map = cpu::map_coordinates(h, co, linear);
            for (size_t i = 0; i < want_map.size(); ++i)
                if (std::abs(got_map.as<float>()[i] - want_map.as<float>()[i]) > 1e-5f) ++failures;
        }
    } catch (const std::exception& e) {
        error = e.what();
        ++failures;
    }
}

} // namespace

TEST_CASE("one context shared by threads gives every result right", "[context][threads]") {
    Context ctx = test::context();
    constexpr int threads = 4, rounds = 6;
    std::atomic<int> failures{0};
    std::vector<std::string> errors(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back(work, ctx, t, rounds, std::ref(failures), std::ref(errors[t]));
    for (auto& t : pool) t.join();
    for (auto& e : errors) INFO(e);
    CHECK(failures == 0);
    for (const auto& e : errors) CHECK(e.empty());
    ctx.sync();
}

TEST_CASE("a graph capture records only the thread that began it", "[context][threads][graph]") {
    Context ctx = test::context();
    Array in = Array::from(ctx, Shape{64}, std::vector<float>(64, 1.0f));
    Array out;
    Graph g(ctx);
    std::atomic<bool> other_ok{false};
    {
        auto capture = g.capture();
        // Meanwhile another thread works eagerly: its ops run and its pulls
        // work, where in the capturing thread a pull is refused.
        std::thread other([&] {
            Array x = Array::from(ctx, Shape{8}, std::vector<float>(8, 2.0f));
            other_ok = add(x, 1.0).to_vector<float>() == std::vector<float>(8, 3.0f);
        });
        other.join();
        out = multiply(in, 3.0);
        CHECK_THROWS_WITH(out.to_vector<float>(), Catch::Contains("inside a Graph capture"));
    }
    CHECK(other_ok);
    CHECK(g.stats().nodes == 1);  // only the capturing thread's multiply
    g.run();
    CHECK(out.to_vector<float>() == std::vector<float>(64, 3.0f));
}
