// Exact median and percentiles by radix selection: per pass, select_hist
// counts one digit of the keys that match each target's prefix and
// select_pick appends the digit holding the target's rank. Every pass of
// every batch of targets is recorded before the one pull of the results.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>

#include "kiln/elementwise.hpp"
#include "kiln/statistics.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};
constexpr uint32_t bins = 2048;
constexpr uint32_t max_targets = 8;  // select_pick's push constants hold 8 ranks
constexpr uint64_t elements_per_thread = 32;
constexpr uint32_t max_groups = 2048;
constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

// Words of the state buffer before the targets, and per target.
constexpr uint32_t header_words = 4, target_words = 4;

void require(const Array& a, const char* fn) {
    if (!a)
        throw InvalidArgument(std::string(fn) +
                              ": the array is null (default-constructed); pass an array made with "
                              "Array::empty, Array::from_host or an operation");
    if (a.size() > std::numeric_limits<uint32_t>::max())
        throw Unsupported(std::string(fn) + ": arrays of more than 2^32 - 1 elements are not supported (" +
                          std::to_string(a.size()) + " given)");
}

uint32_t passes_for(DType t) { return t == DType::float64 ? 6 : 3; }

// Targets one histogram pass can follow: each needs 8 KiB of shared memory.
uint32_t targets_per_pass(detail::ContextState& ctx) {
    const uint32_t shared = ctx.info().max_shared_memory;
    return std::clamp<uint32_t>((shared - 1024) / (bins * 4), 1, max_targets);
}

uint32_t hist_groups(uint64_t n) {
    const uint64_t per_group = linear_local[0] * elements_per_thread;
    return static_cast<uint32_t>(std::clamp<uint64_t>((n + per_group - 1) / per_group, 1, max_groups));
}

// The value of a key (the inverse of select_hist's key_of), as a double.
double value_of_key(uint64_t key, DType t) {
    const auto hi = static_cast<uint32_t>(key >> 32);
    switch (t) {
    case DType::float32: {
        const uint32_t bits = (hi & 0x80000000u) ? hi & 0x7fffffffu : ~hi;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    case DType::float64: {
        const uint64_t bits = (key >> 63) ? key & 0x7fffffffffffffffull : ~key;
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
    }
    case DType::int8:
    case DType::int16:
    case DType::int32: return static_cast<int32_t>(hi ^ 0x80000000u);
    default: return hi;
    }
}

// Records the selection of up to targets_per_pass ranks; returns the state
// array whose targets hold the keys once the work is done.
Array record_batch(const Array& a, std::span<const uint32_t> ranks, uint32_t width, const Array& hist) {
    detail::ContextState& ctx = a.state();
    Array state = Array::empty(a.context(), Shape{header_words + target_words * width}, DType::uint32);
    const std::string variant = std::string(dtype_name(a.dtype())) + "_uint32";
    const uint32_t n = static_cast<uint32_t>(a.size());
    struct {
        uint32_t rank[max_targets];
        uint32_t slot, max_iters, parts, pad;
        uint32_t kappa_bits[2];
    } pick{};
    // Targets past the batch repeat its last rank (and share its histogram).
    for (uint32_t t = 0; t < width; ++t) pick.rank[t] = ranks[std::min<size_t>(t, ranks.size() - 1)];
    for (uint32_t pass = 0; pass < passes_for(a.dtype()); ++pass) {
        Dispatcher h(ctx, "select_hist_" + variant, linear_local);
        h.read(a).read_write(hist).read(state).spec(pass).spec(width).push(n).groups(hist_groups(n)).record();
        Dispatcher p(ctx, "select_pick_" + variant, linear_local);
        p.read_write(hist).read_write(state).spec(pass).spec(width).push(pick).groups(1).record();
    }
    return state;
}

// The values of the given ranks (0-based, in sorted order), or NaN for every
// one when the array holds a NaN.
std::map<uint32_t, double> select_ranks(const Array& a, std::vector<uint32_t> ranks) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    const uint32_t per_pass = targets_per_pass(a.state());
    const uint32_t width = std::min<uint32_t>(per_pass, static_cast<uint32_t>(ranks.size()));
    Array hist = Array::empty(a.context(), Shape{width * bins + 1}, DType::uint32);
    fill(hist, 0);  // each select_pick clears the histograms after use
    std::vector<std::pair<Array, std::span<const uint32_t>>> batches;
    for (size_t i = 0; i < ranks.size(); i += width) {
        std::span<const uint32_t> batch(ranks.data() + i, std::min<size_t>(width, ranks.size() - i));
        batches.emplace_back(record_batch(a, batch, width, hist), batch);
    }
    std::map<uint32_t, double> values;
    for (auto& [state, batch] : batches) {
        const auto words = state.to_vector<uint32_t>();
        const bool has_nan = words[0] != 0;
        for (size_t t = 0; t < batch.size(); ++t) {
            const uint32_t* target = words.data() + header_words + target_words * t;
            const uint64_t key = (uint64_t(target[0]) << 32) | target[1];
            values[batch[t]] = has_nan ? nan_v : value_of_key(key, a.dtype());
        }
    }
    return values;
}

void require_valid_q(double q) {
    if (!(q >= 0.0 && q <= 100.0))
        throw InvalidArgument("percentile: q = " + std::to_string(q) +
                              " is outside [0, 100]; percentiles must lie between 0 and 100");
}

// NumPy's _lerp, operation for operation.
double lerp(double a, double b, double t) {
    const double diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

// Where percentile q reads the sorted values: the lower rank, whether the
// upper one is needed, and the weight (as numpy.percentile's 'linear').
struct Position {
    uint32_t lower;
    bool top;  // at or past the last element: both neighbours are the last
    double weight;
};

Position position(uint64_t n, double q) {
    const double index = static_cast<double>(n - 1) * (q / 100.0);
    if (index >= static_cast<double>(n - 1)) return {static_cast<uint32_t>(n - 1), true, index + 1};
    const double lower = std::floor(index);
    return {static_cast<uint32_t>(lower), false, index - lower};
}

} // namespace

double median(const Array& a) {
    require(a, "median");
    const uint64_t n = a.size();
    const auto hi_rank = static_cast<uint32_t>(n / 2);
    if (n % 2) return select_ranks(a, {hi_rank}).at(hi_rank);
    auto v = select_ranks(a, {hi_rank - 1, hi_rank});
    return (v.at(hi_rank - 1) + v.at(hi_rank)) / 2.0;
}

double percentile(const Array& a, double q) { return percentiles(a, std::span<const double>(&q, 1))[0]; }

std::vector<double> percentiles(const Array& a, std::span<const double> qs) {
    require(a, "percentile");
    for (double q : qs) require_valid_q(q);
    if (qs.empty()) return {};
    const uint64_t n = a.size();
    std::vector<uint32_t> ranks;
    for (double q : qs) {
        const Position p = position(n, q);
        ranks.push_back(p.lower);
        if (!p.top) ranks.push_back(p.lower + 1);
    }
    const auto v = select_ranks(a, ranks);
    std::vector<double> out;
    out.reserve(qs.size());
    for (double q : qs) {
        const Position p = position(n, q);
        const double lo = v.at(p.lower);
        out.push_back(p.top ? lerp(lo, lo, p.weight) : lerp(lo, v.at(p.lower + 1), p.weight));
    }
    return out;
}

} // namespace kiln
