#pragma once
// The argument rules the rank and box filters (kiln/rank_filters.hpp) and
// their CPU references (kiln/reference/rank_filters.hpp) share.
#include <cstdint>
#include <vector>

#include "kiln/shape.hpp"

namespace kiln {

/// One 1-D pass of uniform_filter: the axis (0 the slowest of the array),
/// the box's size along it and its origin.
struct UniformPass {
    size_t axis;
    int64_t size, origin;
};

/// uniform_filter's checks (kiln/rank_filters.hpp) and its passes, slowest
/// axis first, without those that leave the array as it is (size 1).
std::vector<UniformPass> uniform_passes(const Shape& shape, const std::vector<int64_t>& sizes,
                                        const std::vector<int64_t>& origins, const char* op);

/// uniform_filter1d's axis, checked, as an index from the slowest axis.
size_t uniform_axis(const Shape& shape, int64_t axis, const char* op);

}  // namespace kiln
