#pragma once
// Connected component labelling on the GPU (scipy.ndimage.label).
#include <cstdint>

#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// A label image and the number of components in it.
struct Labels {
    /// int32, the mask's shape: 0 for background, 1..count for the components.
    Array labels;
    /// Number of components (the largest label); 0 for an empty mask.
    int32_t count = 0;
};

/// Labels with the count still on the device, so a pipeline need not wait.
struct LabelsAsync {
    Array labels;  ///< as Labels::labels
    Array count;   ///< int32, shape {1}: the number of components
};

/// Labels the connected components of a mask, element for element as
/// scipy.ndimage.label (and kiln::cpu::label).
///
/// Foreground is every nonzero element of any dtype; NaN is nonzero and so
/// foreground, as in SciPy (threshold first to keep NaN out).
///
/// connectivity counts the neighbours a pixel touches: 1-D masks accept 2;
/// 2-D masks 4 (edges, SciPy's default structure) or 8 (edges and corners);
/// 3-D masks 6 (faces), 18 (faces and edges) or 26 (all). 0 picks the
/// default: 2, 4 or 6. Anything else throws InvalidArgument.
///
/// Components are numbered 1..N in raster (C) order of their first pixel.
/// Waits for the GPU to read N back (one submission and one wait); the
/// label image stays on the device.
/// Masks of 2^31 - 1 elements or more throw Unsupported.
Labels label(const Array& mask, int connectivity = 0);

/// label() without waiting: the count is a one-element device array, which
/// measure_async(image, LabelsAsync) takes as it is.
LabelsAsync label_async(const Array& mask, int connectivity = 0);

}  // namespace kiln
#pragma GCC visibility pop
