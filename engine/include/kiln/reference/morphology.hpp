#pragma once
// CPU reference of the morphology (kiln/morphology.hpp), written straight
// from scipy.ndimage's definitions: one loop over the footprint's offsets per
// element, no separable passes, iterations applied one after another.
#include <vector>

#include "kiln/conv_types.hpp"
#include "kiln/footprint.hpp"
#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// The minimum (`minimum` true) or maximum over the footprint's offsets of
/// the input, or of input -/+ structure (one value s per footprint element, C
/// order; empty: flat) as SciPy 1.10's C loop computes it: the first element
/// of the footprint gives double(v) -/+ s, every other one v -/+ T(s) in the
/// dtype T (integers wrap, float32 adds in float); they are compared as
/// doubles and the extreme converted to T (truncated toward zero and
/// wrapped, as C's casts on x86). Outside positions read cval converted to
/// the dtype. The footprint is used as given (kiln::grey_dilation's
/// reflection is the caller's: pass footprint.reflected()).
HostArray min_or_max_filter(const HostArray& input, const Footprint& footprint,
                            const std::vector<double>& structure, NdMode mode, double cval,
                            bool minimum);

/// scipy.ndimage.grey_erosion / grey_dilation (dilation: reflected footprint
/// and structure, maximum).
HostArray grey_erosion(const HostArray& input, const Footprint& footprint,
                       const std::vector<double>& structure = {}, NdMode mode = NdMode::reflect,
                       double cval = 0);
HostArray grey_dilation(const HostArray& input, const Footprint& footprint,
                        const std::vector<double>& structure = {}, NdMode mode = NdMode::reflect,
                        double cval = 0);

/// scipy.ndimage.binary_erosion / binary_dilation, uint8 0/1 out. An empty
/// structure is generate_binary_structure(ndim, 1); mask may be null;
/// iterations < 1 repeats until nothing changes.
HostArray binary_erosion(const HostArray& input, const Footprint& structure, int iterations,
                         const HostArray* mask, bool border_value);
HostArray binary_dilation(const HostArray& input, const Footprint& structure, int iterations,
                          const HostArray* mask, bool border_value);

/// scipy.ndimage.binary_fill_holes as SciPy computes it: the complement of
/// the dilation, until stable, of an empty array with border value 1 through
/// the background (mask = not input).
HostArray binary_fill_holes(const HostArray& input, const Footprint& structure);

}  // namespace kiln::cpu
#pragma GCC visibility pop
