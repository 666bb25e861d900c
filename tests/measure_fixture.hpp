#pragma once
// The scipy.ndimage per-label measurements of tests/data/make_astro.py, shared
// by the CPU reference test and the GPU test of measure().
#include <array>
#include <cstdint>
#include <vector>

namespace kiln::test {

/// One label's statistics as SciPy computed them; positions in (z, y, x).
struct MeasureExpected {
    int32_t label;
    int64_t count;
    double sum, mean, variance, std, min, max;
    std::array<int64_t, 3> min_pos, max_pos;
    std::array<double, 3> center_of_mass;
    std::array<int64_t, 3> bbox_start, bbox_stop;
};

/// An image, its label image (values in C order, dtypes by name), the index
/// list asked for and SciPy's results for it.
struct MeasureCase {
    const char* name;
    std::vector<size_t> shape;
    const char* image_dtype;
    std::vector<double> image;
    const char* label_dtype;
    std::vector<double> labels;
    std::vector<int32_t> index;
    std::vector<MeasureExpected> expected;
};

/// Every case of tests/data/astro/measure_cases.inc.
inline const MeasureCase measure_cases[] = {
#include "data/astro/measure_cases.inc"
};

} // namespace kiln::test
