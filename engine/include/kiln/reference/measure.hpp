#pragma once
// Per-label measurements (scipy.ndimage.measurements), the CPU reference for
// the GPU's one-pass measurement kernel.
#include <cstdint>
#include <span>
#include <vector>

#include "kiln/host_array.hpp"
#include "kiln/label_stats.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

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

}  // namespace kiln::cpu
#pragma GCC visibility pop
