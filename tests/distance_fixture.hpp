#pragma once
// SciPy's distance transforms and scikit-image's watersheds of
// tests/data/make_distance.py, shared by the CPU reference and GPU tests.
#include <vector>

#include "cpu_support.hpp"

namespace kiln::test::fixture {

using Array = FixtureArray;

/// scipy.ndimage.distance_transform_edt(input, sampling): float64.
struct EdtCase {
    const char* name;
    Array input;
    std::vector<double> sampling;  // empty: SciPy's default
    Array expected;
};

/// skimage.segmentation.watershed(image, markers, connectivity=, mask=) of
/// an image without plateaus; mask has no elements when none was given.
struct WatershedCase {
    const char* name;
    int connectivity;
    Array image, markers, mask;
    Array expected;
};

#include "data/distance/distance_cases.inc"

}  // namespace kiln::test::fixture
