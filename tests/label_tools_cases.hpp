#pragma once
// Small label-tool cases with their results worked by hand, and the
// dilate_labels example of clEsperanto's CLIc tests (a 6x6x2 image, x
// fastest, radius 1: one 3x3x3 box step where the larger label wins).
#include <cstdint>
#include <vector>

#include "cpu_support.hpp"

namespace kiln::test::label_tools {

inline HostArray int32_image(std::vector<size_t> dims, const std::vector<int32_t>& v) {
    return HostArray::from(Shape::of(dims.size(), dims.data()), v);
}

// 5x6: labels 1 (left edge), 2 (inside, 2 pixels), 4 (inside, 3 pixels),
// 5 (bottom edge, 1 pixel); 3 absent.
inline HostArray edges_in() {
    return int32_image({5, 6}, {1, 0, 0, 0, 0, 0,  //
                                1, 0, 2, 2, 0, 0,  //
                                0, 0, 0, 0, 4, 0,  //
                                0, 4, 4, 0, 0, 0,  //
                                0, 0, 0, 5, 0, 0});
}
// Edges: 1 and 5 go; values 2, 3 (absent), 4 are numbered 1, 2, 3.
inline const std::vector<int32_t> edges_out{0, 0, 0, 0, 0, 0,  //
                                            0, 0, 1, 1, 0, 0,  //
                                            0, 0, 0, 0, 3, 0,  //
                                            0, 3, 3, 0, 0, 0,  //
                                            0, 0, 0, 0, 0, 0};
// Sizes in [2, 3]: 1 (2 px), 2 (2 px), 4 (3 px) stay; 3 (0 px), 5 (1 px) go.
inline const std::vector<int32_t> sizes_out{1, 0, 0, 0, 0, 0,  //
                                            1, 0, 2, 2, 0, 0,  //
                                            0, 0, 0, 0, 3, 0,  //
                                            0, 3, 3, 0, 0, 0,  //
                                            0, 0, 0, 0, 0, 0};

inline HostArray clic_dilate_in() {
    return int32_image({2, 6, 6}, {0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0,
                                   0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 3, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0,
                                   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0});
}
inline const std::vector<int32_t> clic_dilate_out{
    1, 1, 0, 0, 2, 2, 1, 1, 0, 0, 2, 2, 0, 0, 4, 4, 4, 0, 0, 0, 4, 4, 4, 0, 5, 5, 4, 4, 4, 3, 5, 5, 0, 0, 3, 3,
    1, 1, 0, 0, 2, 2, 1, 1, 0, 0, 2, 2, 0, 0, 4, 4, 4, 0, 0, 0, 4, 4, 4, 0, 5, 5, 4, 4, 4, 3, 5, 5, 0, 0, 3, 3};

// A 3x7 foreground strip with a gap; seeds 1 at (1, 1) and 2 at (1, 4).
inline HostArray voronoi_seeds() {
    return int32_image({3, 7}, {0, 0, 0, 0, 0, 0, 0,  //
                                0, 1, 0, 0, 2, 0, 0,  //
                                0, 0, 0, 0, 0, 0, 0});
}
inline HostArray voronoi_mask() {
    return int32_image({3, 7}, {1, 1, 1, 1, 1, 0, 1,  //
                                1, 1, 1, 1, 1, 1, 1,  //
                                1, 1, 1, 1, 1, 0, 0});
}
// Box step: 1 fills its 3x3, 2 its 3x3 inside the mask, column 3 (between
// them) takes 2, the larger; (1, 6) is reached by the face step, (0, 6) by
// the box step after it.
inline const std::vector<int32_t> voronoi_out{1, 1, 1, 2, 2, 0, 2,  //
                                              1, 1, 1, 2, 2, 2, 2,  //
                                              1, 1, 1, 2, 2, 0, 0};

}  // namespace kiln::test::label_tools
