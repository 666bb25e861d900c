// histogram and bincount: the range reduction (hist_minmax), the parameters
// NumPy's rule needs (computed on the host, where double division is exact),
// and the counting pass (hist_count) in the mode that suits the input.
#include "kiln/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "host/op_rules.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};
// Integer ranges of at most this many values get a table of their bins.
constexpr uint64_t table_max = 4096;
// Shared sub-histograms per workgroup, at most.
constexpr uint32_t max_copies = 8;

enum class Mode : uint32_t { compute = 0, table = 1, search = 2, direct = 3 };

// The workgroup size of one of our kernels: tuned for this dtype variant,
// else for all variants ("hist_count"), else the default. (The Dispatcher
// itself looks up the exact name and the family before the first '_'.)
std::array<uint32_t, 3> local_size(detail::OpServices& ctx, ops::Shader shader, DType t) {
    if (auto s = ctx.workgroup_size(shaders::info(ops::variant(shader, t)).name)) return *s;
    if (auto s = ctx.workgroup_size(shaders::shader_names[static_cast<uint16_t>(shader)])) return *s;
    return linear_local;
}

uint32_t product(const std::array<uint32_t, 3>& l) { return l[0] * l[1] * l[2]; }

void check_input(const Array& a, const char* op) {
    if (!a) throw InvalidArgument(std::string(op) + ": the array is a null Array");
    if (a.size() >= (1ull << 32))
        throw Unsupported(std::string(op) + ": arrays of " + std::to_string(a.size()) +
                          " elements are not supported; at most 2^32 - 1 elements (counts are uint32)");
}

// A capture records GPU work only; pushing tables and reading back ranges
// happen at once, so those cases cannot be part of a Graph.
void refuse_capture(const Context& ctx, const char* op, const char* why) {
    if (ops::services(ctx).capturing())
        throw InvalidArgument(std::string(op) + " inside a Graph capture: this call " + why +
                              ", which a capture cannot record; call it outside the capture (only integer "
                              "histograms with a range and bins one integer wide can be captured)");
}

// Elements per binding, a multiple of 256 so every piece's offset stays aligned.
uint64_t piece_elements(const Array& a) {
    return std::min<uint64_t>(ops::max_elements_per_binding(ops::services(a), dtype_size(a.dtype())) / 256 * 256,
                              1ull << 31);
}

// --- Range reduction --------------------------------------------------------

struct MinMax {
    bool any = false;   // a finite value exists
    double min = 0, max = 0;
    float fmin = 0, fmax = 0;  // float32 input: the values themselves
    bool negative = false;
    uint64_t neg_index = 0;
    double neg_value = 0;
};

// The type hist_minmax_final reduces in: float32, float64, int32 or uint32.
DType accumulator(DType t) {
    if (dtype_is_float(t)) return t;
    return dtype_is_signed(t) ? DType::int32 : DType::uint32;
}

MinMax min_max(const Array& a) {
    detail::OpServices& ctx = ops::services(a);
    const Context context = a.context();
    const DType t = a.dtype();
    const size_t es = dtype_size(t);
    const uint64_t n = a.size(), piece = piece_elements(a);
    const auto local = local_size(ctx, ops::Shader::hist_minmax, t);
    // One partial (at most 32 bytes) per workgroup; all of them in one binding.
    const uint64_t pieces = (n + piece - 1) / piece;
    const uint64_t max_slots = std::min<uint64_t>(4096, ctx.info().max_storage_buffer_range / 32);
    if (pieces > max_slots)
        throw Unsupported("histogram: an array of " + std::to_string(a.nbytes()) + " bytes needs " +
                          std::to_string(pieces) + " bindings on this device, more than the range reduction handles (" +
                          std::to_string(max_slots) + ")");
    // Enough workgroups to keep a large GPU's memory busy (the H200 wants a
    // few MB of loads in flight).
    const auto groups_cap = static_cast<uint32_t>(std::min<uint64_t>(1024, max_slots / pieces));
    Array partials = Array::empty(context, Shape{size_t(pieces * groups_cap) * 8}, DType::uint32);
    Array result = Array::empty(context, Shape{8}, DType::uint32);

    uint32_t slot = 0;
    for (uint64_t start = 0; start < n; start += piece) {
        const uint64_t count = std::min(piece, n - start);
        const bool split = count != n;
        Dispatcher d(ctx, ops::variant(ops::Shader::hist_minmax, t), local);
        const uint64_t chunks = std::max<uint64_t>(1, count * es / 16);
        const uint64_t per_group = uint64_t(product(d.local())) * 4;
        const auto groups = static_cast<uint32_t>(std::clamp<uint64_t>((chunks + per_group - 1) / per_group, 1,
                                                                       groups_cap));
        struct {
            uint32_t n, base, slot;
        } push{static_cast<uint32_t>(count), static_cast<uint32_t>(start), slot};
        d.read(a, split ? start * es : 0, split ? count * es : 0).write(partials).push(push).groups(groups);
        d.record();
        slot += groups;
    }
    const DType acc = accumulator(t);
    Dispatcher f(ctx, ops::variant(ops::Shader::hist_minmax_final, acc), local_size(ctx, ops::Shader::hist_minmax_final, acc));
    f.read(partials).write(result).push(slot).groups(1).record();

    const auto w = result.to_vector<uint32_t>();
    MinMax m;
    auto f32 = [&](int i) { return std::bit_cast<float>(w[i]); };
    auto f64 = [&](int i) { return std::bit_cast<double>(uint64_t(w[i]) | uint64_t(w[i + 1]) << 32); };
    auto value = [&](int i) -> double {
        switch (acc) {
        case DType::float32: return f32(i);
        case DType::int32: return static_cast<int32_t>(w[i]);
        default: return w[i];
        }
    };
    int info = 2;  // index of `any` in the words
    if (acc == DType::float64) {
        m.min = f64(0), m.max = f64(2), info = 4;
        m.neg_value = f64(6);
    } else {
        m.min = value(0), m.max = value(1);
        m.fmin = f32(0), m.fmax = f32(1);
        m.neg_value = value(4);
    }
    m.any = w[info] != 0;
    m.negative = w[info + 1] != 0xffffffffu;
    m.neg_index = w[info + 1];
    return m;
}

// --- NumPy's parameters ------------------------------------------------------

// Everything the bin of a value depends on, in double; the count pass gets
// them in the array's float type (float32 input: float32, else double).
struct Params {
    int bins = 0;
    bool f32 = false;
    double first = 0, last = 0, norm = 0;  // already rounded to float32 when f32
    std::vector<double> edges;             // likewise
};

double round_to(double v, bool f32) { return f32 ? static_cast<double>(static_cast<float>(v)) : v; }

// numpy.linspace(first, last, bins + 1) and NumPy's norm, as cpu::histogram
// computes them (tests compare the two bit for bit).
Params params(int bins, bool f32, double first, double last, double width) {
    Params p;
    p.bins = bins;
    p.f32 = f32;
    p.edges.resize(static_cast<size_t>(bins) + 1);
    const double delta = last - first, step = delta / bins;
    for (int i = 0; i < bins; ++i) {
        // Two roundings, as NumPy: volatile keeps the compiler from fusing them.
        volatile double y = step == 0.0 ? (static_cast<double>(i) / bins) * delta : static_cast<double>(i) * step;
        p.edges[static_cast<size_t>(i)] = round_to(y + first, f32);
    }
    p.edges[static_cast<size_t>(bins)] = round_to(last, f32);
    p.first = round_to(first, f32);
    p.last = round_to(last, f32);
    p.norm = round_to(static_cast<double>(bins) / width, f32);
    return p;
}

// NumPy's bin of an integer value x (in double, as NumPy for integer input).
int64_t bin_of(const Params& p, double x) {
    const int64_t n = p.bins;
    const volatile double f = (x - p.first) * p.norm;
    int64_t i = f >= static_cast<double>(n) ? n : (f > 0 ? static_cast<int64_t>(f) : 0);
    if (i == n) --i;
    if (i > 0 && x < p.edges[static_cast<size_t>(i)]) --i;
    if (i != n - 1 && x >= p.edges[static_cast<size_t>(i) + 1]) ++i;
    return i;
}

std::array<uint32_t, 2> bits(double v, bool f32) {
    std::array<uint32_t, 2> b{0, 0};
    if (f32) b[0] = std::bit_cast<uint32_t>(static_cast<float>(v));
    else std::memcpy(b.data(), &v, 8);
    return b;
}

// --- Counting pass -----------------------------------------------------------

struct CountPush {
    uint32_t n = 0, bins = 0, span = 0, lo = 0, top = 0, pad = 0;
    std::array<uint32_t, 2> first{}, last{}, norm{};
};
static_assert(sizeof(CountPush) == 48);

struct Plan {
    Mode mode = Mode::compute;
    CountPush push;
    Array table;                 // edges, bin table or thresholds; none in direct mode
    uint32_t table_entries = 0;  // uint32 entries worth copying to shared memory
};

void record_count(const Array& a, const Plan& plan, const Array& counts) {
    detail::OpServices& ctx = ops::services(a);
    const DType t = a.dtype();
    const size_t es = dtype_size(t);
    const uint64_t n = a.size(), piece = piece_elements(a);
    const uint32_t bins = plan.push.bins;
    const uint32_t budget = ctx.info().max_shared_memory;
    // The table goes to shared memory when it takes at most half of it; the
    // sub-histograms take what is left.
    const uint64_t table_bytes = uint64_t(plan.table_entries) * 4;
    const bool table_shared = plan.table_entries > 0 && std::bit_ceil(table_bytes) <= budget / 2;
    // (An unused shared array still takes one word.)
    const uint64_t left = budget - (table_shared ? std::bit_ceil(table_bytes) : 4);
    auto copies = static_cast<uint32_t>(std::min<uint64_t>(max_copies, left / (uint64_t(bins) * 4)));
    while (copies && std::bit_ceil(uint64_t(copies) * bins * 4) > left) --copies;
    for (uint64_t start = 0; start < n; start += piece) {
        const uint64_t count = std::min(piece, n - start);
        const bool split = count != n;
        Dispatcher d(ctx, ops::variant(ops::Shader::hist_count, t), local_size(ctx, ops::Shader::hist_count, t));
        const uint64_t chunks = std::max<uint64_t>(1, count * es / 16);
        const uint64_t per_group = uint64_t(product(d.local())) * 4;
        const uint64_t cap = copies ? 1024 : 8192;
        const auto groups = static_cast<uint32_t>(std::clamp<uint64_t>((chunks + per_group - 1) / per_group, 1, cap));
        CountPush push = plan.push;
        push.n = static_cast<uint32_t>(count);
        // Direct mode reads no table: the counts fill its binding rather than
        // another array (which would cost a dispatch to make).
        d.read(a, split ? start * es : 0, split ? count * es : 0).read(plan.table ? plan.table : counts);
        d.read_write(counts);
        // Shared arrays sized up to a power of two: fewer distinct pipelines.
        d.spec(static_cast<uint32_t>(plan.mode))
            .spec(copies)
            .spec(std::bit_ceil(std::max(1u, copies * bins)))
            .spec(table_shared ? std::bit_ceil(plan.table_entries) : 1u)
            .spec(table_shared ? 1u : 0u);
        d.push(push).groups(groups).record();
    }
}

// Plans the counting pass of integer input: direct when every bin is one
// integer wide, a table of bins for narrow ranges, else thresholds searched.
// Returns false when no value of the dtype can fall in the range.
bool plan_integer(const Context& ctx, DType t, const Params& p, Plan& plan) {
    double tmin = 0, tmax = 0;
    visit_dtype(t, [&](auto z) {
        using T = decltype(z);
        tmin = static_cast<double>(std::numeric_limits<T>::lowest());
        tmax = static_cast<double>(std::numeric_limits<T>::max());
    });
    const double lo = std::max(std::ceil(p.first), tmin), hi = std::min(std::floor(p.last), tmax);
    if (lo > hi) return false;
    const auto lo_i = static_cast<int64_t>(lo);
    const auto span = static_cast<uint64_t>(static_cast<int64_t>(hi) - lo_i);
    plan.push.lo = static_cast<uint32_t>(lo_i);
    plan.push.span = static_cast<uint32_t>(span);
    const bool integral_edges = [&] {
        if (p.first != lo || p.norm != 1.0 || p.last != p.first + p.bins) return false;
        for (int i = 0; i <= p.bins; ++i)
            if (p.edges[static_cast<size_t>(i)] != p.first + i) return false;
        return true;
    }();
    std::vector<uint32_t> table;
    if (integral_edges) {
        plan.mode = Mode::direct;
        return true;
    }
    refuse_capture(ctx, "histogram", "needs a table of bins uploaded from the host");
    if (span + 1 <= table_max) {
        plan.mode = Mode::table;
        for (uint64_t v = 0; v <= span; ++v) table.push_back(static_cast<uint32_t>(bin_of(p, lo + double(v))));
    } else {
        // table[i]: the first v with bin(lo + v) >= i; the bin is monotonic in
        // the value, so a binary search per bin finds it.
        plan.mode = Mode::search;
        const int64_t top = bin_of(p, hi);
        table.assign(static_cast<size_t>(top) + 1, 0);
        uint64_t from = 0;
        for (int64_t i = 1; i <= top; ++i) {
            uint64_t a = from, b = span;
            while (a < b) {
                uint64_t m = a + (b - a) / 2;
                if (bin_of(p, lo + double(m)) >= i) b = m;
                else a = m + 1;
            }
            table[static_cast<size_t>(i)] = static_cast<uint32_t>(a);
            from = a;
        }
        plan.push.top = static_cast<uint32_t>(top);
    }
    plan.table_entries = static_cast<uint32_t>(table.size());
    plan.table = Array::from(ctx, Shape{table.size()}, table);
    return true;
}

} // namespace

std::vector<int64_t> Histogram::host_counts() const {
    if (!counts) throw InvalidArgument("Histogram::host_counts: the histogram has no counts array");
    auto c = counts.to_vector<uint32_t>();
    return {c.begin(), c.end()};
}

Histogram histogram(const Array& a, int bins, std::optional<std::pair<double, double>> range) {
    check_input(a, "histogram");
    if (bins <= 0)
        throw InvalidArgument("histogram: bins = " + std::to_string(bins) + "; the number of bins must be >= 1");
    const DType t = a.dtype();
    const bool f32 = t == DType::float32;
    double first = 0, last = 1, width = 1;
    if (range) {
        auto [lo, hi] = *range;
        if (!std::isfinite(lo) || !std::isfinite(hi))
            throw InvalidArgument("histogram: range (" + std::to_string(lo) + ", " + std::to_string(hi) +
                                  ") is not finite; give finite bounds");
        if (!(lo < hi))
            throw InvalidArgument("histogram: range (" + std::to_string(lo) + ", " + std::to_string(hi) +
                                  ") needs min < max");
        first = lo, last = hi, width = hi - lo;
    } else {
        refuse_capture(a.context(), "histogram", "reads the automatic range back from the GPU (give a range)");
        const MinMax m = min_max(a);
        if (!m.any) throw_no_finite_range(a.size());
        if (m.min == m.max) {
            first = m.min - 0.5, last = m.max + 0.5, width = last - first;
        } else {
            first = m.min, last = m.max, width = m.max - m.min;
            // NumPy takes the width of a float32 range in float32.
            if (f32) width = static_cast<float>(m.fmax - m.fmin);
        }
    }
    const Context ctx = a.context();
    Params p = params(bins, f32, first, last, width);
    Histogram h;
    h.edges = p.edges;
    h.counts = Array::zeros(ctx, Shape{static_cast<size_t>(bins)}, DType::uint32);
    Plan plan;
    plan.push.bins = static_cast<uint32_t>(bins);
    if (dtype_is_float(t)) {
        plan.mode = Mode::compute;
        plan.push.first = bits(p.first, f32);
        plan.push.last = bits(p.last, f32);
        plan.push.norm = bits(p.norm, f32);
        refuse_capture(ctx, "histogram", "uploads the edges from the host");
        if (f32) {
            std::vector<float> e(p.edges.begin(), p.edges.end());
            plan.table = Array::from(ctx, Shape{e.size()}, e);
        } else {
            plan.table = Array::from(ctx, Shape{p.edges.size()}, p.edges);
        }
    } else if (!plan_integer(ctx, t, p, plan)) {
        return h;
    }
    record_count(a, plan, h.counts);
    return h;
}

Array bincount(const Array& a, size_t minlength) {
    check_input(a, "bincount");
    if (dtype_is_float(a.dtype()))
        throw InvalidArgument("bincount: array is " + std::string(dtype_name(a.dtype())) +
                              "; bincount counts integers (int8..uint32), convert first with kiln::cast");
    refuse_capture(a.context(), "bincount", "reads the maximum back from the GPU to size its result");
    const MinMax m = min_max(a);
    if (m.negative) {
        char value[32];
        std::snprintf(value, sizeof value, "%.0f", m.neg_value);
        throw InvalidArgument("bincount: value " + std::string(value) + " at index " +
                              std::to_string(m.neg_index) + " is negative; bincount accepts values >= 0 only");
    }
    const auto top = static_cast<uint64_t>(m.max);
    const uint64_t length = std::max<uint64_t>(top + 1, minlength);
    if (length > std::numeric_limits<uint32_t>::max())
        throw Unsupported("bincount: " + std::to_string(length) + " bins are more than this op supports (2^32 - 1)");
    Array counts = Array::zeros(a.context(), Shape{static_cast<size_t>(length)}, DType::uint32);
    Plan plan;
    plan.mode = Mode::direct;
    plan.push.bins = static_cast<uint32_t>(length);
    plan.push.span = static_cast<uint32_t>(top);
    record_count(a, plan, counts);
    return counts;
}

} // namespace kiln
