#pragma once
// The pixel -> bin matrix of azimuthal integration, in CSR form: one row per
// bin, one column per detector pixel (raster order). Integrating a frame is
// then a sparse matrix-vector product, on the CPU or the GPU, with the same
// matrix. Bins are radial (1-D), radial x azimuthal (pyFAI's "cake", 2-D), or
// azimuthal over a radial range (pyFAI's integrate_radial, radial_profile).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/geometry.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// How a pixel is shared between bins, as pyFAI 0.21's splitting schemes.
/// New values go at the end: the number of each is part of the matrix cache's key.
enum class PixelSplit {
    /// "no": a pixel is its centre and counts whole in the bin holding it.
    none,
    /// "bbox": a pixel is the box centre +- the largest |corner - centre| in
    /// each coordinate (pyFAI's delta arrays; for chi the shorter way round
    /// the circle), each bin getting the fraction of the box inside it.
    bbox,
    /// "full": a pixel is the quadrilateral of its four corners in (radial,
    /// chi) coordinates, each bin getting the fraction of its area inside it.
    full,
};

/// pyFAI's name of a scheme: "no", "bbox" or "full".
const char* split_name(PixelSplit split);

/// The scheme of pyFAI's name ("no", "bbox", "full"; also "none").
/// Throws InvalidArgument naming the accepted names.
PixelSplit parse_split(std::string_view name);

/// Sparse bins x pixels matrix of weights (pixel fractions per bin).
///
/// For a cake (azimuth_bins > 0) row a * radial_bins + r is azimuth bin a,
/// radial bin r: the rows read as an array of shape (azimuth_bins,
/// radial_bins), pyFAI's (npt_azim, npt_rad).
struct Csr {
    std::vector<int32_t> indptr;   ///< bins + 1 row starts into indices/data
    std::vector<int32_t> indices;  ///< pixel index of each entry, ascending within a row
    std::vector<float> data;       ///< weight of each entry, in (0, 1]
    size_t bins = 0, pixels = 0;   ///< rows (radial_bins * azimuth_bins for a cake) and columns
    /// Radial coordinate of each row's centre (bins values; for a cake the
    /// radial centres repeat in each azimuth row).
    std::vector<double> bin_centers;
    double range_lo = 0, range_hi = 0;  ///< radial bin edges: bin k is [lo + k w, lo + (k + 1) w)
    Radial unit = Radial::two_theta_deg;
    PixelSplit split = PixelSplit::none;
    bool renormalize = false;  ///< CsrSpec::renormalize of the build
    size_t radial_bins = 0;    ///< radial bins (bins for a 1-D matrix)
    size_t azimuth_bins = 0;   ///< azimuthal bins of a cake; 0 for a 1-D matrix
    /// chi at each azimuth bin's centre, degrees (azimuth_bins values).
    std::vector<double> azimuth_centers;
    /// The chi range, degrees: of a cake's bins, or the sector a 1-D matrix
    /// was restricted to (CsrSpec::azimuth_range); else 0, 0.
    double azimuth_lo = 0, azimuth_hi = 0;

    size_t nnz() const { return indices.size(); }
};

/// What build_csr builds.
///
/// Ranges, azimuth_range (chi in degrees, pyFAI's convention: chi =
/// atan2(t1, t2) in (-180, 180]) included: without one, the extent of the
/// unmasked pixels (their centres, boxes or corners as split says), which is
/// pyFAI 0.21's default: a radial extent starting below 0 starts at 0, a chi
/// extent is cut to [-180, 180]. pyFAI widens the upper edge it derives or is
/// given by a float32 epsilon (relative 1.2e-7); kiln does not. Like
/// numpy.histogram, the last bin includes the upper edge.
///
/// Edges (renormalize = false, kiln's default): each pixel adds to each bin
/// the fraction of its centre (none), box (bbox) or quadrilateral (full) that
/// lies inside the bin; parts outside the ranges are left out, so a pixel cut
/// by a range edge keeps only its inside fraction. A box or quadrilateral
/// across chi = +-180 degrees is cut there and its parts counted on both sides.
///
/// Edges (renormalize = true, what pyFAI 0.21's CSR engines do):
///  - bbox: a box cut by a range edge keeps its whole weight, the part
///    outside being added to the edge bin (per axis, the cake's too);
///  - full, 1-D: the fractions inside the range are scaled to sum to 1;
///  - full, cake: the corners are first clamped into the ranges' rectangle,
///    then the clamped quadrilateral is split;
///  - 1-D with azimuth_range (bbox and full): a pixel reaching into the sector
///    counts whole, one outside it not at all;
///  - chi does not wrap: a pixel across +-180 degrees is taken on the side of
///    its positive corners (pyFAI's corners unwrapped above 180, its box
///    centre +- delta reaching past 180) and clamped or piled at the edge.
/// pyFAI's engines also truncate bin positions toward zero, so a pixel (or
/// box) less than one bin below a lower edge counts in bin 0; kiln leaves it
/// out in both modes.
///
/// Pixels on the chi cut and the pixel the direct beam hits are treated as
/// pyFAI 0.21 does, in both modes: the beam pixel's box is its centre (near
/// 0) +- its largest corner distance, so half of it lies below 0 (left out,
/// or with renormalize piled into bin 0 of a range starting at 0), and its chi
/// box spans up to the whole turn; a quadrilateral whose corners' chi spans
/// more than 180 degrees has its negative corners moved up a turn, then goes
/// down a turn if their mean lies above 180 (it stays on its centre's side).
/// The beam pixel's quadrilateral is then not the region it covers (2theta
/// from 0 to its corners' values), but what pyFAI splits.
struct CsrSpec {
    Radial unit = Radial::q_nm;
    size_t bins = 1000;  ///< radial bins (pyFAI's npt, npt_rad)
    std::optional<std::pair<double, double>> range;  ///< radial range, in unit
    /// Azimuthal bins of a cake (pyFAI's npt_azim); 0: a 1-D (radial) matrix.
    size_t azimuth_bins = 0;
    /// chi range in degrees, lo < hi within [-180, 180]: the cake's bins, or
    /// the sector a 1-D matrix integrates (pyFAI's azimuth_range).
    std::optional<std::pair<double, double>> azimuth_range;
    PixelSplit split = PixelSplit::none;
    bool renormalize = false;  ///< pyFAI 0.21's treatment of pixels cut by a range edge (above)
};

/// Builds the matrix of `spec` for the detector `g`.
///
/// mask: rows * cols bytes, nonzero = excluded (pyFAI's convention).
/// Throws InvalidArgument for bins == 0, a bad range, azimuth range or mask
/// size, an azimuth range with unit chi_deg or a cake of chi_deg, an invalid
/// geometry, or a mask that excludes every pixel when a range is derived.
Csr build_csr(const Geometry& g, const CsrSpec& spec, const std::vector<uint8_t>* mask = nullptr);

/// A 1-D radial matrix: build_csr(g, {unit, bins, range, 0, nullopt, split}, mask).
Csr build_csr(const Geometry& g, Radial unit, size_t bins, std::optional<std::pair<double, double>> range,
              PixelSplit split, const std::vector<uint8_t>* mask = nullptr);

/// pyFAI's integrate_radial as a matrix: a cake's radial bins merged, one row
/// per azimuth bin holding each pixel once with the sum of its weights in
/// that row. The result is a 1-D matrix of unit chi_deg (bin_centers = the
/// cake's azimuth_centers, range = its azimuth range). Integrated, it gives
/// pyFAI 0.21's intensity (sum_signal / sum_normalization of the merged bins),
/// sum_signal, sum_normalization and count; its variance differs, since pyFAI
/// adds the variances of a pixel's pieces in different radial bins
/// (sum c_k^2 v) where the merged row counts the pixel once ((sum c_k)^2 v).
/// Throws InvalidArgument unless `cake` is a cake.
Csr merge_radial(const Csr& cake);

}  // namespace kiln
#pragma GCC visibility pop
