#pragma once
// Per-label measurements on the GPU (scipy.ndimage's sum_labels, mean,
// variance, standard_deviation, minimum/maximum(_position), center_of_mass,
// find_objects), all in one go. The table entries (LabelStats) and their CSV
// form are in kiln/label_stats.hpp.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/array.hpp"
#include "kiln/label.hpp"
#include "kiln/label_stats.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Measurements recorded on the GPU and not yet read back.
class Measurements {
public:
    Measurements() = default;
    /// Waits for the GPU and finishes the table: one entry per requested
    /// label. One read-back (with the label count when it came from the
    /// device; a count beyond the table's capacity costs a second pass).
    std::vector<LabelStats> stats() const;
    /// Number of entries stats() returns. With the label count still on the
    /// device (measure_async(image, LabelsAsync)), waits for the GPU to read it.
    size_t size() const;

    /// Internals: the raw table the GPU writes, and how to read it.
    struct Raw {
        /// uint32: a header of 4 words (the last the number of labels), then
        /// 28 words per slot: 6 sums of 2 words (float64, or float32 sum and
        /// compensation), count, min/max index, box, min/max as float64 (or
        /// float32) bits; then the passes' own state.
        Array table;
        bool float64 = true;
        Shape shape;
        uint32_t nslots = 0;
        /// With the label count on the device: the inputs, measured again
        /// should the count exceed nslots.
        Array image, labels;
        bool device_count = false;
    };
    Measurements(Raw raw, std::vector<int32_t> out_labels, std::vector<uint32_t> out_slots);

private:
    Raw raw_;
    std::vector<int32_t> out_labels_;  // label of each entry
    std::vector<uint32_t> out_slots_;  // slot each entry reads
};

/// Measures every label 1..labels.count of a label() result on image (same
/// shape, any dtype), in one submission with one read-back. Semantics are
/// those of kiln::cpu::measure: NaN pixels are skipped as background, a
/// label with no measured pixel gets count 0, sum 0 and NaN statistics,
/// min/max positions are the first pixel in raster order on ties, positions
/// and boxes are (z, y, x) with leading axes 0 (boxes [0, 1)) for lower ranks.
/// Sums are accumulated in float64 (summed in another order than the CPU's,
/// so they agree to rounding). Devices without float64 accumulate in
/// compensated float32 and compare values in float32 (exact but for
/// integers beyond 2^24); float64 images need float64. The pixel lists take
/// 8 bytes per pixel in one binding: images beyond maxStorageBufferRange / 8
/// pixels throw Unsupported. Throws InvalidArgument if the shapes differ or
/// the labels are not int32.
std::vector<LabelStats> measure(const Array& image, const Labels& labels);

/// As above for any integer label image (int8..uint32, values must fit
/// int32). With index empty: labels 1..max(labels), which needs one extra
/// read-back of the maximum; otherwise one entry per element of index, in
/// its order (duplicates and 0, the background, allowed; labels not listed
/// are ignored). Throws InvalidArgument for float labels, a label above the
/// int32 range, different shapes, or (index empty) a largest label above
/// 16 * pixels + 2^20 (a sparse labelling that needs an index).
std::vector<LabelStats> measure(const Array& image, const Array& labels,
                                std::span<const int32_t> index = {});

/// Records the measurement of labels 1..count without waiting; stats() reads
/// it back. labels must be int32 (as label() returns) and count >= 0.
Measurements measure_async(const Array& image, const Array& labels, int32_t count);

/// Records the measurement of every label of a label_async() result without
/// waiting for its count, so label_async -> measure_async -> stats() is one
/// submission and one read-back (of the count and the table together). The
/// table is sized on the host for up to max(1024, pixels / 4096) labels
/// (at most the most a mask can have); when the device's count turns out
/// larger, stats() measures again with the count it read (a second
/// submission and read-back). Results as measure(image, label(mask)).
Measurements measure_async(const Array& image, const LabelsAsync& labels);

}  // namespace kiln
#pragma GCC visibility pop
