#pragma once
// Per-label measurements (scipy.ndimage.measurements), the CPU reference for
// the GPU's one-pass measurement kernel.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/host_array.hpp"

namespace kiln::cpu {

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

/// Measures the pixels of each label in one pass, accumulating in float64;
/// the variance from sums of (value - first value of the label) and their
/// squares, which keeps its digits for values far from zero.
///
/// image is any dtype; labels has the same shape and an integer dtype (values
/// must fit int32). With index empty, the result holds labels 1..max(labels)
/// in order (empty if no pixel is labelled); otherwise one entry per element
/// of index, in its order (duplicates and 0, the background, allowed); labels
/// not in index are ignored.
///
/// NaN pixels of the image are skipped as if they were background: never in
/// count, statistics, positions or bounding box (the pipeline never labels
/// them; SciPy would propagate NaN instead).
///
/// A label with no measured pixel gets count 0, sum 0, NaN for mean,
/// variance, std, min, max and center_of_mass, and zero positions with an
/// empty box (bbox_start == bbox_stop == 0). SciPy gives the same except min
/// and max, where it gives 0, a value kiln will not invent.
///
/// Throws InvalidArgument if the shapes differ, labels is not an integer array,
/// a label exceeds the int32 range, or (index empty) the largest label exceeds
/// 16 * pixels + 2^20, a sparse labelling that needs an explicit index.
std::vector<LabelStats> measure(const HostArray& image, const HostArray& labels,
                                std::span<const int32_t> index = {});

/// The statistics as CSV with a header row, one row per label. Positions,
/// centroids and boxes get one column per axis of an ndim-dimensional image
/// (ndim 1..3, e.g. min_pos_y,min_pos_x for 2-D), in (z, y, x) order. Numbers
/// are written in the shortest form that reads back exactly; NaN as "nan".
std::string stats_to_csv(const std::vector<LabelStats>& stats, int ndim);

}  // namespace kiln::cpu
