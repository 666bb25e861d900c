// Stress cases for the zeroed scratch a context keeps between calls
// (ops::kept_zeros: select_radix's histogram, the measurements' per-slot
// counters), which every user must leave zero for the next: selections and
// measurements in a row with sizes and slot counts alternating (the
// scratch growing in between), and a Graph that measures, run between the
// eager calls; every result as the CPU reference's.
#include <vector>

#include "cpu/select.hpp"
#include "kiln/graph.hpp"
#include "kiln/label.hpp"
#include "kiln/measure.hpp"
#include "kiln/reference/label.hpp"
#include "kiln/reference/measure.hpp"
#include "kiln/statistics.hpp"
#include "measure_support.hpp"
#include "ops/measure_detail.hpp"
#include "stress/stress_support.hpp"

using namespace kiln;
using namespace kiln::test::stress;
using test::check_same;
using test::require_stats;

namespace {

// A measurement of labels on image, eager or in a graph, and its reference.
struct Measured {
    HostArray image, labels;
    std::vector<LabelStats> want;
};

Measured measured(HostArray mask, uint64_t seed) {
    Measured m{test::random_image(mask.shape, DType::float32, seed), cpu::label(mask).labels, {}};
    m.want = cpu::measure(m.image, m.labels);
    return m;
}

void check_median(const Context& ctx, const HostArray& h) {
    const Array a = Array::from_host(ctx, h);
    check_same(median(a), cpu::median(h));
    const std::vector<double> qs{1, 50, 99};
    const auto got = percentiles(a, qs);
    const auto want = cpu::percentiles(h, qs);
    for (size_t i = 0; i < qs.size(); ++i) check_same(got[i], want[i]);
}

}  // namespace

TEST_CASE("stress kept scratch: selections and measurements in a row, a Graph run between",
          "[stress][select][measure]") {
    Context ctx = test::context();
    // The graph measures more slots (a checkerboard's one-pixel labels) than
    // the counters first hold (1024).
    const size_t gy = scaled(61) | 1, gx = scaled(67) | 1;
    const Measured in_graph = measured(test::checkerboard(gy, gx), 1);
    REQUIRE(in_graph.want.size() > 1024);
    Array graph_img = Array::from_host(ctx, in_graph.image);
    Array graph_lab = Array::from_host(ctx, in_graph.labels);
    Graph g(ctx);
    Measurements graph_result;
    {
        auto capture = g.capture();
        graph_result = measure_async(graph_img, graph_lab, int32_t(in_graph.want.size()));
    }
    auto run_graph = [&] {
        INFO("graph run");
        g.run();
        require_stats(graph_result.stats(), in_graph.want, 1e-12);
    };
    repeat([&](uint64_t rep) {
        const uint64_t seed = 100 + 10 * rep;
        // Few slots, then more than any call before (the counters grow),
        // then few again.
        const Measured few = measured(test::random_mask(Shape{37, 41}, DType::uint8, 0.3, seed), seed + 1);
        const size_t by = scaled(101) | 1, bx = scaled(103) | 1;
        const Measured many = measured(test::checkerboard(by, bx), seed + 2);
        const HostArray big = test::random(Shape{scaled(size_t(1) << 20)}, DType::float32, seed + 3, -1, 1);
        const HostArray small16 = test::random(Shape{1031}, DType::int16, seed + 4, -30000, 30000);
        const HostArray small64 = test::random(Shape{33, 65}, DType::float64, seed + 5, -5, 5);

        {
            INFO("large median (fine histogram)");
            check_median(ctx, big);
        }
        for (const Measured* m : {&few, &many, &few}) {
            INFO("eager measurement of " << m->want.size() << " labels");
            Array img = Array::from_host(ctx, m->image), lab = Array::from_host(ctx, m->labels);
            for (uint32_t small : {0u, 64u})
                require_stats(ops::measure_with(img, lab, {}, true, small), m->want, 1e-12);
            run_graph();
            {
                INFO("int16 selection");
                check_median(ctx, small16);
            }
            require_stats(measure(img, lab), m->want, 1e-12);
            {
                INFO("float64 selection");
                check_median(ctx, small64);
            }
        }
        run_graph();
        {
            INFO("label_async -> measure_async between selections");
            const HostArray mask = test::random_mask(Shape{by, bx}, DType::uint8, 0.5927, seed + 6);
            const HostArray image = test::random_image(mask.shape, DType::float32, seed + 7);
            const auto pending =
                measure_async(Array::from_host(ctx, image), label_async(Array::from_host(ctx, mask)));
            check_median(ctx, big);
            require_stats(pending.stats(), cpu::measure(image, cpu::label(mask).labels), 1e-12);
        }
    });
}
