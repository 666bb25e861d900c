// The per-label measurements keep their per-slot counters (counts, segments
// done) in memory the context keeps between calls, which each call leaves
// zero for the next (measure_record.cpp): calls in a row, with more slots
// than the memory first held, with both reduction paths and inside and
// outside a Graph, must each find it zeroed.
#include <cmath>
#include <vector>

#include "kiln/graph.hpp"
#include "kiln/label.hpp"
#include "kiln/measure.hpp"
#include "kiln/reference/label.hpp"
#include "kiln/reference/measure.hpp"
#include "ops/measure_detail.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

// Counts, extrema and boxes exactly; sums to 1e-12 (another order).
void require_equal(const std::vector<LabelStats>& got, const std::vector<LabelStats>& want) {
    REQUIRE(got.size() == want.size());
    for (size_t k = 0; k < got.size(); ++k) {
        INFO("entry " << k << " label " << want[k].label << " count " << want[k].count);
        CHECK(got[k].label == want[k].label);
        CHECK(got[k].count == want[k].count);
        CHECK(std::abs(got[k].sum - want[k].sum) <= 1e-12 * std::max(1.0, std::abs(want[k].sum)));
        CHECK(got[k].bbox_start == want[k].bbox_start);
        CHECK(got[k].bbox_stop == want[k].bbox_stop);
        CHECK(got[k].min_pos == want[k].min_pos);
        CHECK(got[k].max_pos == want[k].max_pos);
    }
}

HostArray positive_image(Shape shape, uint64_t seed) {
    HostArray u = test::random(shape, DType::float64, seed, 1, 100);
    HostArray a(shape, DType::float32);
    for (size_t i = 0; i < a.size(); ++i) a.as<float>()[i] = float(u.as<double>()[i]);
    return a;
}

// On the left, bars of 8 columns, each 30 rows taller than the one before
// (up to 960 pixels: two segments of 512 on the GPU path); on the right, a
// checkerboard of one-pixel labels.
HostArray bars_mask(Shape shape) {
    HostArray m(shape, DType::uint8);
    const size_t ny = shape[0], nx = shape[1];
    for (size_t y = 0; y < ny; ++y)
        for (size_t x = 0; x < nx; ++x) {
            const bool bar = x < nx / 2 && x % 10 < 8 && y < 30 * (x / 10 + 1);
            const bool dots = x >= nx / 2 && (x + y) % 2 == 0;
            m.as<uint8_t>()[y * nx + x] = (bar || dots) ? 1 : 0;
        }
    return m;
}

}  // namespace

TEST_CASE("measurements in a row reuse the context's zeroed counters", "[ops][measure]") {
    Context ctx = test::context();
    // 120x100: 5 bars and 3000 dots, more slots than the counters first
    // hold (1024), so the second case grows them; 30x40 (2 bars, 300 dots)
    // fits.
    const HostArray small_mask = bars_mask(Shape{30, 40});
    const HostArray big_mask = bars_mask(Shape{120, 100});
    const HostArray masks[] = {small_mask, big_mask, small_mask};
    Graph g(ctx);
    Measurements in_graph;
    Array graph_img = Array::from_host(ctx, positive_image(big_mask.shape, 7));
    Array graph_lab = Array::from_host(ctx, cpu::label(big_mask).labels);
    {
        auto capture = g.capture();
        in_graph = measure_async(graph_img, graph_lab, cpu::label(big_mask).count);
    }
    const auto graph_want = cpu::measure(positive_image(big_mask.shape, 7), cpu::label(big_mask).labels);
    for (int round = 0; round < 2; ++round)
        for (size_t k = 0; k < std::size(masks); ++k) {
            INFO("round " << round << " case " << k);
            const HostArray image = positive_image(masks[k].shape, 10 + k);
            const cpu::LabelResult l = cpu::label(masks[k]);
            Array img = Array::from_host(ctx, image), lab = Array::from_host(ctx, l.labels);
            const auto want = cpu::measure(image, l.labels);
            for (uint32_t small : {0u, 64u})
                require_equal(ops::measure_with(img, lab, {}, true, small), want);
            // Two more slots than labels: their rows are empty.
            const auto extra = measure_async(img, lab, l.count + 2).stats();
            REQUIRE(extra.size() == want.size() + 2);
            require_equal(std::vector<LabelStats>(extra.begin(), extra.end() - 2), want);
            CHECK(extra.back().count == 0);
            CHECK(std::isnan(extra.back().mean));
            g.run();
            require_equal(in_graph.stats(), graph_want);
        }
}
