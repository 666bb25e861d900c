// Whole-array reductions: a first pass where every workgroup reduces its
// share of the elements to one partial (pieces of arrays larger than one
// binding write their partials side by side), then one workgroup combines the
// partials. Both passes are recorded; the host is held up only where a
// host value is asked for.
#include "kiln/reduce.hpp"
#include "kiln/manifest.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};
// Elements one thread of the first pass takes on average before the grid is
// capped: enough work per workgroup to hide its final reduction.
constexpr uint64_t elements_per_thread = 16;
constexpr uint32_t max_groups = 2048;

void require(const Array& a, const char* fn) {
    if (!a)
        throw InvalidArgument(std::string(fn) +
                              ": the array is null (default-constructed); pass an array made with "
                              "Array::empty, Array::from_host or an operation");
}

// Whether sums accumulate in float64 (else compensated float32 pairs).
bool float64_accumulation(const Array& a, Accumulation acc, const char* fn) {
    const bool has = ops::services(a).enabled().float64;
    if (a.dtype() == DType::float64) {
        if (!has)
            throw Unsupported(std::string(fn) + ": float64 arrays need a device with shaderFloat64, which '" +
                              ops::services(a).info().name + "' lacks; cast to float32 first");
        return true;  // float32 pairs cannot hold float64 values
    }
    if (acc == Accumulation::float64 && !has)
        throw Unsupported(std::string(fn) + ": float64 accumulation needs a device with shaderFloat64, which '" +
                          ops::services(a).info().name + "' lacks; use Accumulation::automatic or compensated");
    return has && acc != Accumulation::compensated;
}

// The array in pieces that one binding each can cover, aligned to 256
// elements (so vector loads and binding offsets stay aligned).
struct Piece {
    uint64_t start, count;
    uint32_t groups, part_base;
};

std::vector<Piece> pieces_of(const Array& a) {
    const uint64_t n = a.size();
    uint64_t piece = ops::max_elements_per_binding(ops::services(a), dtype_size(a.dtype())) / 256 * 256;
    piece = std::min<uint64_t>(piece, 1ull << 30);
    std::vector<Piece> out;
    uint32_t parts = 0;
    for (uint64_t start = 0; start < n; start += piece) {
        const uint64_t count = std::min(piece, n - start);
        const uint64_t per_group = linear_local[0] * elements_per_thread;
        const auto groups = static_cast<uint32_t>(std::clamp<uint64_t>((count + per_group - 1) / per_group, 1,
                                                                        max_groups));
        out.push_back({start, count, groups, parts});
        parts += groups;
    }
    return out;
}

uint32_t total_parts(const std::vector<Piece>& ps) { return ps.back().part_base + ps.back().groups; }

void bind_piece(Dispatcher& d, const Array& a, const Piece& pc) {
    const size_t es = dtype_size(a.dtype());
    if (pc.count == a.size()) d.read(a);
    else d.read(a, pc.start * es, pc.count * es);
}

// The accumulator type as the final kernels see it: one double, or a float
// pair (stored as two float32 elements).
DType acc_dtype(bool f64) { return f64 ? DType::float64 : DType::float32; }
size_t acc_elems(bool f64) { return f64 ? 1 : 2; }

// First pass of a sum (mode 0) or of squared deviations from `mean` (mode 1).
Array sum_partials(const Array& a, bool f64, uint32_t mode, const Array* mean) {
    const auto ps = pieces_of(a);
    Context ctx = a.context();
    Array partials = Array::empty(ctx, Shape{total_parts(ps) * acc_elems(f64)}, acc_dtype(f64));
    // Mode 0 reads no mean; a placeholder fills its binding.
    Array placeholder = mean ? *mean : Array::empty(ctx, Shape{acc_elems(f64)}, acc_dtype(f64));
    const ops::KernelId kernel = ops::variant(ops::Shader::reduce_sum, a.dtype(), acc_dtype(f64));
    for (const Piece& pc : ps) {
        Dispatcher d(ops::services(a), kernel, linear_local);
        bind_piece(d, a, pc);
        struct {
            uint32_t n, part_base;
        } push{static_cast<uint32_t>(pc.count), pc.part_base};
        d.read(placeholder).write(partials).spec(mode).push(push).groups(pc.groups).record();
    }
    return partials;
}

enum class SumOp : uint32_t { sum = 0, mean = 1, var = 2, std = 3 };

Array sum_final(const Array& partials, bool f64, SumOp op, uint64_t n, double divisor) {
    Array result = Array::empty(partials.context(), Shape{acc_elems(f64)}, acc_dtype(f64));
    struct {
        uint32_t parts, pad;
        std::array<uint32_t, 2> n_bits, div_bits;
    } push{static_cast<uint32_t>(partials.size() / acc_elems(f64)), 0, ops::accumulator_bits(static_cast<double>(n), f64),
           ops::accumulator_bits(divisor, f64)};
    Dispatcher d(ops::services(partials), ops::variant(ops::Shader::reduce_final, acc_dtype(f64)), linear_local);
    d.read(partials).write(result).spec(static_cast<uint32_t>(op)).push(push).groups(1).record();
    return result;
}

// The statistic as a device array of one double or one float pair.
Array sum_statistic(const Array& a, SumOp op, int ddof, bool f64) {
    const uint64_t n = a.size();
    const double divisor = std::max(static_cast<double>(n) - static_cast<double>(ddof), 0.0);
    if (op == SumOp::sum || op == SumOp::mean) return sum_final(sum_partials(a, f64, 0, nullptr), f64, op, n, divisor);
    Array m = sum_final(sum_partials(a, f64, 0, nullptr), f64, SumOp::mean, n, divisor);
    return sum_final(sum_partials(a, f64, 1, &m), f64, op, n, divisor);
}

double host_value(const Array& r, bool f64) {
    if (f64) return r.to_vector<double>()[0];
    auto pair = r.to_vector<float>();
    if (!std::isfinite(pair[0])) return pair[0];
    return static_cast<double>(pair[0]) + static_cast<double>(pair[1]);
}

// A shape-(1,) view of the first element of a small result array.
Array first_element(const Array& r, DType t) {
    return Array(r.context().shared_state(), r.storage(), Shape{1}, t);
}

double sum_host(const Array& a, SumOp op, int ddof, Accumulation acc, const char* fn) {
    require(a, fn);
    const bool f64 = float64_accumulation(a, acc, fn);
    return host_value(sum_statistic(a, op, ddof, f64), f64);
}

Array sum_device(const Array& a, SumOp op, int ddof, Accumulation acc, const char* fn) {
    require(a, fn);
    const bool f64 = float64_accumulation(a, acc, fn);
    Array r = sum_statistic(a, op, ddof, f64);
    return f64 ? r : first_element(r, DType::float32);
}

enum class ExtremeOp : uint32_t { argmin = 0, argmax = 1, count = 2 };

// What the partials of reduce_extreme hold: 8- and 16-bit values widened.
DType widened(DType t) {
    switch (t) {
    case DType::int8:
    case DType::int16: return DType::int32;
    case DType::uint8:
    case DType::uint16: return DType::uint32;
    default: return t;
    }
}

struct Extreme {
    Array value;  ///< shape (1,), a's dtype (argmin/argmax)
    Array index;  ///< two uint32: the 64-bit flat index (or count), low word first
};

Extreme extreme(const Array& a, ExtremeOp op, const char* fn) {
    require(a, fn);
    if (a.dtype() == DType::float64 && !ops::services(a).enabled().float64)
        throw Unsupported(std::string(fn) + ": float64 arrays need a device with shaderFloat64, which '" +
                          ops::services(a).info().name + "' lacks");
    const auto ps = pieces_of(a);
    Context ctx = a.context();
    const uint32_t parts = total_parts(ps);
    Array values = Array::empty(ctx, Shape{parts}, widened(a.dtype()));
    Array indices = Array::empty(ctx, Shape{uint64_t(parts) * 2}, DType::uint32);
    for (const Piece& pc : ps) {
        Dispatcher d(ops::services(a), ops::variant(ops::Shader::reduce_extreme, a.dtype()), linear_local);
        bind_piece(d, a, pc);
        struct {
            uint32_t n, part_base, base_lo, base_hi;
        } push{static_cast<uint32_t>(pc.count), pc.part_base, static_cast<uint32_t>(pc.start),
               static_cast<uint32_t>(pc.start >> 32)};
        d.write(values).write(indices).spec(static_cast<uint32_t>(op)).push(push).groups(pc.groups).record();
    }
    Extreme r{Array::empty(ctx, Shape{1}, a.dtype()), Array::empty(ctx, Shape{2}, DType::uint32)};
    Dispatcher d(ops::services(a), ops::variant(ops::Shader::reduce_extreme_final, a.dtype()), linear_local);
    d.read(values).read(indices).write(r.value).write(r.index).spec(static_cast<uint32_t>(op)).push(parts);
    d.groups(1).record();
    return r;
}

int64_t host_index(const Array& index) {
    auto w = index.to_vector<uint32_t>();
    return static_cast<int64_t>(w[0] | (uint64_t(w[1]) << 32));
}

Array int32_index(const Array& a, ExtremeOp op, const char* fn) {
    require(a, fn);
    if (a.size() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
        throw Unsupported(std::string(fn) + ": an array of " + std::to_string(a.size()) +
                          " elements may give a result beyond int32, the dtype of this form; use the "
                          "form that returns a host int64 instead");
    return first_element(extreme(a, op, fn).index, DType::int32);
}

} // namespace

double sum(const Array& a, Accumulation acc) { return sum_host(a, SumOp::sum, 0, acc, "sum"); }
double mean(const Array& a, Accumulation acc) { return sum_host(a, SumOp::mean, 0, acc, "mean"); }
double var(const Array& a, int ddof, Accumulation acc) { return sum_host(a, SumOp::var, ddof, acc, "var"); }
double std(const Array& a, int ddof, Accumulation acc) { return sum_host(a, SumOp::std, ddof, acc, "std"); }

double min(const Array& a) { return extreme(a, ExtremeOp::argmin, "min").value.to_host().at(0); }
double max(const Array& a) { return extreme(a, ExtremeOp::argmax, "max").value.to_host().at(0); }
int64_t argmin(const Array& a) { return host_index(extreme(a, ExtremeOp::argmin, "argmin").index); }
int64_t argmax(const Array& a) { return host_index(extreme(a, ExtremeOp::argmax, "argmax").index); }
int64_t count_nonzero(const Array& a) {
    return host_index(extreme(a, ExtremeOp::count, "count_nonzero").index);
}

Array sum_array(const Array& a, Accumulation acc) { return sum_device(a, SumOp::sum, 0, acc, "sum_array"); }
Array mean_array(const Array& a, Accumulation acc) { return sum_device(a, SumOp::mean, 0, acc, "mean_array"); }
Array var_array(const Array& a, int ddof, Accumulation acc) {
    return sum_device(a, SumOp::var, ddof, acc, "var_array");
}
Array std_array(const Array& a, int ddof, Accumulation acc) {
    return sum_device(a, SumOp::std, ddof, acc, "std_array");
}
Array min_array(const Array& a) { return extreme(a, ExtremeOp::argmin, "min_array").value; }
Array max_array(const Array& a) { return extreme(a, ExtremeOp::argmax, "max_array").value; }
Array argmin_array(const Array& a) { return int32_index(a, ExtremeOp::argmin, "argmin_array"); }
Array argmax_array(const Array& a) { return int32_index(a, ExtremeOp::argmax, "argmax_array"); }
Array count_nonzero_array(const Array& a) { return int32_index(a, ExtremeOp::count, "count_nonzero_array"); }

} // namespace kiln

// The manifest of the reductions (kiln/manifest.hpp): the whole array gives
// a number, --axis an array.
namespace kiln {
namespace {

const ArgSpec reduce_input{"a", ArgKind::array, "Input array file (.npy, .fits, .png)"};
const ArgSpec reduce_axis{"axis", ArgKind::integer,
                          "Reduce along this axis (NumPy order, negative from the end) into -o", "", true, {},
                          INT32_MIN, INT32_MAX};
const ArgSpec reduce_ddof{"ddof", ArgKind::integer, "Delta degrees of freedom: divide by n - ddof", "0", false, {},
                          INT32_MIN, INT32_MAX};

template <typename Whole, typename Along>
OpEntry reduction(const char* name, const char* doc, bool ddof, Whole whole, Along along) {
    std::vector<ArgSpec> args{reduce_input, reduce_axis};
    if (ddof) args.push_back(reduce_ddof);
    using W = std::invoke_result_t<Whole, const Array&, int>;
    return {name, doc, args,
            std::is_integral_v<W> ? ResultKind::integer_or_array : ResultKind::number_or_array, "axis", {},
            [whole, along, ddof](const OpArgs& x) -> OpResult {
                const int d = ddof ? static_cast<int>(x.integer("ddof")) : 0;
                if (x.has("axis")) return along(x.array("a"), Axis{static_cast<int>(x.integer("axis"))}, d);
                return whole(x.array("a"), d);
            }};
}

const OpFamily reduce_family("reduce", {
    reduction("sum", "Sum of all elements in float64 (numpy.sum), or along --axis", false,
              [](const Array& a, int) { return sum(a); }, [](const Array& a, Axis ax, int) { return sum(a, ax); }),
    reduction("mean", "Mean in float64 (numpy.mean), or along --axis", false,
              [](const Array& a, int) { return mean(a); }, [](const Array& a, Axis ax, int) { return mean(a, ax); }),
    reduction("var", "Variance (numpy.var with --ddof), or along --axis", true,
              [](const Array& a, int d) { return var(a, d); },
              [](const Array& a, Axis ax, int d) { return var(a, ax, d); }),
    reduction("std", "Standard deviation (numpy.std with --ddof), or along --axis", true,
              [](const Array& a, int d) { return kiln::std(a, d); },
              [](const Array& a, Axis ax, int d) { return kiln::std(a, ax, d); }),
    reduction("min", "Smallest element (NaN if any is NaN), or along --axis", false,
              [](const Array& a, int) { return min(a); }, [](const Array& a, Axis ax, int) { return min(a, ax); }),
    reduction("max", "Largest element (NaN if any is NaN), or along --axis", false,
              [](const Array& a, int) { return max(a); }, [](const Array& a, Axis ax, int) { return max(a, ax); }),
    reduction("argmin", "Flat index of the first minimum (or first NaN), or along --axis", false,
              [](const Array& a, int) { return argmin(a); },
              [](const Array& a, Axis ax, int) { return argmin(a, ax); }),
    reduction("argmax", "Flat index of the first maximum (or first NaN), or along --axis", false,
              [](const Array& a, int) { return argmax(a); },
              [](const Array& a, Axis ax, int) { return argmax(a, ax); }),
    reduction("count_nonzero", "Number of nonzero elements (NaN counts), or along --axis", false,
              [](const Array& a, int) { return count_nonzero(a); },
              [](const Array& a, Axis ax, int) { return count_nonzero(a, ax); }),
});

}  // namespace
}  // namespace kiln
