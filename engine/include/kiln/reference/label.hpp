#pragma once
// Connected component labelling, the CPU reference for the GPU union-find.
#include <cstdint>

#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// A label image and the number of components in it.
struct LabelResult {
    /// int32, same shape as the mask: 0 for background, 1..count for the components.
    HostArray labels;
    /// Number of components (the largest label); 0 for an empty mask.
    int32_t count = 0;
};

/// Labels the connected components of a mask, exactly as scipy.ndimage.label.
///
/// Foreground is every nonzero element, whatever the dtype (values other than
/// 0/1 count as foreground, as in SciPy). For float masks NaN is nonzero and so
/// foreground, as in SciPy: pipelines that must keep NaN out of sources
/// threshold first (threshold maps NaN to 0).
///
/// connectivity counts the neighbours a pixel touches: 1-D arrays accept 2;
/// 2-D arrays 4 (edges, SciPy's default structure) or 8 (edges and corners);
/// 3-D arrays 6 (faces), 18 (faces and edges) or 26 (all). 0 picks the
/// default: 2, 4 or 6, i.e. generate_binary_structure(ndim, 1). Anything else
/// throws InvalidArgument listing the accepted values.
///
/// Components are numbered 1..N in raster (C) order of their first pixel, the
/// numbering SciPy produces, so results compare element for element.
LabelResult label(const HostArray& mask, int connectivity = 0);

}  // namespace kiln::cpu
#pragma GCC visibility pop
