// GPU per-label measurements against kiln::cpu::measure (itself checked
// against scipy.ndimage) and the SciPy fixtures: every image dtype, label
// images from label() and by hand, index lists, NaN pixels, ties, labels
// small and large enough for every reduction path, both accumulators.
#include <cmath>
#include <limits>
#include <vector>

#include "kiln/label.hpp"
#include "kiln/measure.hpp"
#include "kiln/reference/label.hpp"
#include "kiln/reference/measure.hpp"
#include "label_support.hpp"
#include "measure_fixture.hpp"
#include "measure_support.hpp"
#include "ops/measure_detail.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

using Expected = test::MeasureExpected;
using test::MeasureCase;
using test::random_image;
using test::random_mask;
using test::require_measure_same;
using test::require_stats;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("measure equals scipy.ndimage on the SciPy fixtures", "[ops][measure]") {
    Context ctx = test::context();
    for (const MeasureCase& c : test::measure_cases) {
        INFO(c.name);
        const HostArray image = test::from_values(c.shape, parse_dtype(c.image_dtype), c.image);
        const HostArray labels = test::from_values(c.shape, parse_dtype(c.label_dtype), c.labels);
        const auto got =
            measure(Array::from_host(ctx, image), Array::from_host(ctx, labels), c.index);
        REQUIRE(got.size() == c.expected.size());
        for (size_t k = 0; k < got.size(); ++k) {
            const LabelStats& s = got[k];
            const Expected& e = c.expected[k];
            INFO("label " << e.label);
            CHECK(s.label == e.label);
            CHECK(s.count == e.count);
            for (auto [g, w] : {std::pair{s.sum, e.sum},
                                {s.mean, e.mean},
                                {s.variance, e.variance},
                                {s.std, e.std},
                                {s.center_of_mass[0], e.center_of_mass[0]},
                                {s.center_of_mass[1], e.center_of_mass[1]},
                                {s.center_of_mass[2], e.center_of_mass[2]}}) {
                if (std::isnan(w))
                    CHECK(std::isnan(g));
                else
                    CHECK(g == Approx(w).epsilon(1e-11).margin(1e-12));
            }
            CHECK(s.min == e.min);
            CHECK(s.max == e.max);
            CHECK(s.min_pos == e.min_pos);
            CHECK(s.max_pos == e.max_pos);
            CHECK(s.bbox_start == e.bbox_start);
            CHECK(s.bbox_stop == e.bbox_stop);
        }
        // And against the CPU reference, with the compensated float32 path too.
        require_measure_same(ctx, image, labels, c.index);
    }
}

// Every rank for each image dtype of a group (one test case per group keeps
// each case's share of kernel compilations small on lavapipe).
void every_rank(std::initializer_list<DType> dtypes) {
    Context ctx = test::context();
    for (Shape s : {Shape{1031}, Shape{127, 129}, Shape{9, 17, 19}})
        for (DType t : dtypes) {
            INFO(s.str() << " " << dtype_name(t));
            const HostArray labels = cpu::label(random_mask(s, DType::uint8, 0.45, 5)).labels;
            require_measure_same(ctx, random_image(s, t, 6), labels);
        }
}

TEST_CASE("measure matches the CPU reference for float images of every rank", "[ops][measure]") {
    every_rank({DType::float32, DType::float64});
}

TEST_CASE("measure matches the CPU reference for signed integer images", "[ops][measure]") {
    every_rank({DType::int8, DType::int16, DType::int32});
}

TEST_CASE("measure matches the CPU reference for unsigned integer images", "[ops][measure]") {
    every_rank({DType::uint8, DType::uint16, DType::uint32});
}

TEST_CASE("measure of label() results: small, segmented and huge labels", "[ops][measure]") {
    Context ctx = test::context();
    // Components from one pixel to all of a 300x301 image: every label size
    // crosses the one-invocation (<= 64 pixels) and segment (2048) limits.
    HostArray mask(Shape{300, 301}, DType::uint8);
    auto m = mask.as<uint8_t>();
    for (size_t y = 0; y < 300; ++y)
        for (size_t x = 0; x < 301; ++x) {
            const bool bar = x % 10 < 8 && y + 1 < 9 * (x / 10 + 1);  // 64, 136, ..., 2152 pixels
            m[y * 301 + x] = (x == 300 || bar) ? 1 : 0;
        }
    const HostArray image = random_image(mask.shape, DType::float32, 9);
    Array img = Array::from_host(ctx, image);
    Labels l = label(Array::from_host(ctx, mask));
    const cpu::LabelResult want_labels = cpu::label(mask);
    REQUIRE(l.count == want_labels.count);
    require_stats(measure(img, l), cpu::measure(image, want_labels.labels), 1e-12);
    // One label over the whole image.
    const HostArray ones = HostArray::from(mask.shape, std::vector<int32_t>(mask.size(), 1));
    require_measure_same(ctx, image, ones);
}

TEST_CASE("measure skips NaN pixels and gives empty labels NaN statistics", "[ops][measure]") {
    Context ctx = test::context();
    HostArray image = random_image(Shape{61, 67}, DType::float64, 12);
    HostArray labels = cpu::label(random_mask(Shape{61, 67}, DType::uint8, 0.5, 13)).labels;
    for (size_t i = 0; i < image.size(); i += 5) image.as<double>()[i] = nan_v;
    // A label whose every pixel is NaN, and the first pixel of many labels NaN.
    image.as<double>()[0] = nan_v;
    labels.as<int32_t>()[0] = 999;
    std::vector<int32_t> index = {999, 1, 3, 2, 3, 0, -4, 12345};
    require_measure_same(ctx, image, labels, index);
    require_measure_same(ctx, image, labels);
    const auto got = measure(Array::from_host(ctx, image), Array::from_host(ctx, labels), index);
    CHECK(got[0].count == 0);
    CHECK(std::isnan(got[0].mean));
    CHECK(std::isnan(got[0].min));
    CHECK(got[0].bbox_start == got[0].bbox_stop);
    CHECK(got[7].label == 12345);
    CHECK(got[7].count == 0);
    CHECK(got[5].label == 0);  // the background, measured when asked for
    CHECK(got[5].count > 0);
}

TEST_CASE("measure breaks min/max ties by the first pixel in raster order", "[ops][measure]") {
    Context ctx = test::context();
    // All values equal: min and max are the label's first pixel.
    HostArray image = HostArray::from(Shape{40, 50}, std::vector<float>(2000, 3.0f));
    image.as<float>()[1234] = -0.0f;  // equal to 0.0, and first among them
    image.as<float>()[1500] = 0.0f;
    image.as<float>()[1700] = 0.0f;
    HostArray labels = HostArray::from(Shape{40, 50}, std::vector<int32_t>(2000, 1));
    for (size_t i = 0; i < 2000; i += 3) labels.as<int32_t>()[i] = 2;
    const auto got = measure(Array::from_host(ctx, image), Array::from_host(ctx, labels));
    require_stats(got, cpu::measure(image, labels), 1e-12);
    CHECK(got[0].max_pos == std::array<int64_t, 3>{0, 0, 1});
    CHECK(got[1].max_pos == std::array<int64_t, 3>{0, 0, 0});
    CHECK(std::signbit(got[0].min));  // the -0.0 at index 1234 (label 1) comes first
}

TEST_CASE("measure keeps the variance of values far from zero", "[ops][measure]") {
    Context ctx = test::context();
    HostArray image = test::random(Shape{127, 129}, DType::float64, 14, 1e6, 1e6 + 1e-3);
    HostArray labels = cpu::label(random_mask(image.shape, DType::uint8, 0.6, 15)).labels;
    const auto want = cpu::measure(image, labels);
    const auto got = measure(Array::from_host(ctx, image), Array::from_host(ctx, labels));
    REQUIRE(got.size() == want.size());
    for (size_t k = 0; k < got.size(); ++k) {
        INFO("label " << want[k].label);
        CHECK(got[k].variance == Approx(want[k].variance).epsilon(1e-6).margin(1e-18));
    }
}

TEST_CASE("measure takes any integer label dtype", "[ops][measure]") {
    Context ctx = test::context();
    const HostArray image = random_image(Shape{33, 35}, DType::float32, 16);
    const HostArray l32 = cpu::label(random_mask(image.shape, DType::uint8, 0.5, 17)).labels;
    for (DType t : {DType::int8, DType::uint8, DType::int16, DType::uint16, DType::uint32}) {
        INFO(dtype_name(t));
        HostArray l(image.shape, t);
        visit_dtype(t, [&](auto z) {
            using T = decltype(z);
            for (size_t i = 0; i < l.size(); ++i) l.as<T>()[i] = T(l32.as<int32_t>()[i] % 100);
        });
        require_measure_same(ctx, image, l);
        const std::vector<int32_t> index{5, 1, 0};
        require_measure_same(ctx, image, l, index);
    }
    // Negative labels are not measured without an index.
    HostArray neg = l32;
    for (size_t i = 0; i < neg.size(); i += 2) neg.as<int32_t>()[i] = -neg.as<int32_t>()[i];
    require_measure_same(ctx, image, neg);
}

TEST_CASE("measure_async records without waiting and runs in a graph", "[ops][measure]") {
    Context ctx = test::context();
    const HostArray mask = random_mask(Shape{64, 70}, DType::uint8, 0.5, 18);
    const HostArray h1 = random_image(mask.shape, DType::float32, 19),
                    h2 = random_image(mask.shape, DType::float32, 20);
    const cpu::LabelResult l = cpu::label(mask);
    Array img = Array::from_host(ctx, h1), lab = Array::from_host(ctx, l.labels);
    Graph g(ctx);
    Measurements m;
    {
        auto capture = g.capture();
        m = measure_async(img, lab, l.count);
    }
    CHECK(m.size() == size_t(l.count));
    for (const HostArray* h : {&h1, &h2}) {
        img.push(h->bytes.data(), h->bytes.size());
        g.run();
        require_stats(m.stats(), cpu::measure(*h, l.labels), 1e-12);
    }
    CHECK(measure_async(img, lab, 0).stats().empty());
}

TEST_CASE("measure_async of label_async() equals measure(image, label(mask))", "[ops][measure]") {
    Context ctx = test::context();
    // Random masks of every rank; a 64x64 checkerboard has 2048 labels, more
    // than the table's 1024 first sized for (stats() measures again); an
    // empty mask has none.
    HostArray checker(Shape{64, 64}, DType::uint8);
    for (size_t i = 0; i < checker.size(); ++i)
        checker.as<uint8_t>()[i] = uint8_t((i / 64 + i % 64) % 2);
    const HostArray empty_mask(Shape{9, 11}, DType::uint8);
    const std::vector<HostArray> masks{
        random_mask(Shape{1031}, DType::uint8, 0.5, 30), random_mask(Shape{61, 67}, DType::uint8, 0.45, 31),
        random_mask(Shape{9, 17, 19}, DType::uint8, 0.4, 32), checker, empty_mask};
    for (const HostArray& mask : masks) {
        INFO(mask.shape.str());
        const HostArray image = random_image(mask.shape, DType::float32, 33);
        Array img = Array::from_host(ctx, image), m = Array::from_host(ctx, mask);
        const Measurements pending = measure_async(img, label_async(m));
        const auto want = measure(img, label(m));
        REQUIRE(pending.size() == want.size());
        require_stats(pending.stats(), want, 1e-12);
        require_stats(pending.stats(), cpu::measure(image, cpu::label(mask).labels), 1e-12);
    }
    CHECK(measure_async(Array::from_host(ctx, random_image(checker.shape, DType::float32, 34)),
                        label_async(Array::from_host(ctx, checker)))
              .size() == 2048);
    // Labelling, measuring and the read-back of the count and the table: one
    // submission (staging as from a discrete GPU's memory).
    ContextOptions options;
    options.direct_host_access = false;
    ctx = test::context(options);
    const HostArray mask = masks[1];
    Array img = Array::from_host(ctx, random_image(mask.shape, DType::float32, 35));
    Array m = Array::from_host(ctx, mask);
    ctx.sync();
    const uint64_t before = ctx.profile().submission_count();
    const auto got = measure_async(img, label_async(m)).stats();
    CHECK(ctx.profile().submission_count() - before == 1);
    CHECK(got.size() == size_t(cpu::label(mask).count));
}

TEST_CASE("label_async -> measure_async runs in a graph with the count on the device",
          "[ops][measure]") {
    Context ctx = test::context();
    const HostArray m1 = random_mask(Shape{50, 70}, DType::uint8, 0.5, 35),
                    m2 = random_mask(Shape{50, 70}, DType::uint8, 0.3, 36);
    const HostArray image = random_image(m1.shape, DType::float64, 37);
    Array img = Array::from_host(ctx, image), mask = Array::from_host(ctx, m1);
    Graph g(ctx);
    Measurements m;
    {
        auto capture = g.capture();
        m = measure_async(img, label_async(mask, 8));
    }
    for (const HostArray* h : {&m1, &m2}) {
        mask.push(h->bytes.data(), h->bytes.size());
        g.run();
        require_stats(m.stats(), cpu::measure(image, cpu::label(*h, 8).labels), 1e-12);
    }
    Array lab = Array::zeros(ctx, image.shape, DType::int32);
    CHECK_THROWS_WITH(measure_async(img, LabelsAsync{lab, lab}), Catch::Contains("one element"));
    CHECK_THROWS_WITH(measure_async(img, LabelsAsync{lab.reshape(Shape{70, 50}), label_async(mask).count}),
                      Catch::Contains("differ"));
}

TEST_CASE("measure rejects bad input clearly and the context stays usable", "[ops][measure]") {
    Context ctx = test::context();
    Array img = Array::zeros(ctx, Shape{4, 5});
    Array lab = Array::zeros(ctx, Shape{4, 5}, DType::int32);
    CHECK_THROWS_WITH(measure(img, Array::zeros(ctx, Shape{5, 4}, DType::int32)),
                      Catch::Contains("(4, 5)") && Catch::Contains("differ"));
    CHECK_THROWS_AS(measure(img, Array::zeros(ctx, Shape{4, 5})), InvalidArgument);
    CHECK_THROWS_WITH(measure(img, Array::zeros(ctx, Shape{4, 5})),
                      Catch::Contains("integer label image"));
    CHECK_THROWS_WITH(measure(img, Array::full(ctx, Shape{4, 5}, 3e9, DType::uint32)),
                      Catch::Contains("3000000000") && Catch::Contains("int32 range"));
    CHECK_THROWS_WITH(measure(img, Array::full(ctx, Shape{4, 5}, 2e9, DType::int32)),
                      Catch::Contains("pass an index"));
    CHECK_THROWS_WITH(measure_async(img, Array::zeros(ctx, Shape{4, 5}, DType::int16), 1),
                      Catch::Contains("int32"));
    CHECK_THROWS_WITH(measure_async(img, lab, -1), Catch::Contains("negative"));
    CHECK_THROWS_WITH(measure(Array(), lab), Catch::Contains("null"));
    CHECK_THROWS_AS(
        ops::measure_with(Array::zeros(ctx, Shape{4, 5}, DType::float64), lab, {}, false),
        Unsupported);
    // Empty label images give empty tables; explicit labels give empty rows.
    CHECK(measure(img, lab).empty());
    CHECK(measure(img, Labels{lab, 0}).empty());
    const std::vector<int32_t> index{3};
    CHECK(measure(img, lab, index).at(0).count == 0);
    require_measure_same(ctx, random_image(Shape{13}, DType::float32, 1),
                         cpu::label(random_mask(Shape{13}, DType::uint8, 0.5, 2)).labels);
}
