#include "kiln/reference/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <type_traits>

#include "host/op_rules.hpp"

namespace kiln::cpu {
namespace {

// A default-constructed HostArray has no shape and no bytes; treat it as empty
// rather than reading the one element its padded shape claims.
size_t element_count(const HostArray& a, const char* what) {
    if (a.shape.empty()) return 0;
    if (a.nbytes() != a.size() * dtype_size(a.dtype))
        throw InvalidArgument(std::string(what) + ": array of shape " + a.shape.str() + " and " +
                              std::string(dtype_name(a.dtype)) + " holds " +
                              std::to_string(a.nbytes()) + " bytes; expected " +
                              std::to_string(a.size() * dtype_size(a.dtype)));
    return a.size();
}

template <typename T> std::span<const T> values_of(const HostArray& a, size_t n) {
    return {reinterpret_cast<const T*>(a.data()), n};
}

// The outer edges and the width NumPy divides the bin count by. NumPy takes the
// width of an automatic float32 range in float32 (both ends are float32
// scalars), and every other width in double.
struct Outer {
    double first, last, width;
};

template <typename T>
Outer outer_edges(std::span<const T> v, std::optional<std::pair<double, double>> range) {
    if (range) {
        auto [lo, hi] = *range;
        if (!std::isfinite(lo) || !std::isfinite(hi))
            throw InvalidArgument("histogram: range (" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + ") is not finite; give finite bounds");
        if (!(lo < hi))
            throw InvalidArgument("histogram: range (" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + ") needs min < max");
        return {lo, hi, hi - lo};
    }
    bool any = false;
    T mn{}, mx{};
    for (T x : v) {
        if constexpr (std::is_floating_point_v<T>)
            if (!std::isfinite(x)) continue;
        if (!any || x < mn) mn = x;
        if (!any || x > mx) mx = x;
        any = true;
    }
    // NumPy's range for an empty array; an array of NaN and infinities has
    // no range to find, and NumPy refuses it.
    if (!any && !v.empty()) throw_no_finite_range(v.size());
    if (!any) return {0.0, 1.0, 1.0};
    if (mn == mx) {
        double lo = static_cast<double>(mn) - 0.5, hi = static_cast<double>(mx) + 0.5;
        return {lo, hi, hi - lo};
    }
    double width = static_cast<double>(mx) - static_cast<double>(mn);
    if constexpr (std::is_same_v<T, float>)
        width = static_cast<double>(static_cast<float>(mx - mn));
    return {static_cast<double>(mn), static_cast<double>(mx), width};
}

// numpy.linspace(first, last, bins + 1): computed in double, step multiplied
// and start added as two roundings (volatile keeps the compiler from fusing
// them into one FMA), last edge set exactly, then rounded to the edge type B.
template <typename B> std::vector<B> linspace_edges(double first, double last, int bins) {
    std::vector<B> edges(static_cast<size_t>(bins) + 1);
    const double delta = last - first;
    const double step = delta / bins;
    for (int i = 0; i < bins; ++i) {
        // NumPy's fallback when the step underflows to zero (denormal ranges).
        volatile double y = step == 0.0 ? (static_cast<double>(i) / bins) * delta
                                        : static_cast<double>(i) * step;
        edges[static_cast<size_t>(i)] = static_cast<B>(y + first);
    }
    edges[static_cast<size_t>(bins)] = static_cast<B>(last);
    return edges;
}

template <typename T>
Histogram histogram_typed(std::span<const T> v, int bins,
                          std::optional<std::pair<double, double>> range) {
    // NumPy's edge dtype: float32 stays float32, everything else is double.
    using B = std::conditional_t<std::is_same_v<T, float>, float, double>;
    const Outer o = outer_edges(v, range);
    const std::vector<B> edges = linspace_edges<B>(o.first, o.last, bins);
    // NumPy casts these scalars to the array's float type before using them.
    const B first = static_cast<B>(o.first), last = static_cast<B>(o.last);
    const B norm = static_cast<B>(static_cast<double>(bins) / o.width);
    const int64_t n = bins;

    Histogram h;
    h.counts.assign(static_cast<size_t>(bins), 0);
    for (T raw : v) {
        const B x = static_cast<B>(raw);
        if (!(x >= first && x <= last)) continue; // also drops NaN
        const B f = static_cast<B>(x - first) * norm;
        // f is in [0, bins] up to rounding; clamp so degenerate ranges cannot
        // index outside the edges.
        int64_t i = f >= static_cast<B>(n) ? n : (f > 0 ? static_cast<int64_t>(f) : 0);
        if (i == n) --i;
        // One correction step each way, exactly as NumPy: the scaled offset
        // may be off by one within about an ulp of an edge.
        if (i > 0 && x < edges[static_cast<size_t>(i)]) --i;
        if (i != n - 1 && x >= edges[static_cast<size_t>(i) + 1]) ++i;
        ++h.counts[static_cast<size_t>(i)];
    }
    h.edges.assign(edges.begin(), edges.end());
    return h;
}

} // namespace

Histogram histogram(const HostArray& a, int bins, std::optional<std::pair<double, double>> range) {
    if (bins <= 0)
        throw InvalidArgument("histogram: bins = " + std::to_string(bins) +
                              "; the number of bins must be >= 1");
    const size_t n = element_count(a, "histogram");
    return visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        return histogram_typed<T>(values_of<T>(a, n), bins, range);
    });
}

std::vector<int64_t> bincount(const HostArray& a, size_t minlength) {
    if (dtype_is_float(a.dtype))
        throw InvalidArgument("bincount: array is " + std::string(dtype_name(a.dtype)) +
                              "; bincount counts integers (int8..uint32), convert first");
    const size_t n = element_count(a, "bincount");
    return visit_dtype(a.dtype, [&](auto t) -> std::vector<int64_t> {
        using T = decltype(t);
        if constexpr (std::is_floating_point_v<T>) {
            return {}; // rejected above
        } else {
            const std::span<const T> v = values_of<T>(a, n);
            T mx = 0;
            for (size_t i = 0; i < v.size(); ++i) {
                if constexpr (std::is_signed_v<T>)
                    if (v[i] < 0)
                        throw InvalidArgument("bincount: value " + std::to_string(v[i]) +
                                              " at index " + std::to_string(i) +
                                              " is negative; bincount accepts values >= 0 only");
                mx = std::max(mx, v[i]);
            }
            const size_t len = n == 0 ? 0 : static_cast<size_t>(mx) + 1;
            std::vector<int64_t> counts(std::max(len, minlength), 0);
            for (T x : v) ++counts[static_cast<size_t>(x)];
            return counts;
        }
    });
}

} // namespace kiln::cpu
