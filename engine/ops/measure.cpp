// Per-label measurements: argument checks, which label feeds which result
// slot, and the host's last step from the GPU's raw sums to LabelStats
// (the same arithmetic as kiln::cpu::measure's). The passes themselves are
// in measure_record.cpp.
#include "kiln/measure.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "kiln/elementwise.hpp"
#include "ops/kernel.hpp"
#include "ops/measure_detail.hpp"
#include "ops/read_back.hpp"

namespace kiln {

namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

void check_image(const Array& image, const Array& labels, bool float64) {
    if (!image) throw InvalidArgument("measure: the image is a null Array");
    if (!labels) throw InvalidArgument("measure: the labels are a null Array");
    ops::check_same_context(image, labels, "measure");
    if (image.shape() != labels.shape())
        throw InvalidArgument("measure: image shape " + image.shape().str() + " and labels shape " +
                              labels.shape().str() + " differ; they must be the same");
    if (dtype_is_float(labels.dtype()))
        throw InvalidArgument("measure: labels are " + std::string(dtype_name(labels.dtype())) +
                              "; give an integer label image (int32 as label() returns, or "
                              "int8/uint8/int16/uint16/uint32)");
    if (image.size() >= 0xFFFFFFFFull)
        throw Unsupported("measure: the image has " + std::to_string(image.size()) +
                          " pixels; at most 4294967294 are supported");
    const bool device_float64 = ops::services(image).enabled().float64;
    if (image.dtype() == DType::float64 && !device_float64)
        throw Unsupported("measure: '" + ops::services(image).info().name +
                          "' has no float64 support; cast the image to float32 first");
    if (float64 && !device_float64)
        throw Unsupported("measure: float64 accumulation needs float64 support, which '" +
                          ops::services(image).info().name + "' lacks");
    if (!float64 && image.dtype() == DType::float64)
        throw Unsupported("measure: float64 images are measured with float64 accumulation only");
}

// Largest label of a 32-bit label image (unsigned for uint32), read back.
int64_t largest_label(const Array& labels) {
    const bool is_unsigned = labels.dtype() == DType::uint32;
    const int32_t init[2] = {std::numeric_limits<int32_t>::min(), 0};
    Array out = Array::from(labels.context(), Shape{2}, std::span<const int32_t>(init));
    Array words(labels.context().shared_state(), labels.storage(), labels.shape(), DType::uint32);
    ops::Dispatcher d(ops::services(labels), ops::KernelId::measure_range, {256, 1, 1});
    const auto n = static_cast<uint32_t>(labels.size());
    d.read(words).read_write(out).spec(is_unsigned).push(n).stride_grid(n).record();
    const auto v = out.to_vector<int32_t>();
    return is_unsigned ? int64_t(uint32_t(v[1])) : int64_t(v[0]);
}

// The labels as int32 (a cast, or the same memory for uint32 that fits).
Array int32_labels(const Array& labels, bool need_max, int64_t& max_label) {
    Array l32 = labels;
    if (labels.dtype() == DType::uint32 || need_max) {
        if (labels.dtype() != DType::uint32 && labels.dtype() != DType::int32)
            l32 = cast(labels, DType::int32);
        max_label = largest_label(l32);
        if (max_label > std::numeric_limits<int32_t>::max())
            throw InvalidArgument("measure: label " + std::to_string(max_label) +
                                  " exceeds the int32 range labels must fit in");
        if (labels.dtype() == DType::uint32)
            l32 = Array(labels.context().shared_state(), labels.storage(), labels.shape(),
                        DType::int32);
        return l32;
    }
    return labels.dtype() == DType::int32 ? labels : cast(labels, DType::int32);
}

double decode_value(uint32_t lo, uint32_t hi, bool float64) {
    return float64 ? std::bit_cast<double>(uint64_t(hi) << 32 | lo)
                   : double(std::bit_cast<float>(lo));
}

LabelStats finish(const uint32_t* row, int32_t label, const Measurements::Raw& raw) {
    double acc[6];
    for (int k = 0; k < 6; ++k) {
        if (raw.float64)
            acc[k] = std::bit_cast<double>(uint64_t(row[2 * k + 1]) << 32 | row[2 * k]);
        else
            acc[k] = double(std::bit_cast<float>(row[2 * k])) +
                     double(std::bit_cast<float>(row[2 * k + 1]));
    }
    const uint32_t* ints = row + 12;  // after the 6 sums of 2 words
    LabelStats s;
    s.label = label;
    s.count = ints[0];
    s.sum = acc[0];
    if (s.count == 0) {
        s.sum = 0;
        s.mean = s.variance = s.std = s.min = s.max = nan_v;
        s.center_of_mass = {nan_v, nan_v, nan_v};
        return s;
    }
    const double n = double(s.count);
    s.mean = s.sum / n;
    s.variance = std::max(0.0, (acc[2] - acc[1] * acc[1] / n) / n);
    s.std = std::sqrt(s.variance);
    s.min = decode_value(ints[9], ints[10], raw.float64);
    s.max = decode_value(ints[11], ints[12], raw.float64);
    const size_t nx = raw.shape.x(), ny = raw.shape.y();
    const auto unravel = [&](size_t i) {
        return std::array<int64_t, 3>{int64_t(i / (ny * nx)), int64_t(i / nx % ny),
                                      int64_t(i % nx)};
    };
    s.min_pos = unravel(ints[1]);
    s.max_pos = unravel(ints[2]);
    // The GPU keeps boxes as (x, y, z); sums of v * coordinate as (z, y, x).
    for (int d = 0; d < 3; ++d) {
        s.center_of_mass[d] = acc[3 + d] / s.sum;
        s.bbox_start[d] = ints[3 + (2 - d)];
        s.bbox_stop[d] = int64_t(ints[6 + (2 - d)]) + 1;
    }
    return s;
}

Measurements record(const Array& image, const Array& labels32, ops::SlotMap map,
                    std::vector<int32_t> out_labels, std::vector<uint32_t> out_slots, bool float64,
                    std::optional<uint32_t> small = {}) {
    if (map.nslots == 0) return Measurements({}, std::move(out_labels), std::move(out_slots));
    return Measurements(ops::record_measure(image, labels32, map, float64, small),
                        std::move(out_labels), std::move(out_slots));
}

// Labels 1..count in slots 0..count-1.
Measurements all_labels(const Array& image, const Array& labels32, int64_t count, bool float64,
                        std::optional<uint32_t> small = {}) {
    const auto n = static_cast<uint32_t>(std::max<int64_t>(count, 0));
    std::vector<int32_t> out_labels(n);
    std::vector<uint32_t> out_slots(n);
    for (uint32_t k = 0; k < n; ++k) out_labels[k] = int32_t(k + 1), out_slots[k] = k;
    return record(image, labels32, ops::SlotMap{n, {}, {}}, std::move(out_labels),
                  std::move(out_slots), float64, small);
}

Measurements listed_labels(const Array& image, const Array& labels32,
                           std::span<const int32_t> index, bool float64,
                           std::optional<uint32_t> small = {}) {
    // Duplicates in index share one slot.
    std::map<int32_t, uint32_t> slot_of;
    for (int32_t l : index) slot_of.emplace(l, 0);
    ops::SlotMap map;
    for (auto& [l, slot] : slot_of) {
        slot = map.nslots++;
        map.keys.push_back(l);
        map.key_slots.push_back(int32_t(slot));
    }
    std::vector<uint32_t> out_slots;
    for (int32_t l : index) out_slots.push_back(slot_of.at(l));
    return record(image, labels32, std::move(map), std::vector<int32_t>(index.begin(), index.end()),
                  std::move(out_slots), float64, small);
}

}  // namespace

Measurements::Measurements(Raw raw, std::vector<int32_t> out_labels,
                           std::vector<uint32_t> out_slots)
    : raw_(std::move(raw)), out_labels_(std::move(out_labels)), out_slots_(std::move(out_slots)) {}

size_t Measurements::size() const {
    if (!raw_.device_count) return out_labels_.size();
    uint32_t header[ops::header_words];
    ops::read_back(raw_.table, header, sizeof header);
    return header[ops::header_labels];
}

std::vector<LabelStats> Measurements::stats() const {
    std::vector<LabelStats> out;
    if (!raw_.table) return out;  // nothing was recorded
    // The header and the rows: the whole table.
    std::vector<uint32_t> words(ops::header_words + size_t(raw_.nslots) * ops::row_words);
    ops::read_back(raw_.table, words.data(), words.size() * sizeof(uint32_t));
    const uint32_t* rows = words.data() + ops::header_words;
    if (!raw_.device_count) {
        out.reserve(out_labels_.size());
        for (size_t k = 0; k < out_labels_.size(); ++k)
            out.push_back(finish(rows + size_t(out_slots_[k]) * ops::row_words, out_labels_[k], raw_));
        return out;
    }
    const uint32_t count = words[ops::header_labels];
    if (count > raw_.nslots)  // more labels than the table holds: measure them all again
        return all_labels(raw_.image, raw_.labels, count, raw_.float64).stats();
    out.reserve(count);
    for (uint32_t k = 0; k < count; ++k)
        out.push_back(finish(rows + size_t(k) * ops::row_words, int32_t(k + 1), raw_));
    return out;
}

namespace ops {

uint32_t device_count_capacity(uint64_t n) {
    // No mask of n pixels has more than ceil(n / 2) components.
    return static_cast<uint32_t>(std::min<uint64_t>((n + 1) / 2, std::max<uint64_t>(1024, n / 4096)));
}

std::vector<LabelStats> measure_with(const Array& image, const Array& labels,
                                     std::span<const int32_t> index, bool float64,
                                     std::optional<uint32_t> small) {
    check_image(image, labels, float64);
    int64_t max_label = 0;
    Array labels32 = int32_labels(labels, index.empty(), max_label);
    if (!index.empty()) return listed_labels(image, labels32, index, float64, small).stats();
    if (max_label > int64_t(16) * int64_t(image.size()) + (1 << 20))
        throw InvalidArgument("measure: labels reach " + std::to_string(max_label) +
                              " in an image of " + std::to_string(image.size()) +
                              " pixels; pass an index listing the labels to measure");
    return all_labels(image, labels32, max_label, float64, small).stats();
}

}  // namespace ops

std::vector<LabelStats> measure(const Array& image, const Array& labels,
                                std::span<const int32_t> index) {
    const bool float64 = image && ops::services(image).enabled().float64;
    return ops::measure_with(image, labels, index, float64);
}

Measurements measure_async(const Array& image, const Array& labels, int32_t count) {
    const bool float64 = image && ops::services(image).enabled().float64;
    check_image(image, labels, float64);
    if (labels.dtype() != DType::int32)
        throw InvalidArgument(
            "measure: labels are " + std::string(dtype_name(labels.dtype())) +
            " where int32 (as label() returns) is needed; use measure(image, labels, index) "
            "for other integer types");
    if (count < 0)
        throw InvalidArgument("measure: count " + std::to_string(count) +
                              " is negative; give the number of labels");
    return all_labels(image, labels, count, float64);
}

Measurements measure_async(const Array& image, const LabelsAsync& labels) {
    const bool float64 = image && ops::services(image).enabled().float64;
    check_image(image, labels.labels, float64);
    if (labels.labels.dtype() != DType::int32)
        throw InvalidArgument("measure: labels are " +
                              std::string(dtype_name(labels.labels.dtype())) +
                              " where int32 (as label_async() returns) is needed");
    if (!labels.count || labels.count.size() != 1 || labels.count.dtype() != DType::int32)
        throw InvalidArgument("measure: the label count must be an int32 array of one element, "
                              "as label_async() returns");
    ops::check_same_context(image, labels.count, "measure");
    const uint32_t capacity = ops::device_count_capacity(image.size());
    Measurements::Raw raw = ops::record_measure(image, labels.labels, ops::SlotMap{capacity, {}, {}},
                                                float64, std::nullopt, &labels.count);
    raw.image = image;
    raw.labels = labels.labels;
    raw.device_count = true;
    return Measurements(std::move(raw), {}, {});
}

std::vector<LabelStats> measure(const Array& image, const Labels& labels) {
    return measure_async(image, labels.labels, labels.count).stats();
}

}  // namespace kiln
