#pragma once
// Internals of the per-label measurements, for measure*.cpp and the tests.
#include <optional>
#include <span>
#include <vector>

#include "kiln/measure.hpp"

namespace kiln::ops {

/// The raw table the GPU writes (uint32 words): a header of header_words
/// (0, pixels, segments, number of labels), then row_words per slot (all
/// zero for an empty slot). A read-back of it is all the host needs.
constexpr uint32_t header_words = 4;
/// Header word holding the number of labels (the device's count, or nslots).
constexpr uint32_t header_labels = 3;
/// Words per slot (measure_reduce.comp's ROW): 6 sums of 2 words, count,
/// min/max index, box (x, y, z), min and max, 3 spare.
constexpr uint32_t row_words = 28;

/// Which result slot each label value feeds. Without keys, label l feeds
/// slot l - 1 for 1 <= l <= nslots; with keys (sorted, unique), label
/// keys[k] feeds key_slots[k]. Other labels are not measured.
struct SlotMap {
    uint32_t nslots = 0;
    std::vector<int32_t> keys, key_slots;
};

/// Records the measurement passes of image over int32 labels into nslots
/// slots and returns the raw table (not yet read back). Slots of at most
/// `small` pixels are reduced by one invocation each, larger ones by
/// workgroups (unset: the device's default). `count`, an int32 array of one
/// element, if given, is the number of labels that the header reports
/// (labels above nslots are not measured); otherwise the header holds nslots.
Measurements::Raw record_measure(const Array& image, const Array& labels, const SlotMap& map,
                                 bool float64, std::optional<uint32_t> small = std::nullopt,
                                 const Array* count = nullptr);

/// measure() with the accumulator and the small-slot limit (see
/// record_measure) chosen by the caller: the tests run every path on one device.
std::vector<LabelStats> measure_with(const Array& image, const Array& labels,
                                     std::span<const int32_t> index, bool float64,
                                     std::optional<uint32_t> small = std::nullopt);

/// Table capacity (slots) of measure_async(image, LabelsAsync) for an image
/// of n pixels: more labels than this cost a second pass and read-back.
uint32_t device_count_capacity(uint64_t n);

}  // namespace kiln::ops
