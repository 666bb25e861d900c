#include "cpu/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "host/pairwise.hpp"
#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

using numpy_sum::blocked_sum;

// Levels of scratch rows pairwise_rows needs for n rows.
size_t row_depth(size_t n) {
    size_t depth = 1;
    for (size_t m = n; m > 8; m -= m / 2) ++depth;
    return depth;
}

// Sums f(i, j) over rows i in [i0, i0 + n) for every column j < inner, into
// out[j]. Pairwise over rows like pairwise() over elements, so a long strided
// axis keeps the same accuracy while the inner loop runs along contiguous
// memory. scratch holds inner * row_depth(n) doubles.
template <typename F>
void pairwise_rows(size_t i0, size_t n, size_t inner, const F& f, double* out, double* scratch) {
    if (n <= 8) {
        for (size_t j = 0; j < inner; ++j) out[j] = f(i0, j);
        for (size_t i = 1; i < n; ++i)
            for (size_t j = 0; j < inner; ++j) out[j] += f(i0 + i, j);
        return;
    }
    size_t half = n / 2;
    pairwise_rows(i0, half, inner, f, out, scratch + inner);
    pairwise_rows(i0 + half, n - half, inner, f, scratch, scratch + inner);
    for (size_t j = 0; j < inner; ++j) out[j] += scratch[j];
}

void require_nonempty(const HostArray& a, const char* fn) {
    if (a.shape.empty())
        throw InvalidArgument(std::string(fn) + ": the array is empty; reductions need at least one element");
}

// The array seen as (outer, n, inner) around the reduced axis of length n.
struct Layout {
    size_t outer = 1, n = 1, inner = 1;
    Shape reduced;
};

Layout layout_of(const HostArray& a, Axis axis, const char* fn) {
    require_nonempty(a, fn);
    const int ndim = static_cast<int>(a.shape.ndim());
    if (axis.index < -ndim || axis.index >= ndim)
        throw InvalidArgument(std::string(fn) + ": axis " + std::to_string(axis.index) +
                              " is out of range for an array of shape " + a.shape.str() +
                              "; accepted: " + std::to_string(-ndim) + " .. " + std::to_string(ndim - 1));
    const size_t ax = static_cast<size_t>(axis.index < 0 ? axis.index + ndim : axis.index);
    Layout l;
    size_t dims[3];
    size_t kept = 0;
    for (size_t i = 0; i < a.shape.ndim(); ++i) {
        if (i < ax) l.outer *= a.shape[i];
        if (i > ax) l.inner *= a.shape[i];
        if (i == ax)
            l.n = a.shape[i];
        else
            dims[kept++] = a.shape[i];
    }
    if (kept == 0) dims[kept++] = 1;
    l.reduced = Shape::of(kept, dims);
    return l;
}

// For every output element k = o * inner + j: the sum over the axis of
// f(value, k), into out[k].
template <typename T, typename F>
void axis_sums(const T* data, const Layout& l, const F& f, double* out) {
    if (l.inner == 1) {
        for (size_t o = 0; o < l.outer; ++o)
            out[o] = blocked_sum(data + o * l.n, l.n, [&](T v) { return f(v, o); });
        return;
    }
    std::vector<double> scratch(l.inner * row_depth(l.n));
    for (size_t o = 0; o < l.outer; ++o) {
        const T* base = data + o * l.n * l.inner;
        const size_t k0 = o * l.inner;
        pairwise_rows(
            0, l.n, l.inner, [&](size_t i, size_t j) { return f(base[i * l.inner + j], k0 + j); }, out + k0,
            scratch.data());
    }
}

HostArray axis_mean(const HostArray& a, const Layout& l) {
    HostArray out(l.reduced, DType::float64);
    double* m = out.as<double>().data();
    visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        axis_sums(
            a.as<T>().data(), l, [](T v, size_t) { return static_cast<double>(v); }, m);
    });
    for (size_t k = 0; k < out.size(); ++k) m[k] /= static_cast<double>(l.n);
    return out;
}

void require_int32_axis(const Layout& l, const char* fn) {
    if (l.n > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
        throw InvalidArgument(std::string(fn) + ": an axis of length " + std::to_string(l.n) +
                              " does not fit the int32 result; axes up to 2^31 - 1 are accepted");
}

double divisor(size_t n, int ddof) {
    return std::max(static_cast<double>(n) - static_cast<double>(ddof), 0.0);
}

// True when v should replace best in a search for the first min (or max)
// that stops at the first NaN.
template <bool want_max, typename T>
bool better(T v, T best) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(best)) return false;
        if (std::isnan(v)) return true;
    }
    return want_max ? v > best : v < best;
}

template <bool want_max>
int64_t arg_extreme(const HostArray& a, const char* fn) {
    require_nonempty(a, fn);
    return visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        auto v = a.as<T>();
        size_t best = 0;
        for (size_t i = 1; i < v.size(); ++i)
            if (better<want_max>(v[i], v[best])) best = i;
        return static_cast<int64_t>(best);
    });
}

// Values (in the input dtype) and int32 indices of the first extreme along
// the axis; either output may be skipped.
template <bool want_max>
void axis_extreme(const HostArray& a, const Layout& l, HostArray* values, HostArray* indices,
                  const char* fn) {
    if (indices) require_int32_axis(l, fn);
    visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        const T* data = a.as<T>().data();
        std::vector<T> best(l.outer * l.inner);
        std::vector<int32_t> idx(best.size(), 0);
        for (size_t o = 0; o < l.outer; ++o) {
            const T* base = data + o * l.n * l.inner;
            T* b = best.data() + o * l.inner;
            int32_t* ix = idx.data() + o * l.inner;
            std::copy(base, base + l.inner, b);
            for (size_t i = 1; i < l.n; ++i)
                for (size_t j = 0; j < l.inner; ++j)
                    if (better<want_max>(base[i * l.inner + j], b[j])) {
                        b[j] = base[i * l.inner + j];
                        ix[j] = static_cast<int32_t>(i);
                    }
        }
        if (values) *values = HostArray::from(l.reduced, best);
        if (indices) *indices = HostArray::from(l.reduced, idx);
    });
}

}  // namespace

double sum(const HostArray& a) {
    require_nonempty(a, "sum");
    return visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        auto v = a.as<T>();
        return blocked_sum(v.data(), v.size(), [](T x) { return static_cast<double>(x); });
    });
}

HostArray sum(const HostArray& a, Axis axis) {
    const Layout l = layout_of(a, axis, "sum");
    HostArray out(l.reduced, DType::float64);
    visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        axis_sums(
            a.as<T>().data(), l, [](T v, size_t) { return static_cast<double>(v); }, out.as<double>().data());
    });
    return out;
}

double mean(const HostArray& a) {
    require_nonempty(a, "mean");
    return sum(a) / static_cast<double>(a.size());
}

HostArray mean(const HostArray& a, Axis axis) {
    return axis_mean(a, layout_of(a, axis, "mean"));
}

double var(const HostArray& a, int ddof) {
    require_nonempty(a, "var");
    const double m = mean(a);
    const double ssd = visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        auto v = a.as<T>();
        return blocked_sum(v.data(), v.size(), [m](T x) {
            const double d = static_cast<double>(x) - m;
            return d * d;
        });
    });
    return ssd / divisor(a.size(), ddof);
}

HostArray var(const HostArray& a, Axis axis, int ddof) {
    const Layout l = layout_of(a, axis, "var");
    const HostArray means = axis_mean(a, l);
    const double* m = means.as<double>().data();
    HostArray out(l.reduced, DType::float64);
    double* r = out.as<double>().data();
    visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        axis_sums(
            a.as<T>().data(), l,
            [m](T v, size_t k) {
                const double d = static_cast<double>(v) - m[k];
                return d * d;
            },
            r);
    });
    const double div = divisor(l.n, ddof);
    for (size_t k = 0; k < out.size(); ++k) r[k] /= div;
    return out;
}

double std(const HostArray& a, int ddof) {
    return std::sqrt(var(a, ddof));
}

HostArray std(const HostArray& a, Axis axis, int ddof) {
    HostArray out = var(a, axis, ddof);
    for (double& v : out.as<double>()) v = std::sqrt(v);
    return out;
}

double min(const HostArray& a) {
    return a.at(static_cast<size_t>(argmin(a)));
}
double max(const HostArray& a) {
    return a.at(static_cast<size_t>(argmax(a)));
}

HostArray min(const HostArray& a, Axis axis) {
    HostArray out;
    axis_extreme<false>(a, layout_of(a, axis, "min"), &out, nullptr, "min");
    return out;
}

HostArray max(const HostArray& a, Axis axis) {
    HostArray out;
    axis_extreme<true>(a, layout_of(a, axis, "max"), &out, nullptr, "max");
    return out;
}

int64_t argmin(const HostArray& a) {
    return arg_extreme<false>(a, "argmin");
}
int64_t argmax(const HostArray& a) {
    return arg_extreme<true>(a, "argmax");
}

HostArray argmin(const HostArray& a, Axis axis) {
    HostArray out;
    axis_extreme<false>(a, layout_of(a, axis, "argmin"), nullptr, &out, "argmin");
    return out;
}

HostArray argmax(const HostArray& a, Axis axis) {
    HostArray out;
    axis_extreme<true>(a, layout_of(a, axis, "argmax"), nullptr, &out, "argmax");
    return out;
}

int64_t count_nonzero(const HostArray& a) {
    require_nonempty(a, "count_nonzero");
    return visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        int64_t n = 0;
        for (T v : a.as<T>()) n += v != T(0);
        return n;
    });
}

HostArray count_nonzero(const HostArray& a, Axis axis) {
    const Layout l = layout_of(a, axis, "count_nonzero");
    require_int32_axis(l, "count_nonzero");
    std::vector<int32_t> counts(l.outer * l.inner, 0);
    visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        const T* data = a.as<T>().data();
        for (size_t o = 0; o < l.outer; ++o)
            for (size_t i = 0; i < l.n; ++i)
                for (size_t j = 0; j < l.inner; ++j)
                    counts[o * l.inner + j] += data[(o * l.n + i) * l.inner + j] != T(0);
    });
    return HostArray::from(l.reduced, counts);
}

}  // namespace kiln::cpu
