#pragma once
// Mathematical morphology and the minimum/maximum filters on the GPU with
// scipy.ndimage's semantics (SciPy 1.10), for 1-, 2- and 3-D arrays.
//
// Neighbourhoods are kiln::Footprint (kiln/footprint.hpp): scipy's `size`
// is Footprint::box, `footprint` and `structure` are Footprint::from_host,
// and the origin travels in Footprint::origin. A footprint of fewer axes
// than the array applies to its last axes. The dilations mirror the
// footprint through its centre (Footprint::reflected, what SciPy's reflection
// plus origin shift amounts to), so an even-sized footprint or a nonzero
// origin gives SciPy's result exactly.
//
// The grey results are exact (they are minima and maxima of the input's
// values). cval is converted to the input's dtype first, as SciPy's
// footprint loop converts it (its separable `size` path compares the
// unconverted double instead: the two differ only for a cval the dtype
// cannot hold, such as 300 for uint8). NaN: SciPy's result depends on the order in which its C loop meets
// a NaN; kiln's does not follow it, so the value at a position whose window
// holds a NaN is unspecified (threshold NaN out first).
#include <vector>

#include "kiln/array.hpp"
#include "kiln/conv_types.hpp"
#include "kiln/footprint.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// scipy.ndimage.minimum_filter / maximum_filter: the minimum (maximum) of
/// the input over the footprint at each position, positions outside the
/// input as `mode` says (cval is converted to the input's dtype). Any dtype;
/// the result has the input's. A box footprint runs as separable 1-D passes,
/// as SciPy's does. Throws InvalidArgument for a null input, a footprint of
/// more axes than the input or an origin outside the footprint.
Array minimum_filter(const Array& input, const Footprint& footprint, NdMode mode = NdMode::reflect,
                     double cval = 0);
Array maximum_filter(const Array& input, const Footprint& footprint, NdMode mode = NdMode::reflect,
                     double cval = 0);

/// scipy.ndimage.grey_erosion: minimum_filter, or with `structure` (one
/// value s per element of the footprint, C order; empty: flat) the minimum
/// of input - structure over the footprint, exactly as SciPy 1.10's C loop
/// computes it: the footprint's first element gives double(v) - s, every
/// other one v - T(s) in the input's dtype T (integers wrap, float32
/// subtracts in float); the minimum, compared in double, is converted to T
/// (truncated toward zero and wrapped). Throws InvalidArgument as
/// minimum_filter does, and for a structure whose size is not the
/// footprint's.
Array grey_erosion(const Array& input, const Footprint& footprint,
                   const std::vector<double>& structure = {}, NdMode mode = NdMode::reflect,
                   double cval = 0);
/// scipy.ndimage.grey_dilation: the maximum of input + structure over the
/// reflected footprint (and reflected structure).
Array grey_dilation(const Array& input, const Footprint& footprint,
                    const std::vector<double>& structure = {}, NdMode mode = NdMode::reflect,
                    double cval = 0);
/// scipy.ndimage.grey_opening (dilation of the erosion) and grey_closing
/// (erosion of the dilation).
Array grey_opening(const Array& input, const Footprint& footprint,
                   const std::vector<double>& structure = {}, NdMode mode = NdMode::reflect,
                   double cval = 0);
Array grey_closing(const Array& input, const Footprint& footprint,
                   const std::vector<double>& structure = {}, NdMode mode = NdMode::reflect,
                   double cval = 0);
/// scipy.ndimage.white_tophat (input - opening), black_tophat (closing -
/// input) and morphological_gradient (dilation - erosion); integer
/// differences wrap as NumPy's do.
Array white_tophat(const Array& input, const Footprint& footprint,
                   const std::vector<double>& structure = {}, NdMode mode = NdMode::reflect,
                   double cval = 0);
Array black_tophat(const Array& input, const Footprint& footprint,
                   const std::vector<double>& structure = {}, NdMode mode = NdMode::reflect,
                   double cval = 0);
Array morphological_gradient(const Array& input, const Footprint& footprint,
                             const std::vector<double>& structure = {},
                             NdMode mode = NdMode::reflect, double cval = 0);

/// The options of the binary morphology (SciPy's keywords).
struct BinaryOptions {
    /// Times the operation is applied; below 1: until the result stops
    /// changing (checked on the host every few applications, never per
    /// application).
    int iterations = 1;
    /// Where given (any dtype, the input's shape): only its nonzero
    /// positions may change; elsewhere the input is kept.
    Array mask;
    /// The value of every position outside the array.
    bool border_value = false;
};

/// scipy.ndimage.binary_erosion: 1 where every position of the structure
/// around the element is nonzero (outside positions are border_value). The
/// input may be of any dtype (nonzero is true); the result is uint8 0/1 (SciPy's
/// bool). An empty Footprint (no axes) is SciPy's default structure,
/// generate_binary_structure(ndim, 1). Throws InvalidArgument for a null
/// input, a structure of more axes than the input, an origin outside it, or
/// a mask of another shape or context.
Array binary_erosion(const Array& input, const Footprint& structure = {},
                     const BinaryOptions& options = {});
/// scipy.ndimage.binary_dilation: 1 where any position of the reflected
/// structure around the element is nonzero.
Array binary_dilation(const Array& input, const Footprint& structure = {},
                      const BinaryOptions& options = {});
/// scipy.ndimage.binary_opening (dilation of the erosion) and binary_closing
/// (erosion of the dilation), both with the same options.
Array binary_opening(const Array& input, const Footprint& structure = {},
                     const BinaryOptions& options = {});
Array binary_closing(const Array& input, const Footprint& structure = {},
                     const BinaryOptions& options = {});

/// scipy.ndimage.binary_fill_holes: the input's foreground plus every
/// background element that the structure's connectivity cannot connect
/// to the array's border through background. uint8 0/1 out.
Array binary_fill_holes(const Array& input, const Footprint& structure = {});

}  // namespace kiln
#pragma GCC visibility pop
