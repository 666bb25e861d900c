#pragma once
// scipy.ndimage's Gaussian weights and filters of tests/data/make_conv.py,
// shared by the CPU reference test and the GPU test of the Gaussian filter.
#include <array>

#include "cpu_support.hpp"

namespace kiln::test::fixture {

// The generated tables name their arrays' type Array.
using Array = FixtureArray;

/// scipy.ndimage._gaussian_kernel1d's weights for one sigma and truncate.
struct KernelCase {
    double sigma, truncate;
    std::vector<double> weights;
};

/// A scipy.ndimage.gaussian_filter case: input by index into gaussian_inputs.
struct GaussianCase {
    const char* name;
    int input;
    std::array<double, 3> sigma_zyx;
    const char* mode;
    double cval, truncate;
    Array expected;
};

// The generated tables (gaussian_kernel_cases, gaussian_inputs, gaussian_cases) are
// const, so each test file gets its own copy.
#include "data/conv/gaussian_cases.inc"

} // namespace kiln::test::fixture
