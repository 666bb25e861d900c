#include "kiln/reference/measure.hpp"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

struct Accumulator {
    int64_t count = 0;
    double sum = 0, shift = 0, shifted_sum = 0, shifted_squares = 0;
    double min = 0, max = 0;
    size_t min_i = 0, max_i = 0;
    std::array<double, 3> weighted{};
    std::array<int64_t, 3> lo{}, hi{};
};

std::vector<int64_t> label_values(const HostArray& labels) {
    if (dtype_is_float(labels.dtype))
        throw InvalidArgument("measure: labels are " + std::string(dtype_name(labels.dtype)) +
                              "; give an integer label image (int32 as label() returns, or "
                              "int8/uint8/int16/uint16/uint32)");
    std::vector<int64_t> values(labels.size());
    visit_dtype(labels.dtype, [&](auto t) {
        using T = decltype(t);
        const auto src = labels.as<T>();
        for (size_t i = 0; i < src.size(); ++i) values[i] = int64_t(src[i]);
    });
    for (size_t i = 0; i < values.size(); ++i)
        if (values[i] > std::numeric_limits<int32_t>::max())
            throw InvalidArgument("measure: label " + std::to_string(values[i]) + " at flat index " +
                                  std::to_string(i) + " exceeds the int32 range labels must fit in");
    return values;
}

// Maps each pixel to the result slot its label feeds, or -1.
std::vector<int32_t> pixel_slots(const std::vector<int64_t>& values, std::span<const int32_t> index,
                                 size_t& slot_count) {
    std::vector<int32_t> slots(values.size(), -1);
    int64_t lo = 0, hi = 0;
    for (int64_t v : values) lo = std::min(lo, v), hi = std::max(hi, v);
    if (index.empty()) {
        // One entry per label up to the largest: sparse huge labels would ask
        // for more memory than the image itself by orders of magnitude.
        if (size_t(hi) > 16 * values.size() + (1u << 20))
            throw InvalidArgument("measure: labels reach " + std::to_string(hi) + " in an image of " +
                                  std::to_string(values.size()) +
                                  " pixels; pass an index listing the labels to measure");
        slot_count = size_t(hi);
        for (size_t i = 0; i < values.size(); ++i)
            if (values[i] >= 1) slots[i] = int32_t(values[i] - 1);
        return slots;
    }
    slot_count = index.size();
    // Duplicates in index share the first slot; measure() copies it to the others.
    std::unordered_map<int64_t, int32_t> first_slot;
    for (size_t k = 0; k < index.size(); ++k) first_slot.emplace(index[k], int32_t(k));
    const size_t range = size_t(hi - lo) + 1;
    if (range <= 4 * values.size() + 1024) {
        std::vector<int32_t> table(range, -1);
        for (const auto& [label, slot] : first_slot)
            if (label >= lo && label <= hi) table[size_t(label - lo)] = slot;
        for (size_t i = 0; i < values.size(); ++i) slots[i] = table[size_t(values[i] - lo)];
    } else {
        for (size_t i = 0; i < values.size(); ++i) {
            const auto it = first_slot.find(values[i]);
            if (it != first_slot.end()) slots[i] = it->second;
        }
    }
    return slots;
}

LabelStats finish(const Accumulator& a, int32_t label, const Shape& shape) {
    LabelStats s;
    s.label = label;
    s.count = a.count;
    s.sum = a.sum;
    if (a.count == 0) {
        s.mean = s.variance = s.std = s.min = s.max = nan_v;
        s.center_of_mass = {nan_v, nan_v, nan_v};
        return s;
    }
    s.mean = a.sum / double(a.count);
    // Sums of squares about a value inside the label lose no digits to a
    // large common offset (an image of values near 1e6 that differ by 1e-3).
    const double n = double(a.count);
    s.variance = std::max(0.0, (a.shifted_squares - a.shifted_sum * a.shifted_sum / n) / n);
    s.std = std::sqrt(s.variance);
    s.min = a.min;
    s.max = a.max;
    const auto unravel = [&](size_t i) {
        return std::array<int64_t, 3>{int64_t(i / (shape.y() * shape.x())),
                                      int64_t(i / shape.x() % shape.y()), int64_t(i % shape.x())};
    };
    s.min_pos = unravel(a.min_i);
    s.max_pos = unravel(a.max_i);
    for (int d = 0; d < 3; ++d) {
        s.center_of_mass[d] = a.weighted[d] / a.sum;
        s.bbox_start[d] = a.lo[d];
        s.bbox_stop[d] = a.hi[d] + 1;
    }
    return s;
}

template <typename T>
void accumulate(std::span<const T> image, const Shape& shape, const std::vector<int32_t>& slots,
                std::vector<Accumulator>& acc) {
    size_t i = 0;
    for (size_t z = 0; z < shape.z(); ++z)
        for (size_t y = 0; y < shape.y(); ++y)
            for (size_t x = 0; x < shape.x(); ++x, ++i) {
                if (slots[i] < 0) continue;
                const double v = double(image[i]);
                if (std::isnan(v)) continue;
                Accumulator& a = acc[size_t(slots[i])];
                const std::array<int64_t, 3> pos{int64_t(z), int64_t(y), int64_t(x)};
                if (a.count == 0) {
                    a.min = a.max = v;
                    a.min_i = a.max_i = i;
                    a.lo = a.hi = pos;
                    a.shift = v;
                }
                ++a.count;
                a.sum += v;
                const double deviation = v - a.shift;
                a.shifted_sum += deviation;
                a.shifted_squares += deviation * deviation;
                if (v < a.min) a.min = v, a.min_i = i;
                if (v > a.max) a.max = v, a.max_i = i;
                for (int d = 0; d < 3; ++d) {
                    a.weighted[d] += v * double(pos[d]);
                    a.lo[d] = std::min(a.lo[d], pos[d]);
                    a.hi[d] = std::max(a.hi[d], pos[d]);
                }
            }
}

}  // namespace

std::vector<LabelStats> measure(const HostArray& image, const HostArray& labels,
                                std::span<const int32_t> index) {
    if (image.shape != labels.shape)
        throw InvalidArgument("measure: image shape " + image.shape.str() + " and labels shape " +
                              labels.shape.str() + " differ; they must be the same");
    size_t slot_count = 0;
    const std::vector<int32_t> slots = pixel_slots(label_values(labels), index, slot_count);
    std::vector<Accumulator> acc(slot_count);
    visit_dtype(image.dtype, [&](auto t) {
        using T = decltype(t);
        accumulate<T>(image.as<T>(), image.shape, slots, acc);
    });

    std::vector<LabelStats> stats;
    stats.reserve(slot_count);
    std::unordered_map<int32_t, size_t> first_slot;
    for (size_t k = 0; k < slot_count; ++k) {
        const int32_t label = index.empty() ? int32_t(k + 1) : index[k];
        const size_t source = first_slot.emplace(label, k).first->second;
        stats.push_back(finish(acc[source], label, image.shape));
    }
    return stats;
}

}  // namespace kiln::cpu
