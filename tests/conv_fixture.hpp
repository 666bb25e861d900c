#pragma once
// SciPy's and NumPy's convolutions of tests/data/make_conv.py, shared by the
// CPU reference test and the GPU test of the convolutions.
#include "cpu_support.hpp"

namespace kiln::test::fixture {

// The generated tables name their arrays' type Array.
using Array = FixtureArray;

/// A scipy.signal.convolve2d case: inputs by index into conv_inputs.
struct Conv2dCase {
    const char* name;
    int image, kernel;
    const char* mode;
    const char* boundary;
    double fillvalue;
    const char* dtype;  // the inputs' dtype
    Array expected;
};

/// A numpy.convolve case: inputs by index into conv_inputs.
struct NpConvCase {
    int a, v;
    const char* mode;
    Array expected;
};

/// A scipy.ndimage.convolve1d case: inputs by index into conv_inputs.
struct NdConvCase {
    int input, weights, axis;
    const char* mode;
    double cval;
    int origin;
    const char* dtype;  // the input's dtype
    Array expected;
};

// The generated tables (conv_inputs, conv2d_cases, np_convolve_cases,
// nd_convolve1d_cases) are const, so each test file gets its own copy.
#include "data/conv/conv_cases.inc"

} // namespace kiln::test::fixture
