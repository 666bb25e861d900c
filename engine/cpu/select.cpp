#include "cpu/select.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

void require_nonempty(const HostArray& a, const char* fn) {
    if (a.shape.empty())
        throw InvalidArgument(std::string(fn) + ": the array is empty; at least one value is needed");
}

void require_valid_q(double q) {
    if (!(q >= 0.0 && q <= 100.0))
        throw InvalidArgument("percentile: q = " + std::to_string(q) +
                              " is outside [0, 100]; percentiles must lie between 0 and 100");
}

// The values as doubles; empty when one of them is NaN (the answer is then NaN
// and nth_element would see no strict weak order).
std::vector<double> values_without_nan(const HostArray& a) {
    std::vector<double> v(a.size());
    bool has_nan = false;
    visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        auto src = a.as<T>();
        for (size_t i = 0; i < src.size(); ++i) {
            v[i] = static_cast<double>(src[i]);
            has_nan |= std::isnan(v[i]);
        }
    });
    if (has_nan) v.clear();
    return v;
}

// NumPy's _lerp, kept operation for operation: its results at the ends and
// with infinities are part of the semantics.
double lerp(double a, double b, double t) {
    const double diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

// The k-th smallest of v, with v partitioned around k afterwards. Repeated
// calls on the same vector stay correct: each works on whatever order the
// previous one left.
double kth(std::vector<double>& v, size_t k) {
    std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(k), v.end());
    return v[k];
}

// Past this many q a full sort beats one selection per q.
constexpr size_t sort_above = 8;

// v is sorted when `sorted`, else any order (partitioned as kth leaves it).
double percentile_of(std::vector<double>& v, double q, bool sorted) {
    const size_t n = v.size();
    const double index = static_cast<double>(n - 1) * (q / 100.0);
    if (index >= static_cast<double>(n - 1)) {
        // NumPy points both neighbours at the last element and, having set the
        // lower index to -1, takes the weight as index + 1.
        const double top = sorted ? v[n - 1] : kth(v, n - 1);
        return lerp(top, top, index + 1);
    }
    const double lower = std::floor(index);
    const size_t k = static_cast<size_t>(lower);
    if (sorted) return lerp(v[k], v[k + 1], index - lower);
    const double a = kth(v, k);
    // After the partition the next order statistic is the least of the rest.
    const double b = *std::min_element(v.begin() + static_cast<ptrdiff_t>(k) + 1, v.end());
    return lerp(a, b, index - lower);
}

}  // namespace

double median(const HostArray& a) {
    require_nonempty(a, "median");
    std::vector<double> v = values_without_nan(a);
    if (v.empty()) return nan_v;
    const size_t n = v.size();
    const double hi = kth(v, n / 2);
    if (n % 2) return hi;
    const double lo = *std::max_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(n / 2));
    return (lo + hi) / 2.0;
}

double percentile(const HostArray& a, double q) {
    return percentiles(a, std::span<const double>(&q, 1))[0];
}

std::vector<double> percentiles(const HostArray& a, std::span<const double> qs) {
    require_nonempty(a, "percentile");
    for (double q : qs) require_valid_q(q);
    std::vector<double> v = values_without_nan(a);
    if (v.empty()) return std::vector<double>(qs.size(), nan_v);
    const bool sorted = qs.size() > sort_above;
    if (sorted) std::sort(v.begin(), v.end());
    std::vector<double> out;
    out.reserve(qs.size());
    for (double q : qs) out.push_back(percentile_of(v, q, sorted));
    return out;
}

}  // namespace kiln::cpu
