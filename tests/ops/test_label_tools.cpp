// GPU label tools against the fixtures (tests/data/make_label_tools.py), the
// worked cases and the CPU reference.
#include <vector>

#include "kiln/label_tools.hpp"
#include "kiln/reference/label_tools.hpp"
#include "label_tools_cases.hpp"
#include "support.hpp"
#include "threshold_support.hpp"

using namespace kiln;

namespace {

std::vector<int32_t> ints(const HostArray& a) {
    auto v = a.as<int32_t>();
    return {v.begin(), v.end()};
}

// A label image of the given shape: blobs of several values with gaps.
HostArray random_labels(Shape shape, uint64_t seed) {
    HostArray a(shape, DType::int32);
    uint64_t s = seed;
    auto next = [&] { return (s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
    auto v = a.as<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) {
        // Runs of one value along x, so boxes, edges and growth all see shapes.
        if (i % 5 == 0) v[i] = next() % 3 == 0 ? 0 : int32_t(next() % 40);
        else v[i] = v[i - 1];
    }
    return a;
}

}  // namespace

TEST_CASE("relabel_sequential, label_sizes and find_objects equal the fixtures", "[ops][label_tools]") {
    Context ctx = test::context();
    for (const auto& name : test::label_images) {
        INFO(name);
        const HostArray host = test::image_fixture("label_tools/" + name);
        const Array labels = Array::from_host(ctx, host);
        test::poison_pool(ctx, host.shape, DType::int32);
        CHECK(relabel_sequential(labels).to_vector<int32_t>() ==
              ints(test::image_fixture("label_tools/" + name + "_relabel")));
        CHECK(label_sizes(labels).to_vector<int32_t>() == ints(test::image_fixture("label_tools/" + name + "_sizes")));
        const Array objects = find_objects(labels);
        const HostArray want = test::image_fixture("label_tools/" + name + "_objects");
        CHECK(objects.shape() == want.shape);
        CHECK(objects.to_vector<int32_t>() == ints(want));
    }
}

TEST_CASE("pyclesperanto's label tools on worked cases", "[ops][label_tools]") {
    using namespace test::label_tools;
    Context ctx = test::context();
    const Array edges = Array::from_host(ctx, edges_in());
    CHECK(exclude_labels_on_edges(edges).to_vector<int32_t>() == edges_out);
    CHECK(exclude_labels_outside_size_range(edges, 2, 3).to_vector<int32_t>() == sizes_out);
    const Array clic = Array::from_host(ctx, clic_dilate_in());
    CHECK(dilate_labels(clic, 1).to_vector<int32_t>() == clic_dilate_out);
    CHECK(dilate_labels(clic, 0).to_vector<int32_t>() == ints(clic_dilate_in()));
}

TEST_CASE("label tools match the CPU reference on random label images", "[ops][label_tools]") {
    Context ctx = test::context();
    for (Shape shape : {Shape{37}, Shape{29, 31}, Shape{7, 9, 11}}) {
        INFO(shape.str());
        const HostArray host = random_labels(shape, 3 + shape.size());
        const Array labels = Array::from_host(ctx, host);
        test::poison_pool(ctx, shape, DType::int32);
        CHECK(relabel_sequential(labels).to_vector<int32_t>() == ints(cpu::relabel_sequential(host)));
        CHECK(exclude_labels_on_edges(labels).to_vector<int32_t>() == ints(cpu::exclude_labels_on_edges(host)));
        CHECK(exclude_labels_outside_size_range(labels, 5, 30).to_vector<int32_t>() ==
              ints(cpu::exclude_labels_outside_size_range(host, 5, 30)));
        CHECK(label_sizes(labels).to_vector<int32_t>() == ints(cpu::label_sizes(host)));
        CHECK(find_objects(labels).to_vector<int32_t>() == ints(cpu::find_objects(host)));
        for (int radius : {1, 2, 5})
            CHECK(dilate_labels(labels, radius).to_vector<int32_t>() == ints(cpu::dilate_labels(host, radius)));
    }
}

TEST_CASE("voronoi_otsu_labeling matches the CPU reference", "[ops][label_tools]") {
    Context ctx = test::context();
    for (Shape shape : {Shape{41, 47}, Shape{9, 15, 13}}) {
        INFO(shape.str());
        // Smooth blobs: random values blurred, so maxima are not ties.
        HostArray host = test::random(shape, DType::float32, 42, 0, 1);
        const Array image = Array::from_host(ctx, host);
        const HostArray want = cpu::voronoi_otsu_labeling(host, 2, 2);
        CHECK(voronoi_otsu_labeling(image, 2, 2).to_vector<int32_t>() == ints(want));
        CHECK(voronoi_otsu_labeling(image, 1.5, 2.5).to_vector<int32_t>() ==
              ints(cpu::voronoi_otsu_labeling(host, 1.5, 2.5)));
    }
}

TEST_CASE("label tools refuse what they cannot label", "[ops][label_tools]") {
    Context ctx = test::context();
    CHECK_THROWS_AS(relabel_sequential(Array{}), InvalidArgument);
    CHECK_THROWS_AS(label_sizes(Array::zeros(ctx, Shape{4}, DType::float32)), InvalidArgument);
    CHECK_THROWS_AS(relabel_sequential(Array::full(ctx, Shape{4}, -2, DType::int32)), InvalidArgument);
    CHECK_THROWS_AS(exclude_labels_outside_size_range(Array::zeros(ctx, Shape{4}, DType::int32), 5, 2),
                    InvalidArgument);
    CHECK_THROWS_AS(dilate_labels(Array::zeros(ctx, Shape{4}, DType::int32), -1), InvalidArgument);
    CHECK_THROWS_AS(label_sizes(Array::zeros(ctx, Shape{4}, DType::int32)), InvalidArgument);
    CHECK_THROWS_AS(find_objects(Array::zeros(ctx, Shape{4}, DType::int32)), InvalidArgument);
}
