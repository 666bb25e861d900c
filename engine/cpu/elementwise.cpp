#include "kiln/reference/elementwise.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

/// v converted to T: see scalar_to_dtype.
template <typename T> T to_dtype(double v) {
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(v);
    } else {
        if (std::isnan(v)) return T{0};
        double t = std::trunc(v);
        // Both limits are exact in double for every kiln integer type, so the
        // comparisons decide saturation without rounding.
        if (t <= double(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
        if (t >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
        return static_cast<T>(t);
    }
}

/// One element converted as cast() defines.
template <typename To, typename From> To convert(From v) {
    if constexpr (std::is_floating_point_v<To>)
        return static_cast<To>(v);
    else if constexpr (std::is_floating_point_v<From>)
        return to_dtype<To>(double(v));
    else
        return static_cast<To>(v); // modular since C++20, as NumPy's astype
}

std::string describe(const HostArray& a) {
    return a.shape.str() + " " + std::string(dtype_name(a.dtype));
}

void check_valid(const char* fn, const char* name, const HostArray& a) {
    if (a.shape.empty())
        throw InvalidArgument(std::string(fn) + ": " + name +
                              " has no shape; arrays have 1 to 3 dimensions");
    if (a.bytes.size() != a.shape.size() * dtype_size(a.dtype))
        throw InvalidArgument(std::string(fn) + ": " + name + " holds " +
                              std::to_string(a.bytes.size()) + " bytes, but " + describe(a) +
                              " needs " + std::to_string(a.shape.size() * dtype_size(a.dtype)));
}

void check_pair(const char* fn, const HostArray& a, const HostArray& b) {
    check_valid(fn, "a", a);
    check_valid(fn, "b", b);
    if (a.shape != b.shape || a.dtype != b.dtype)
        throw InvalidArgument(std::string(fn) + ": operands differ: a is " + describe(a) +
                              ", b is " + describe(b) +
                              "; both need the same shape and dtype (cast() one of them, "
                              "there is no broadcasting)");
}

/// a op b for every op but divide. Integer add, subtract and multiply go
/// through uint32_t (uint64_t for 64-bit types), where overflow is defined,
/// and are narrowed back modulo 2^bits; for signed types that is NumPy's
/// two's-complement wrap.
template <typename T> T apply(BinaryOp op, T a, T b) {
    constexpr bool is_int = std::is_integral_v<T>;
    using W = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    switch (op) {
    case BinaryOp::add:
        if constexpr (is_int) return T(W(a) + W(b));
        else return a + b;
    case BinaryOp::subtract:
        if constexpr (is_int) return T(W(a) - W(b));
        else return a - b;
    case BinaryOp::multiply:
        if constexpr (is_int) return T(W(a) * W(b));
        else return a * b;
    case BinaryOp::minimum:
        if constexpr (!is_int) {
            if (std::isnan(a)) return a;
            if (std::isnan(b)) return b;
        }
        // Equal operands (0.0 and -0.0) give b, as NumPy's loops do.
        return a < b ? a : b;
    case BinaryOp::maximum:
        if constexpr (!is_int) {
            if (std::isnan(a)) return a;
            if (std::isnan(b)) return b;
        }
        return a > b ? a : b;
    case BinaryOp::divide: break;
    }
    throw InvalidArgument("binary: divide is not an in-dtype operation");
}

/// Calls f(R{}) with R the C++ type of the float dtype t.
template <typename F> void visit_float(DType t, F&& f) {
    if (t == DType::float64) f(double{});
    else f(float{});
}

bool compare_values(CompareOp op, double a, double b) {
    switch (op) {
    case CompareOp::equal: return a == b;
    case CompareOp::not_equal: return a != b;
    case CompareOp::less: return a < b;
    case CompareOp::less_equal: return a <= b;
    case CompareOp::greater: return a > b;
    case CompareOp::greater_equal: return a >= b;
    }
    throw InvalidArgument("compare: unknown comparison");
}

} // namespace

double scalar_to_dtype(double v, DType t) {
    return visit_dtype(t, [&](auto z) { return double(to_dtype<decltype(z)>(v)); });
}

DType binary_result_dtype(BinaryOp op, DType input) {
    if (op != BinaryOp::divide || input == DType::float64) return input;
    // float32 would keep 24 of a 64-bit integer's bits.
    if (input == DType::int64 || input == DType::uint64) return DType::float64;
    return DType::float32;
}

HostArray binary(BinaryOp op, const HostArray& a, const HostArray& b) {
    check_pair("binary", a, b);
    HostArray out(a.shape, binary_result_dtype(op, a.dtype));
    visit_dtype(a.dtype, [&](auto z) {
        using T = decltype(z);
        auto x = a.as<T>(), y = b.as<T>();
        if (op == BinaryOp::divide) {
            visit_float(out.dtype, [&](auto r) {
                using R = decltype(r);
                auto o = out.as<R>();
                // Operands are converted to R first, as cast() would, so the
                // GPU can divide cast arrays; dividing their double values and
                // rounding once is the correctly rounded R quotient.
                for (size_t i = 0; i < o.size(); ++i)
                    o[i] = R(double(R(x[i])) / double(R(y[i])));
            });
        } else {
            auto o = out.as<T>();
            for (size_t i = 0; i < o.size(); ++i) o[i] = apply(op, x[i], y[i]);
        }
    });
    return out;
}

HostArray binary_scalar(BinaryOp op, const HostArray& a, double s, bool scalar_first) {
    check_valid("binary_scalar", "a", a);
    HostArray out(a.shape, binary_result_dtype(op, a.dtype));
    visit_dtype(a.dtype, [&](auto z) {
        using T = decltype(z);
        auto x = a.as<T>();
        if (op == BinaryOp::divide) {
            visit_float(out.dtype, [&](auto r) {
                using R = decltype(r);
                auto o = out.as<R>();
                double sc = double(to_dtype<R>(s));
                for (size_t i = 0; i < o.size(); ++i)
                    o[i] = R(scalar_first ? sc / double(R(x[i])) : double(R(x[i])) / sc);
            });
        } else {
            auto o = out.as<T>();
            T sc = to_dtype<T>(s);
            for (size_t i = 0; i < o.size(); ++i)
                o[i] = scalar_first ? apply(op, sc, x[i]) : apply(op, x[i], sc);
        }
    });
    return out;
}

HostArray compare(CompareOp op, const HostArray& a, const HostArray& b) {
    check_pair("compare", a, b);
    HostArray out(a.shape, DType::uint8);
    auto o = out.as<uint8_t>();
    visit_dtype(a.dtype, [&](auto z) {
        using T = decltype(z);
        auto x = a.as<T>(), y = b.as<T>();
        for (size_t i = 0; i < o.size(); ++i) o[i] = compare_values(op, double(x[i]), double(y[i]));
    });
    return out;
}

HostArray compare_scalar(CompareOp op, const HostArray& a, double s) {
    check_valid("compare_scalar", "a", a);
    HostArray out(a.shape, DType::uint8);
    auto o = out.as<uint8_t>();
    visit_dtype(a.dtype, [&](auto z) {
        auto x = a.as<decltype(z)>();
        for (size_t i = 0; i < o.size(); ++i) o[i] = compare_values(op, double(x[i]), s);
    });
    return out;
}

HostArray where(const HostArray& cond, const HostArray& a, const HostArray& b) {
    check_valid("where", "cond", cond);
    check_pair("where", a, b);
    if (cond.shape != a.shape)
        throw InvalidArgument("where: cond is " + describe(cond) + " but a and b are " +
                              describe(a) + "; cond needs the same shape (any dtype)");
    HostArray out(a.shape, a.dtype);
    visit_dtype(cond.dtype, [&](auto zc) {
        auto c = cond.as<decltype(zc)>();
        visit_dtype(a.dtype, [&](auto z) {
            using T = decltype(z);
            auto x = a.as<T>(), y = b.as<T>();
            auto o = out.as<T>();
            // NaN != 0 is true, so NaN selects a, as bool(nan) in Python.
            for (size_t i = 0; i < o.size(); ++i) o[i] = c[i] != 0 ? x[i] : y[i];
        });
    });
    return out;
}

HostArray where_scalar(const HostArray& cond, double a, double b, DType out_dtype) {
    check_valid("where_scalar", "cond", cond);
    HostArray out(cond.shape, out_dtype);
    visit_dtype(cond.dtype, [&](auto zc) {
        auto c = cond.as<decltype(zc)>();
        visit_dtype(out_dtype, [&](auto z) {
            using T = decltype(z);
            T va = to_dtype<T>(a), vb = to_dtype<T>(b);
            auto o = out.as<T>();
            for (size_t i = 0; i < o.size(); ++i) o[i] = c[i] != 0 ? va : vb;
        });
    });
    return out;
}

HostArray threshold(const HostArray& image, double t) {
    check_valid("threshold", "image", image);
    return compare_scalar(CompareOp::greater, image, t);
}

HostArray cast(const HostArray& a, DType to) {
    check_valid("cast", "a", a);
    HostArray out(a.shape, to);
    visit_dtype(a.dtype, [&](auto zf) {
        using From = decltype(zf);
        auto x = a.as<From>();
        visit_dtype(to, [&](auto zt) {
            using To = decltype(zt);
            auto o = out.as<To>();
            for (size_t i = 0; i < o.size(); ++i) o[i] = convert<To>(x[i]);
        });
    });
    return out;
}

HostArray fill(Shape shape, DType dtype, double value) {
    if (shape.empty())
        throw InvalidArgument("fill: the shape is empty; arrays have 1 to 3 dimensions");
    HostArray out(shape, dtype);
    visit_dtype(dtype, [&](auto z) {
        using T = decltype(z);
        T v = to_dtype<T>(value);
        for (T& e : out.as<T>()) e = v;
    });
    return out;
}

} // namespace kiln::cpu
