#pragma once
// scipy.ndimage.label results of tests/data/make_astro.py, shared by the CPU
// reference test and the GPU test of label().
#include <cmath> // NAN in the fixtures
#include <cstdint>
#include <vector>

namespace kiln::test::fixture {

/// A mask (values in C order, dtype by name) and SciPy's count and labels.
struct LabelCase {
    const char* name;
    std::vector<size_t> shape;
    const char* dtype;
    int connectivity;
    std::vector<double> mask;
    int32_t count;
    std::vector<int32_t> labels;
};

/// Every case of tests/data/astro/label_cases.inc.
inline const LabelCase label_cases[] = {
#include "data/astro/label_cases.inc"
};

} // namespace kiln::test::fixture
