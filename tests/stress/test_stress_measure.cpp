// Stress cases for the per-label measurements (measure_runs' atomics once
// per run of equal labels, measure_reduce's segments merged by the last
// one of a slot): label images whose runs change at every pixel or every
// third, a label per pixel, one label over everything, min/max ties and NaN
// pixels across segments, every integer label dtype, and label_async ->
// measure_async in one submission; every table as kiln::cpu::measure's.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kiln/graph.hpp"
#include "kiln/label.hpp"
#include "kiln/measure.hpp"
#include "kiln/reference/label.hpp"
#include "kiln/reference/measure.hpp"
#include "measure_support.hpp"
#include "stress/stress_support.hpp"

using namespace kiln;
using namespace kiln::test::stress;
using test::require_measure_same;
using test::require_stats;

namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

// An int32 label image of the shape, label(flat index).
HostArray labels_of(Shape shape, const std::function<int32_t(size_t)>& label) {
    HostArray l(shape, DType::int32);
    auto v = l.as<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = label(i);
    return l;
}

// The label images that stress the runs (a new run at every pixel, every
// third, once per row) and the slots (one pixel each, or one slot for all).
std::vector<std::pair<std::string, HostArray>> run_cases(Shape shape, uint64_t seed) {
    const size_t nx = shape[1];
    return {
        {"every pixel its own label", labels_of(shape, [](size_t i) { return int32_t(i + 1); })},
        {"one label over everything", labels_of(shape, [](size_t) { return 1; })},
        {"two labels alternating every pixel", labels_of(shape, [](size_t i) { return int32_t(1 + i % 2); })},
        {"runs of three alternating", labels_of(shape, [](size_t i) { return int32_t(1 + (i / 3) % 2); })},
        {"every third pixel background",
         labels_of(shape, [](size_t i) { return i % 3 == 0 ? 0 : int32_t(1 + (i / 3) % 4); })},
        {"one label per row", labels_of(shape, [nx](size_t i) { return int32_t(1 + i / nx); })},
        {"label() at the percolation threshold",
         cpu::label(test::random_mask(shape, DType::uint8, 0.5927, seed)).labels},
    };
}

}  // namespace

TEST_CASE("stress measure: a label per pixel, one over everything, labels alternating every pixel",
          "[stress][measure]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape shape{scaled(193), scaled(197)};
        const HostArray image = test::random_image(shape, DType::float32, 100 + rep);
        for (const auto& [name, labels] : run_cases(shape, 200 + rep)) {
            INFO(name);
            require_measure_same(ctx, image, labels);
        }
    });
}

TEST_CASE("stress measure: equal values, min/max ties and NaN pixels across segments", "[stress][measure]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape shape{scaled(151), scaled(157)};
        const auto cases = run_cases(shape, 300 + rep);
        // All values equal: every minimum and maximum is a tie, won by the
        // label's first pixel wherever its segment runs; -0.0 and 0.0 tie too.
        HostArray flat = HostArray::from(shape, std::vector<float>(shape.size(), 3.0f));
        for (size_t i = rep % 5; i < flat.size(); i += 389) flat.as<float>()[i] = i % 2 ? 0.0f : -0.0f;
        // Three integer values: ties everywhere.
        const HostArray few = test::random(shape, DType::int16, 400 + rep, 0, 2);
        // NaN pixels (skipped), a label all NaN, and many labels' first pixel NaN.
        HostArray nans = test::random_image(shape, DType::float64, 500 + rep);
        for (size_t i = rep % 7; i < nans.size(); i += 7) nans.as<double>()[i] = nan_v;
        // Labels of one pixel or one row have few ties to break: left out.
        for (size_t c : {1, 2, 3, 4, 6}) {
            const auto& [name, labels] = cases[c];
            INFO(name);
            {
                INFO("all values equal");
                require_measure_same(ctx, flat, labels);
            }
            {
                INFO("int16 values 0..2");
                require_measure_same(ctx, few, labels);
            }
            {
                INFO("NaN every 7th pixel");
                require_measure_same(ctx, nans, labels);
            }
        }
        HostArray all_nan_label = cases[3].second;  // runs of three
        for (size_t i = 0; i < all_nan_label.size(); ++i)
            if (std::isnan(nans.as<double>()[i])) all_nan_label.as<int32_t>()[i] = 7;
        const std::vector<int32_t> index{7, 2, 0, 1, 7, 12345};
        require_measure_same(ctx, nans, all_nan_label, index);
    });
}

TEST_CASE("stress measure: int8, int16 and uint32 label images", "[stress][measure]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape shape{scaled(151), scaled(157)};
        const HostArray image = test::random_image(shape, DType::float32, 600 + rep);
        const HostArray l32 = cpu::label(test::random_mask(shape, DType::uint8, 0.5927, 700 + rep)).labels;
        const std::vector<int32_t> index{5, 1, 0, 3, 5};
        for (DType t : {DType::int8, DType::int16, DType::uint32}) {
            // Folded into the dtype's range: labels 1..100 (int8) or
            // 1..30000 (int16) reused by many components far apart.
            const int32_t fold = t == DType::int8 ? 100 : t == DType::int16 ? 30000 : 0;
            for (bool alternating : {false, true}) {
                INFO(dtype_name(t) << (alternating ? " alternating every pixel" : " label() folded"));
                HostArray l(shape, t);
                visit_dtype(t, [&](auto z) {
                    using T = decltype(z);
                    auto out = l.as<T>();
                    for (size_t i = 0; i < out.size(); ++i) {
                        const int32_t v = l32.as<int32_t>()[i];
                        out[i] = alternating ? T(1 + i % 2) : T(fold && v ? 1 + (v - 1) % fold : v);
                    }
                });
                require_measure_same(ctx, image, l);
                require_measure_same(ctx, image, l, index);
            }
        }
    });
}

TEST_CASE("stress measure: measure_async(image, label_async(mask)) equals the reference",
          "[stress][measure]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const size_t ny = scaled(151) | 1, nx = scaled(157) | 1;
        const Shape shape{ny, nx};
        // The checkerboard has more labels than the table is first sized for
        // (max(1024, pixels / 4096)): stats() measures again.
        const std::vector<std::pair<std::string, HostArray>> masks{
            {"random at the percolation threshold",
             test::random_mask(shape, DType::uint8, 0.5927, 800 + rep)},
            {"checkerboard", test::checkerboard(ny, nx)},
            {"full", full(shape)},
            {"dots", dots(ny, nx, 2 + rep % 2)},
            {"comb", comb(ny, nx)}};
        const HostArray image = test::random_image(shape, DType::float32, 900 + rep);
        Array img = Array::from_host(ctx, image);
        for (const auto& [name, mask] : masks) {
            INFO(name);
            const auto want = cpu::measure(image, cpu::label(mask).labels);
            Array m = Array::from_host(ctx, mask);
            const Measurements pending = measure_async(img, label_async(m));
            REQUIRE(pending.size() == want.size());
            require_stats(pending.stats(), want, 1e-12);
            require_stats(measure(img, label(m)), want, 1e-12);
        }
        // The same in a Graph recorded once, a mask pushed before each run.
        Array mask = Array::empty(ctx, shape, DType::uint8);
        Graph g(ctx);
        Measurements in_graph;
        {
            auto capture = g.capture();
            in_graph = measure_async(img, label_async(mask));
        }
        for (const auto& [name, h] : masks) {
            INFO("graph run, " << name);
            mask.push(h.bytes.data(), h.bytes.size());
            g.run();
            require_stats(in_graph.stats(), cpu::measure(image, cpu::label(h).labels), 1e-12);
        }
    });
}
