#pragma once
// The finite minimum, maximum and count of an array in one pass and one
// read-back (thresh_li's range pass), for the thresholds and label tools.
#include "kiln/array.hpp"

namespace kiln::ops {

struct FiniteRange {
    double min = 0, max = 0, count = 0;  ///< count 0: no finite element (min, max meaningless)
};

FiniteRange finite_range(const Array& a);

}  // namespace kiln::ops
