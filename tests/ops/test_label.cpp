// GPU connected component labelling against kiln::cpu::label (itself checked
// against scipy.ndimage.label) and the SciPy fixtures: random masks of every
// rank and connectivity, worst cases for a union-find, tiles small enough
// that every component crosses tile borders.
#include <cmath>
#include <string>
#include <vector>

#include "kiln/label.hpp"
#include "kiln/reference/label.hpp"
#include "label_fixture.hpp"
#include "label_support.hpp"
#include "support.hpp"

using namespace kiln;

using test::checkerboard;
using test::random_mask;
using test::require_label_same;
using test::serpentine;
using test::spiral;
using test::fixture::LabelCase;

TEST_CASE("label equals scipy.ndimage.label on the SciPy fixtures", "[ops][label]") {
    Context ctx = test::context();
    for (const LabelCase& c : test::fixture::label_cases) {
        INFO(c.name);
        HostArray m(Shape::of(c.shape.size(), c.shape.data()), parse_dtype(c.dtype));
        visit_dtype(m.dtype, [&](auto z) {
            using T = decltype(z);
            for (size_t i = 0; i < c.mask.size(); ++i) m.as<T>()[i] = T(c.mask[i]);
        });
        Labels got = label(Array::from_host(ctx, m), c.connectivity);
        CHECK(got.count == c.count);
        CHECK(got.labels.to_vector<int32_t>() == c.labels);
    }
}

TEST_CASE("label matches the CPU reference on random masks of every rank and connectivity",
          "[ops][label]") {
    Context ctx = test::context();
    struct Case {
        Shape shape;
        std::vector<int> connectivities;
    };
    const Case cases[] = {{Shape{13}, {0, 2}},
                          {Shape{1031}, {2}},
                          {Shape{127, 129}, {0, 4, 8}},
                          {Shape{61, 300}, {4, 8}},
                          {Shape{3, 5, 7}, {0, 6, 18, 26}},
                          {Shape{9, 17, 19}, {6, 18, 26}}};
    for (const Case& c : cases)
        for (int conn : c.connectivities)
            // Densities below, near and above the percolation threshold.
            for (double density : {0.3, 0.55, 0.75}) {
                INFO(c.shape.str() << " connectivity " << conn << " density " << density);
                require_label_same(
                    ctx, random_mask(c.shape, DType::uint8, density, 7 + uint64_t(density * 100)), conn);
            }
}

TEST_CASE("label takes any dtype: nonzero and NaN are foreground", "[ops][label]") {
    Context ctx = test::context();
    for (DType t : all_dtypes) {
        INFO(dtype_name(t));
        HostArray m = random_mask(Shape{37, 41}, t, 0.5, 11);
        if (dtype_is_float(t)) {
            // NaN, negative and fractional values all count as foreground.
            visit_dtype(t, [&](auto z) {
                using T = decltype(z);
                auto v = m.as<T>();
                for (size_t i = 0; i < v.size(); i += 7) v[i] = T(NAN);
                for (size_t i = 3; i < v.size(); i += 11) v[i] = T(-0.25);
                v[5] = T(-0.0);  // zero, whatever its sign
            });
        }
        require_label_same(ctx, m, 4);
        require_label_same(ctx, m, 8);
    }
}

TEST_CASE("label on tiny tiles: every component crosses tile borders", "[ops][label]") {
    Context ctx = test::context();
    // A 2x1 (2-D: 2x4 with four rows per invocation) tile makes the border
    // merge do nearly all the work.
    ctx.set_workgroup_size("label_local_uint8", {2, 1, 2});
    require_label_same(ctx, random_mask(Shape{127, 129}, DType::uint8, 0.6, 3), 4);
    require_label_same(ctx, random_mask(Shape{127, 129}, DType::uint8, 0.5, 4), 8);
    require_label_same(ctx, random_mask(Shape{9, 17, 19}, DType::uint8, 0.35, 5), 6);
    require_label_same(ctx, random_mask(Shape{9, 17, 19}, DType::uint8, 0.25, 6), 26);
    require_label_same(ctx, spiral(127), 4);
    ctx.set_workgroup_size("label_local_uint8", {0, 0, 0});
}

TEST_CASE("label worst cases: spiral, spanning component, checkerboard, full, empty",
          "[ops][label]") {
    Context ctx = test::context();
    SECTION("spiral") {
        CHECK(require_label_same(ctx, spiral(257), 4) == 1);
    }
    SECTION("one serpentine component spanning the image") {
        CHECK(require_label_same(ctx, serpentine(255, 509), 4) == 1);
    }
    SECTION("checkerboard") {
        const HostArray c = checkerboard(512, 512);
        CHECK(require_label_same(ctx, c, 4) == 512 * 512 / 2);  // every pixel alone
        CHECK(require_label_same(ctx, c, 8) == 1);              // corners join them all
    }
    SECTION("all ones and all zeros") {
        Labels ones = label(Array::full(ctx, Shape{511, 513}, 1, DType::uint8));
        CHECK(ones.count == 1);
        CHECK(ones.labels.to_vector<int32_t>() == std::vector<int32_t>(511 * 513, 1));
        Labels zeros = label(Array::zeros(ctx, Shape{511, 513}, DType::float32));
        CHECK(zeros.count == 0);
        CHECK(zeros.labels.to_vector<int32_t>() == std::vector<int32_t>(511 * 513, 0));
        Labels cube = label(Array::full(ctx, Shape{17, 18, 19}, 2.5, DType::float64), 26);
        CHECK(cube.count == 1);
        CHECK(cube.labels.to_vector<int32_t>() == std::vector<int32_t>(17 * 18 * 19, 1));
    }
    SECTION("1x1, 1xN and Nx1") {
        CHECK(label(Array::full(ctx, Shape{1, 1}, 1, DType::uint8)).count == 1);
        CHECK(label(Array::zeros(ctx, Shape{1, 1}, DType::uint8)).labels.to_vector<int32_t>() ==
              std::vector<int32_t>{0});
        CHECK(label(Array::full(ctx, Shape{1}, 7, DType::int16)).labels.to_vector<int32_t>() ==
              std::vector<int32_t>{1});
        require_label_same(ctx, random_mask(Shape{1, 1031}, DType::uint8, 0.5, 8), 8);
        require_label_same(ctx, random_mask(Shape{1031, 1}, DType::uint8, 0.5, 9), 4);
        require_label_same(ctx, random_mask(Shape{1, 1, 1031}, DType::uint8, 0.5, 10), 26);
        require_label_same(ctx, random_mask(Shape{1031, 1, 1}, DType::uint8, 0.5, 12), 6);
    }
}

TEST_CASE("label_async keeps the count on the device and runs in a graph", "[ops][label]") {
    Context ctx = test::context();
    HostArray h1 = random_mask(Shape{64, 80}, DType::uint8, 0.5, 21);
    HostArray h2 = random_mask(Shape{64, 80}, DType::uint8, 0.4, 22);
    Array mask = Array::from_host(ctx, h1);
    Graph g(ctx);
    LabelsAsync out;
    {
        auto capture = g.capture();
        out = label_async(mask, 8);
    }
    for (const HostArray* h : {&h1, &h2}) {
        mask.push(h->bytes.data(), h->bytes.size());
        g.run();
        cpu::LabelResult want = cpu::label(*h, 8);
        CHECK(out.count.to_vector<int32_t>() == std::vector<int32_t>{want.count});
        test::require_close(out.labels.to_host(), want.labels);
    }
}

TEST_CASE("label reads its count back in the submission that labels", "[ops][label]") {
    ContextOptions options;
    options.direct_host_access = false;  // pulls go through staging, as from a discrete GPU
    Context ctx = test::context(options);
    const HostArray h = random_mask(Shape{40, 50}, DType::uint8, 0.5, 23);
    Array mask = Array::from_host(ctx, h);
    ctx.sync();
    const uint64_t before = ctx.profile().submission_count();
    const Labels l = label(mask, 4);
    CHECK(ctx.profile().submission_count() - before == 1);  // one submit, one wait
    CHECK(l.count == cpu::label(h, 4).count);
}

TEST_CASE("label rejects bad input clearly and the context stays usable", "[ops][label]") {
    Context ctx = test::context();
    Array m2 = Array::zeros(ctx, Shape{4, 5}, DType::uint8);
    CHECK_THROWS_AS(label(m2, 6), InvalidArgument);
    CHECK_THROWS_WITH(label(m2, 6),
                      Catch::Contains("connectivity 6") && Catch::Contains("accepted: 4, 8"));
    CHECK_THROWS_WITH(label(Array::zeros(ctx, Shape{2, 2, 2}, DType::uint8), 8),
                      Catch::Contains("accepted: 6, 18, 26"));
    CHECK_THROWS_WITH(label(Array::zeros(ctx, Shape{5}, DType::uint8), 4),
                      Catch::Contains("accepted: 2"));
    CHECK_THROWS_WITH(label(Array()), Catch::Contains("null Array"));
    HostArray h = random_mask(Shape{13, 17}, DType::uint8, 0.5, 1);
    require_label_same(ctx, h, 4);
}

TEST_CASE("label and measure refuse a tuned workgroup size that splits a subgroup", "[ops][label][measure]") {
    Context ctx = test::context();
    const uint32_t sg = ctx.device().subgroup_size;
    if (sg < 2) return;  // every size is whole subgroups
    HostArray mask = test::from_rows(9, 11, [](size_t y, size_t x) { return (x + y) % 3 == 0; });
    Array m = Array::from_host(ctx, mask);
    // Their subgroups each take a full share of a block: a partial one
    // would skip pixels, so the size is refused, not run.
    ctx.set_workgroup_size("label_flatten", {sg + 1, 1, 1});
    CHECK_THROWS_WITH(label(m, 4), Catch::Contains("whole number of subgroups"));
    ctx.set_workgroup_size("label_flatten", {0, 0, 0});
    Labels l = label(m, 4);
    CHECK(l.count == cpu::label(mask, 4).count);
    ctx.set_workgroup_size("measure_reduce_float64", {sg + 1, 1, 1});
    ctx.set_workgroup_size("measure_reduce_float32", {sg + 1, 1, 1});
    CHECK_THROWS_WITH(measure(cast(m, DType::float32), l.labels), Catch::Contains("whole number of subgroups"));
}
