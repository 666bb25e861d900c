// The label-tool references against scikit-image, NumPy and SciPy
// (tests/data/make_label_tools.py), pyclesperanto's documented examples and
// small cases worked by hand.
#include <vector>

#include "kiln/reference/label_tools.hpp"
#include "label_tools_cases.hpp"
#include "threshold_support.hpp"

using namespace kiln;

namespace {
std::vector<int32_t> ints(const HostArray& a) {
    auto v = a.as<int32_t>();
    return {v.begin(), v.end()};
}
}  // namespace

TEST_CASE("cpu relabel_sequential, label_sizes and find_objects equal the fixtures", "[cpu][label_tools]") {
    for (const auto& name : test::label_images) {
        INFO(name);
        const HostArray labels = test::image_fixture("label_tools/" + name);
        CHECK(ints(cpu::relabel_sequential(labels)) == ints(test::image_fixture("label_tools/" + name + "_relabel")));
        CHECK(ints(cpu::label_sizes(labels)) == ints(test::image_fixture("label_tools/" + name + "_sizes")));
        const HostArray objects = cpu::find_objects(labels);
        const HostArray want = test::image_fixture("label_tools/" + name + "_objects");
        CHECK(objects.shape == want.shape);
        CHECK(ints(objects) == ints(want));
    }
}

TEST_CASE("cpu pyclesperanto label tools on worked cases", "[cpu][label_tools]") {
    using namespace test::label_tools;
    CHECK(ints(cpu::exclude_labels_on_edges(edges_in())) == edges_out);
    CHECK(ints(cpu::exclude_labels_outside_size_range(edges_in(), 2, 3)) == sizes_out);
    CHECK(ints(cpu::dilate_labels(clic_dilate_in(), 1)) == clic_dilate_out);
    CHECK(ints(cpu::dilate_labels(clic_dilate_in(), 0)) == ints(clic_dilate_in()));
    CHECK(ints(cpu::masked_voronoi_labeling(voronoi_seeds(), voronoi_mask())) == voronoi_out);
}
