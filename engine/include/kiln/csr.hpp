#pragma once
// The pixel -> radial bin matrix of azimuthal integration, in CSR form: one
// row per bin, one column per detector pixel (raster order). Integrating a
// frame is then a sparse matrix-vector product, on the CPU or the GPU, with
// the same matrix.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "kiln/geometry.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Sparse bins x pixels matrix of weights (pixel fractions per bin).
struct Csr {
    std::vector<int32_t> indptr;   ///< bins + 1 row starts into indices/data
    std::vector<int32_t> indices;  ///< pixel index of each entry, ascending within a row
    std::vector<float> data;       ///< weight of each entry, in (0, 1]
    size_t bins = 0, pixels = 0;
    std::vector<double> bin_centers;    ///< radial coordinate of each bin's centre
    double range_lo = 0, range_hi = 0;  ///< bin edges: bin k is [lo + k w, lo + (k + 1) w)
    Radial unit = Radial::two_theta_deg;
    bool pixel_split = false;

    size_t nnz() const { return indices.size(); }
};

/// Builds the matrix for `bins` equal bins of the radial coordinate `unit`.
///
/// range: bin edges [lo, hi]; without it, the extent of the unmasked pixels'
/// radial values. Like numpy.histogram, the last bin includes hi.
///
/// Without splitting, each unmasked pixel whose centre lies in the range has
/// weight 1 in its centre's bin. With splitting (pyFAI's bounding-box
/// splitting), a pixel covers [min, max] of its four corners' radial values
/// (extended down to 0 for the pixel the direct beam hits) and each bin gets
/// the fraction of that interval it overlaps, so a pixel inside the range has
/// weights summing to 1 and a pixel straddling a range edge keeps only its
/// inside fraction (pyFAI renormalises such pixels; kiln does not).
///
/// mask: rows * cols bytes, nonzero = excluded (pyFAI's convention).
/// Throws InvalidArgument for bins == 0, a bad range or mask size, an invalid
/// geometry, or a mask that excludes every pixel when no range is given.
Csr build_csr(const Geometry& g, Radial unit, size_t bins, std::optional<std::pair<double, double>> range,
              bool pixel_split, const std::vector<uint8_t>* mask = nullptr);

}  // namespace kiln
#pragma GCC visibility pop
