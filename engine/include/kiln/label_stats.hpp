#pragma once
// Per-label statistics: what kiln::measure (on the GPU, kiln/measure.hpp) and
// its CPU reference kiln::cpu::measure (kiln/reference/measure.hpp) return,
// and their CSV form.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Statistics of the pixels carrying one label. Positions are in (z, y, x)
/// order whatever the rank: a 2-D image has z = 0, a 1-D image z = y = 0
/// (and bbox_start 0, bbox_stop 1 on those padded axes).
struct LabelStats {
    int32_t label = 0;
    /// Number of pixels measured (the area or volume).
    int64_t count = 0;
    /// Sum of the values (scipy's sum_labels); 0 when count is 0.
    double sum = 0;
    /// sum / count (scipy.ndimage.mean).
    double mean = 0;
    /// Population variance, divided by count (scipy.ndimage.variance).
    double variance = 0;
    /// sqrt(variance) (scipy.ndimage.standard_deviation).
    double std = 0;
    double min = 0, max = 0;
    /// First pixel in raster order holding min / max. SciPy leaves ties to its
    /// sort; kiln defines them so CPU and GPU agree.
    std::array<int64_t, 3> min_pos{}, max_pos{};
    /// Intensity-weighted centroid sum(v * coord) / sum(v) (scipy.ndimage.center_of_mass).
    std::array<double, 3> center_of_mass{};
    /// Bounding box as scipy.ndimage.find_objects slices: start inclusive, stop exclusive.
    std::array<int64_t, 3> bbox_start{}, bbox_stop{};
};

/// The statistics as CSV with a header row, one row per label. Positions,
/// centroids and boxes get one column per axis of an ndim-dimensional image
/// (ndim 1..3, e.g. min_pos_y,min_pos_x for 2-D), in (z, y, x) order. Numbers
/// are written in the shortest form that reads back exactly; NaN as "nan".
std::string stats_to_csv(const std::vector<LabelStats>& stats, int ndim);

}  // namespace kiln
#pragma GCC visibility pop
