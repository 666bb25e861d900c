#include "kiln/elementwise.hpp"
#include "kiln/manifest.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};

struct ElemPush {
    uint32_t n = 0, pad = 0;
    uint32_t s[4] = {0, 0, 0, 0};
};

struct Operand {
    const Array* array;
    detail::Access access;
};

// Records kernel over all elements, split into pieces when an array is
// larger than one binding may cover. push_bytes of ElemPush are pushed,
// with n set per piece.
void elementwise(ops::KernelId kernel, const std::vector<Operand>& operands, ElemPush push,
                 size_t push_bytes, const std::vector<uint32_t>& specs = {}) {
    const Array& first = *operands.front().array;
    detail::OpServices& ctx = ops::services(first);
    const uint64_t n = first.size();
    size_t widest = 1;
    for (auto& o : operands) widest = std::max(widest, dtype_size(o.array->dtype()));
    // Pieces of a multiple of 256 elements keep every binding offset aligned.
    uint64_t piece = ops::max_elements_per_binding(ctx, widest) / 256 * 256;
    piece = std::min<uint64_t>(piece, 1ull << 30);
    for (uint64_t start = 0; start < n; start += piece) {
        uint64_t count = std::min(piece, n - start);
        bool split = count != n;
        Dispatcher d(ctx, kernel, linear_local);
        for (auto& o : operands) {
            size_t es = dtype_size(o.array->dtype());
            VkDeviceSize off = split ? start * es : 0, range = split ? count * es : 0;
            if (o.access == detail::Access::read) d.read(*o.array, off, range);
            else d.write(*o.array, off, range);
        }
        for (uint32_t s : specs) d.spec(s);
        push.n = static_cast<uint32_t>(count);
        d.push_raw(&push, push_bytes).stride_grid(count).record();
    }
}

// float32 arrays of a multiple of 4 elements that fit one binding go four
// elements per invocation.
bool binary4(const Array& a, const Array& b, const Array& out, ElemPush push, BinaryOp op, uint32_t mode) {
    if (a.dtype() != DType::float32 || a.size() % 4 || a.nbytes() > ops::services(a).info().max_storage_buffer_range)
        return false;
    Dispatcher d(ops::services(a), ops::KernelId::binary4, linear_local);
    push.n = static_cast<uint32_t>(a.size() / 4);
    d.read(a).read(b).write(out).spec(static_cast<uint32_t>(op)).spec(mode);
    d.push_raw(&push, 16).stride_grid(push.n).record();
    return true;
}

void set_scalar(ElemPush& p, int slot, double v, DType t) {
    auto bits = ops::scalar_bits(v, t);
    p.s[2 * slot] = bits[0];
    p.s[2 * slot + 1] = bits[1];
}

// 64-bit integers divide in float64: float32 would drop all but 24 of their bits.
DType divide_dtype(DType t) {
    return t == DType::float64 || t == DType::int64 || t == DType::uint64 ? DType::float64 : DType::float32;
}

Array new_like(const Array& a, DType t) { return Array::empty(a.context(), a.shape(), t); }

} // namespace

void fill(Array& a, double value) {
    if (!a) throw InvalidArgument("fill on a null Array");
    ElemPush p;
    set_scalar(p, 0, value, a.dtype());
    elementwise(ops::variant(ops::Shader::fill, a.dtype()), {{&a, detail::Access::write}}, p, 16);
}

Array Array::zeros(const Context& ctx, Shape shape, DType dtype) { return full(ctx, shape, 0.0, dtype); }

Array Array::full(const Context& ctx, Shape shape, double value, DType dtype) {
    Array a = empty(ctx, shape, dtype);
    fill(a, value);
    return a;
}

Array copy(const Array& a) {
    if (!a) throw InvalidArgument("copy of a null Array");
    Array out = new_like(a, a.dtype());
    // Copy as 16- or 4-byte words; the arrays are viewed as uint32 arrays.
    const bool wide = a.nbytes() % 16 == 0;
    const uint64_t words = (a.nbytes() + 3) / 4;
    Shape ws{words};
    Array src(a.context().shared_state(), a.storage(), ws, DType::uint32);
    Array dst(out.context().shared_state(), out.storage(), ws, DType::uint32);
    if (wide && ops::max_elements_per_binding(ops::services(a), 4) >= words) {
        Dispatcher d(ops::services(a), ops::KernelId::copy_u128, linear_local);
        uint32_t n = static_cast<uint32_t>(words / 4);
        d.read(src).write(dst).push(n).stride_grid(n).record();
    } else {
        elementwise(ops::KernelId::copy_u32, {{&src, detail::Access::read}, {&dst, detail::Access::write}}, {}, 4);
    }
    return out;
}

Array cast(const Array& a, DType to) {
    if (!a) throw InvalidArgument("cast of a null Array");
    if (to == a.dtype()) return copy(a);
    Array out = new_like(a, to);
    const ops::KernelId kernel = ops::variant(ops::Shader::cast, a.dtype(), to);
    elementwise(kernel, {{&a, detail::Access::read}, {&out, detail::Access::write}}, {}, 4);
    return out;
}

Array binary(BinaryOp op, const Array& a, const Array& b) {
    if (!a || !b) throw InvalidArgument("binary operation on a null Array");
    ops::check_same_shape(a, b, "binary operation");
    if (op == BinaryOp::divide && divide_dtype(a.dtype()) != a.dtype())
        return binary(op, cast(a, divide_dtype(a.dtype())), cast(b, divide_dtype(a.dtype())));
    Array out = new_like(a, a.dtype());
    if (binary4(a, b, out, {}, op, 0)) return out;
    elementwise(ops::variant(ops::Shader::binary, a.dtype()),
                {{&a, detail::Access::read}, {&b, detail::Access::read}, {&out, detail::Access::write}}, {}, 16,
                {static_cast<uint32_t>(op), 0});
    return out;
}

Array binary(BinaryOp op, const Array& a, double s, bool scalar_first) {
    if (!a) throw InvalidArgument("binary operation on a null Array");
    if (op == BinaryOp::divide && divide_dtype(a.dtype()) != a.dtype())
        return binary(op, cast(a, divide_dtype(a.dtype())), s, scalar_first);
    Array out = new_like(a, a.dtype());
    ElemPush p;
    set_scalar(p, 0, s, a.dtype());
    if (binary4(a, a, out, p, op, scalar_first ? 2u : 1u)) return out;
    // The B binding is unused with a scalar; a is bound there to keep the layout.
    elementwise(ops::variant(ops::Shader::binary, a.dtype()),
                {{&a, detail::Access::read}, {&a, detail::Access::read}, {&out, detail::Access::write}}, p, 16,
                {static_cast<uint32_t>(op), scalar_first ? 2u : 1u});
    return out;
}

Array add(const Array& a, const Array& b) { return binary(BinaryOp::add, a, b); }
Array add(const Array& a, double s) { return binary(BinaryOp::add, a, s); }
Array subtract(const Array& a, const Array& b) { return binary(BinaryOp::subtract, a, b); }
Array subtract(const Array& a, double s) { return binary(BinaryOp::subtract, a, s); }
Array subtract(double s, const Array& a) { return binary(BinaryOp::subtract, a, s, true); }
Array multiply(const Array& a, const Array& b) { return binary(BinaryOp::multiply, a, b); }
Array multiply(const Array& a, double s) { return binary(BinaryOp::multiply, a, s); }
Array divide(const Array& a, const Array& b) { return binary(BinaryOp::divide, a, b); }
Array divide(const Array& a, double s) { return binary(BinaryOp::divide, a, s); }
Array divide(double s, const Array& a) { return binary(BinaryOp::divide, a, s, true); }
Array minimum(const Array& a, const Array& b) { return binary(BinaryOp::minimum, a, b); }
Array minimum(const Array& a, double s) { return binary(BinaryOp::minimum, a, s); }
Array maximum(const Array& a, const Array& b) { return binary(BinaryOp::maximum, a, b); }
Array maximum(const Array& a, double s) { return binary(BinaryOp::maximum, a, s); }

Array compare(CompareOp op, const Array& a, const Array& b) {
    if (!a || !b) throw InvalidArgument("comparison on a null Array");
    ops::check_same_shape(a, b, "comparison");
    Array out = new_like(a, DType::uint8);
    elementwise(ops::variant(ops::Shader::compare, a.dtype()),
                {{&a, detail::Access::read}, {&b, detail::Access::read}, {&out, detail::Access::write}}, {}, 16,
                {static_cast<uint32_t>(op), 0});
    return out;
}

namespace {

// Neighbours of s among the values of dtype t: lo <= s <= hi, equal when s
// is representable. Comparisons against them are exact (see compare()).
struct Bracket {
    double lo, hi;
    bool below, above;  // s is below (above) every value of t
};

Bracket bracket(double s, DType t) {
    if (t == DType::float64) return {s, s, false, false};
    if (t == DType::float32) {
        float f = static_cast<float>(s);
        double fd = f;
        if (fd == s) return {s, s, false, false};
        float lo = fd < s ? f : std::nextafter(f, -std::numeric_limits<float>::infinity());
        float hi = fd > s ? f : std::nextafter(f, std::numeric_limits<float>::infinity());
        return {lo, hi, false, false};
    }
    double mn = 0, mx = 0;
    switch (t) {
    case DType::int8: mn = -128, mx = 127; break;
    case DType::uint8: mn = 0, mx = 255; break;
    case DType::int16: mn = -32768, mx = 32767; break;
    case DType::uint16: mn = 0, mx = 65535; break;
    case DType::int32: mn = -2147483648.0, mx = 2147483647.0; break;
    default: mn = 0, mx = 4294967295.0;
    }
    return {std::floor(s), std::ceil(s), s < mn, s > mx};
}

} // namespace

Array compare(CompareOp op, const Array& a, double s) {
    if (!a) throw InvalidArgument("comparison on a null Array");
    auto constant = [&](bool v) { return Array::full(a.context(), a.shape(), v ? 1 : 0, DType::uint8); };
    if (std::isnan(s)) return constant(op == CompareOp::not_equal);
    Bracket b = bracket(s, a.dtype());
    // v > s  <=> v > lo;  v >= s <=> v >= hi;  v < s <=> v < hi;  v <= s <=> v <= lo;
    // v == s <=> exact and v == s.
    bool exact = b.lo == b.hi && !b.below && !b.above;
    double value = 0;
    switch (op) {
    case CompareOp::equal:
        if (!exact) return constant(false);
        value = b.lo;
        break;
    case CompareOp::not_equal:
        if (!exact) return constant(true);
        value = b.lo;
        break;
    case CompareOp::greater:
    case CompareOp::less_equal:
        if (b.below) return constant(op == CompareOp::greater);
        if (b.above) return constant(op == CompareOp::less_equal);
        value = b.lo;
        break;
    case CompareOp::less:
    case CompareOp::greater_equal:
        if (b.below) return constant(op == CompareOp::greater_equal);
        if (b.above) return constant(op == CompareOp::less);
        value = b.hi;
        break;
    }
    Array out = new_like(a, DType::uint8);
    ElemPush p;
    set_scalar(p, 0, value, a.dtype());
    elementwise(ops::variant(ops::Shader::compare, a.dtype()),
                {{&a, detail::Access::read}, {&a, detail::Access::read}, {&out, detail::Access::write}}, p, 16,
                {static_cast<uint32_t>(op), 1});
    return out;
}

Array equal(const Array& a, const Array& b) { return compare(CompareOp::equal, a, b); }
Array not_equal(const Array& a, const Array& b) { return compare(CompareOp::not_equal, a, b); }
Array less(const Array& a, const Array& b) { return compare(CompareOp::less, a, b); }
Array less_equal(const Array& a, const Array& b) { return compare(CompareOp::less_equal, a, b); }
Array greater(const Array& a, const Array& b) { return compare(CompareOp::greater, a, b); }
Array greater_equal(const Array& a, const Array& b) { return compare(CompareOp::greater_equal, a, b); }

Array threshold(const Array& image, double t) { return compare(CompareOp::greater, image, t); }

Array threshold(const Array& image, const Array& scalars, size_t index, double factor) {
    if (!image || !scalars) throw InvalidArgument("threshold: the image or the scalars array is null");
    ops::check_same_context(image, scalars, "threshold");
    if (scalars.dtype() != DType::float64)
        throw InvalidArgument("threshold: the scalars must be float64 (they are " +
                              std::string(dtype_name(scalars.dtype())) + ")");
    if (index >= scalars.size())
        throw InvalidArgument("threshold: index " + std::to_string(index) + " is past the " +
                              std::to_string(scalars.size()) + " scalars");
    Array out = new_like(image, DType::uint8);
    detail::OpServices& ctx = ops::services(image);
    struct {
        uint32_t n, index;
        uint32_t factor_bits[2];
    } push{0, static_cast<uint32_t>(index), {0, 0}};
    std::memcpy(push.factor_bits, &factor, 8);
    // Pieces of a multiple of 256 elements keep the binding offsets aligned.
    const size_t es = dtype_size(image.dtype());
    const uint64_t n = image.size();
    const uint64_t piece = std::min<uint64_t>(ops::max_elements_per_binding(ctx, es) / 256 * 256, 1ull << 30);
    for (uint64_t start = 0; start < n; start += piece) {
        const uint64_t count = std::min(piece, n - start);
        const bool split = count != n;
        Dispatcher d(ctx, ops::variant(ops::Shader::threshold_device, image.dtype()), linear_local);
        d.read(image, split ? start * es : 0, split ? count * es : 0).read(scalars);
        d.write(out, split ? start : 0, split ? count : 0);
        push.n = static_cast<uint32_t>(count);
        d.push(push).stride_grid(count).record();
    }
    return out;
}

namespace {

Array as_condition(const Array& cond) {
    return cond.dtype() == DType::uint8 ? cond : compare(CompareOp::not_equal, cond, 0.0);
}

Array where_impl(const Array& cond_in, const Array* a, double sa, const Array* b, double sb, DType t) {
    if (!cond_in) throw InvalidArgument("where: the condition is a null Array");
    if (a) ops::check_same_shape(cond_in, *a, "where", false);
    if (b) ops::check_same_shape(cond_in, *b, "where", false);
    if (a && b) ops::check_same_shape(*a, *b, "where");
    Array cond = as_condition(cond_in);
    Array out = Array::empty(cond.context(), cond.shape(), t);
    ElemPush p;
    set_scalar(p, 0, sa, t);
    set_scalar(p, 1, sb, t);
    if (!a || !b) {
        // An unused binding gets a one-element placeholder (out is written
        // by this node and must not also be read).
        Array dummy = Array::empty(cond.context(), Shape{1}, t);
        const Array& pa = a ? *a : dummy;
        const Array& pb = b ? *b : dummy;
        Dispatcher d(ops::services(cond), ops::variant(ops::Shader::where, t), linear_local);
        if (out.size() > ops::max_elements_per_binding(ops::services(cond), 8))
            throw Unsupported("where with a scalar on arrays this large is not split; use array operands");
        d.read(cond).read(pa).read(pb).write(out).spec(a ? 0 : 1).spec(b ? 0 : 1);
        p.n = static_cast<uint32_t>(out.size());
        d.push_raw(&p, 24).stride_grid(out.size()).record();
        return out;
    }
    elementwise(ops::variant(ops::Shader::where, t),
                {{&cond, detail::Access::read}, {a, detail::Access::read}, {b, detail::Access::read},
                 {&out, detail::Access::write}},
                p, 24, {0, 0});
    return out;
}

} // namespace

Array where(const Array& cond, const Array& a, const Array& b) {
    if (!a || !b) throw InvalidArgument("where: a null Array was given");
    return where_impl(cond, &a, 0, &b, 0, a.dtype());
}
Array where(const Array& cond, const Array& a, double b) {
    if (!a) throw InvalidArgument("where: a null Array was given");
    return where_impl(cond, &a, 0, nullptr, b, a.dtype());
}
Array where(const Array& cond, double a, const Array& b) {
    if (!b) throw InvalidArgument("where: a null Array was given");
    return where_impl(cond, nullptr, a, &b, 0, b.dtype());
}
Array where(const Array& cond, double a, double b, DType dtype) {
    return where_impl(cond, nullptr, a, nullptr, b, dtype);
}

} // namespace kiln

// The manifest of the element-wise family (kiln/manifest.hpp).
namespace kiln {
namespace {

OpEntry binary_entry(const char* name, BinaryOp op) {
    return {name,
            std::string(name) + " element-wise: A and B are arrays or numbers",
            {{"a", ArgKind::operand, "First operand: array file or number"},
             {"b", ArgKind::operand, "Second operand: array file or number"}},
            ResultKind::array, {}, {},
            [name, op](const OpArgs& x) {
                if (!x.is_array("a") && !x.is_array("b"))
                    throw InvalidArgument(std::string(name) + ": at least one of A and B must be an array");
                if (!x.is_array("b")) return binary(op, x.array("a"), x.number("b"));
                if (!x.is_array("a")) return binary(op, x.array("b"), x.number("a"), true);
                return binary(op, x.array("a"), x.array("b"));
            }};
}

OpEntry compare_entry(const char* name, const char* cli_name, CompareOp op) {
    return {name,
            std::string(cli_name) + ": uint8 0/1 of A " + cli_name + " B (B an array file or a number)",
            {{"a", ArgKind::array, "Array file"}, {"b", ArgKind::operand, "Array file or number"}},
            ResultKind::array, {}, {},
            [op](const OpArgs& x) {
                return x.is_array("b") ? compare(op, x.array("a"), x.array("b"))
                                       : compare(op, x.array("a"), x.number("b"));
            }};
}

const OpFamily elementwise_family("elementwise", {
    binary_entry("add", BinaryOp::add),
    binary_entry("subtract", BinaryOp::subtract),
    binary_entry("multiply", BinaryOp::multiply),
    binary_entry("divide", BinaryOp::divide),
    binary_entry("minimum", BinaryOp::minimum),
    binary_entry("maximum", BinaryOp::maximum),
    compare_entry("equal", "equal", CompareOp::equal),
    compare_entry("not_equal", "not-equal", CompareOp::not_equal),
    compare_entry("less", "less", CompareOp::less),
    compare_entry("less_equal", "less-equal", CompareOp::less_equal),
    compare_entry("greater", "greater", CompareOp::greater),
    compare_entry("greater_equal", "greater-equal", CompareOp::greater_equal),
    {"where", "COND ? A : B element-wise (A, B array files or numbers)",
     {{"cond", ArgKind::array, "Condition array (nonzero is true)"},
      {"a", ArgKind::operand, "Value where true: array file or number"},
      {"b", ArgKind::operand, "Value where false: array file or number"},
      {"dtype", ArgKind::choice, "Output dtype when A and B are both numbers", "float32", false, dtype_choices()}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         const Array& k = x.array("cond");
         if (x.is_array("a") && x.is_array("b")) return where(k, x.array("a"), x.array("b"));
         if (x.is_array("a")) return where(k, x.array("a"), x.number("b"));
         if (x.is_array("b")) return where(k, x.number("a"), x.array("b"));
         return where(k, x.number("a"), x.number("b"), parse_dtype(x.text("dtype")));
     }},
    {"threshold", "uint8 1 where IMAGE > --above, else 0 (NaN gives 0)",
     {{"image", ArgKind::array, "Input array file"}, {"above", ArgKind::number, "Threshold t: output is image > t"}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) { return threshold(x.array("image"), x.number("above")); }},
    {"cast", "Convert to another dtype (float->int saturates, NaN->0)",
     {{"a", ArgKind::array, "Input array file"},
      {"dtype", ArgKind::choice, "The element type to convert to", "", false, dtype_choices()}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) { return cast(x.array("a"), parse_dtype(x.text("dtype"))); }},
    {"copy", "Copy an array through the GPU (converts file formats)",
     {{"a", ArgKind::array, "Input array file"}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) { return copy(x.array("a")); }},
    {"full", "A new array of one value",
     {{"shape", ArgKind::integers, "1 to 3 extents in (z, y, x) order, e.g. --shape 512 512", "", false, {}, 1,
       static_cast<int64_t>(Shape::max_elements)},
      {"value", ArgKind::number, "Fill value", "0"},
      {"dtype", ArgKind::choice, "Element type", "float32", false, dtype_choices()}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         const std::vector<int64_t>& e = x.integers("shape");
         const std::vector<size_t> extents(e.begin(), e.end());
         return Array::full(x.context(), Shape::of(extents.size(), extents.data()), x.number("value"),
                            parse_dtype(x.text("dtype")));
     }},
});

}  // namespace
}  // namespace kiln
