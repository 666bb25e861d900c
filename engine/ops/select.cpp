// Exact median and percentiles by radix selection (shaders/select_radix.comp):
// per digit of the keys, one dispatch counts that digit of the elements that
// match each target's prefix, and its last workgroup appends the digit that
// holds the target's rank. Every pass of every batch of targets is recorded
// before the one pull of the results.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>

#include "kiln/manifest.hpp"
#include "kiln/statistics.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr uint32_t max_targets = 8;  // select_radix's push constants hold 8 ranks
constexpr uint64_t elements_per_thread = 32;
constexpr uint32_t max_groups = 2048;
// The fine histogram (see select_radix.comp) from this many elements on: the
// pass it saves outweighs zeroing it (4 MiB).
constexpr uint64_t fine_min_elements = uint64_t(1) << 20;
// ... and when at most n / fine_limit_divisor elements share the targets'
// first digit (more would crowd its atomics).
constexpr uint32_t fine_limit_divisor = 4;
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

// One pass of select_radix: the digit of the key it counts.
struct Digit {
    uint32_t word, shift, width;
};

// How one selection runs: the digits (most significant first), targets per
// batch, workgroup size and whether pass 1 keeps a fine histogram.
struct Plan {
    std::vector<Digit> digits;
    uint32_t width = 1;
    uint32_t local = 256;
    bool fine = false;
};

// Shared memory select_radix needs for `hists` histograms of `bins` bins.
uint64_t shared_bytes(uint64_t hists, uint32_t bins, uint32_t local) {
    return 4 * (hists * bins + local) + 16 * max_targets + 64;
}

// Digits and workgroup size as measured best on the H200 (kiln-bench W14,
// 4M float32): one or two targets, a 12-bit first digit and workgroups of 512
// (median 52 us; 59 us with 11-11-10 bits and 256); more targets, 11-11-10
// bits and 256 (five percentiles 0.20 ms; with 12-10-10 bits a batch holds up
// to eight targets, every element tested against each: 0.29 ms).
Plan plan_for(const Array& a, size_t ranks) {
    const DeviceInfo& info = ops::services(a).info();
    Plan p;
    std::vector<uint32_t> split{11, 11, 10};
    if (ranks <= 2 && info.max_workgroup_invocations >= 512 &&
        shared_bytes(1, 1u << 12, 512) <= info.max_shared_memory) {
        split = {12, 10, 10};
        p.local = 512;
    }
    p.local = std::min(p.local, info.max_workgroup_invocations);
    switch (a.dtype()) {
    // 8- and 16-bit integers have their keys in the top bits of the high word.
    case DType::int8:
    case DType::uint8: p.digits = {{0, 24, 8}}; break;
    case DType::int16:
    case DType::uint16: p.digits = {{0, 21, 11}, {0, 16, 5}}; break;
    default:
        for (uint32_t word = 0; word < (a.dtype() == DType::float64 ? 2u : 1u); ++word) {
            uint32_t top = 32;
            for (uint32_t w : split) {
                top -= w;
                p.digits.push_back({word, top, w});
            }
        }
    }
    uint32_t later_bins = 1;
    for (size_t i = 1; i < p.digits.size(); ++i) later_bins = std::max(later_bins, 1u << p.digits[i].width);
    p.width = 1;
    while (p.width < std::min<size_t>(ranks, max_targets) &&
           shared_bytes(p.width + 1, later_bins, p.local) <= info.max_shared_memory)
        ++p.width;
    const std::vector<Digit>& d = p.digits;
    p.fine = ranks <= p.width && p.width <= 2 && a.size() >= fine_min_elements && d.size() == 3 &&
             d[2].word == 0 && d[2].shift == 0 && d[1].shift == d[2].width && d[2].width <= d[1].width &&
             (uint64_t(1) << (32 - d[0].width)) <= ops::max_elements_per_binding(ops::services(a), 4);
    return p;
}

// The value of a key (the inverse of select_radix's key_of), as a double.
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
    case DType::int8: return static_cast<int32_t>(hi >> 24) - 128;
    case DType::uint8: return hi >> 24;
    case DType::int16: return static_cast<int32_t>(hi >> 16) - 32768;
    case DType::uint16: return hi >> 16;
    case DType::int32: return static_cast<int32_t>(hi ^ 0x80000000u);
    default: return hi;
    }
}

// Records the selection of one batch of ranks (at most plan.width): one
// select_radix dispatch per digit; returns the state array whose targets
// hold the keys once the work is done.
Array record_batch(const Array& a, std::span<const uint32_t> ranks, const Plan& plan, const Array& hist,
                   const Array& fine) {
    detail::OpServices& ctx = ops::services(a);
    Array state = Array::empty(a.context(), Shape{header_words + target_words * plan.width}, DType::uint32);
    struct {
        uint32_t n, fine_limit, pad0, pad1;
        uint32_t rank[max_targets];
    } push{};
    static_assert(sizeof(push) == 48);
    push.n = static_cast<uint32_t>(a.size());
    push.fine_limit = static_cast<uint32_t>(a.size() / fine_limit_divisor);
    // Targets past the batch repeat its last rank (and share its histogram).
    for (uint32_t t = 0; t < plan.width; ++t) push.rank[t] = ranks[std::min<size_t>(t, ranks.size() - 1)];
    for (uint32_t pass = 0; pass < plan.digits.size(); ++pass) {
        const Digit& d = plan.digits[pass];
        Dispatcher r(ctx, ops::variant(ops::Shader::select_radix, a.dtype()), {plan.local, 1, 1});
        const uint64_t per_group = r.local()[0] * elements_per_thread;
        const uint64_t wanted = (a.size() + per_group - 1) / per_group;
        const auto groups = static_cast<uint32_t>(std::clamp<uint64_t>(wanted, 1, max_groups));
        r.read(a).read_write(hist).read_write(state).read_write(fine);
        r.spec(pass).spec(plan.width).spec(d.word).spec(d.shift).spec(d.width);
        r.spec(plan.fine && pass < 3 ? 1 : 0);
        r.push(push).groups(groups).record();
    }
    return state;
}

// The values of the given ranks (0-based, in sorted order), or NaN for every
// one when the array holds a NaN.
std::map<uint32_t, double> select_ranks(const Array& a, std::vector<uint32_t> ranks) {
    // The kept histogram is zero only between whole selections: another
    // thread's selection must not record between this one's passes.
    const auto lock = ops::services(a).lock();
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    const Plan plan = plan_for(a, ranks.size());
    uint32_t hist_bins = 1u << plan.digits[0].width;
    for (size_t i = 1; i < plan.digits.size(); ++i)
        hist_bins = std::max(hist_bins, plan.width << plan.digits[i].width);
    // The last workgroup of each pass clears what it used, so the histogram
    // is kept by the context, zeroed, for the next selection (kept_zeros).
    const uint64_t hist_words = std::max<uint64_t>(4 + hist_bins, 4 + (1u << 12));
    Array hist = ops::kept_zeros(a.context(), "select_hist", hist_words);
    // Pass 0 zeroes the fine histogram; without one the binding is a placeholder.
    Array fine = Array::empty(a.context(), Shape{plan.fine ? uint64_t(1) << (32 - plan.digits[0].width) : 4},
                              DType::uint32);
    std::vector<std::pair<Array, std::span<const uint32_t>>> batches;
    for (size_t i = 0; i < ranks.size(); i += plan.width) {
        std::span<const uint32_t> batch(ranks.data() + i, std::min<size_t>(plan.width, ranks.size() - i));
        batches.emplace_back(record_batch(a, batch, plan, hist, fine), batch);
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

// The manifest of the order statistics (kiln/manifest.hpp).
namespace kiln {
namespace {

const OpFamily statistics_family("statistics", {
    {"median", "Exact median of all elements (numpy.median)", {{"a", ArgKind::array, "Input array file"}},
     ResultKind::number, {}, {}, [](const OpArgs& x) { return median(x.array("a")); }},
});

}  // namespace
}  // namespace kiln
