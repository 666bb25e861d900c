#include "kiln/reference/clip.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "host/op_rules.hpp"
#include "host/pairwise.hpp"
#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

// numpy.median of the values (NaN for none); scratch is reused between passes
// so data keeps its order and the sums below add in NumPy's order.
double median_of(const std::vector<double>& data, std::vector<double>& scratch) {
    if (data.empty()) return nan_v;
    scratch.assign(data.begin(), data.end());
    const size_t n = scratch.size();
    const auto mid = scratch.begin() + static_cast<ptrdiff_t>(n / 2);
    std::nth_element(scratch.begin(), mid, scratch.end());
    if (n % 2) return *mid;
    return (*std::max_element(scratch.begin(), mid) + *mid) / 2.0;
}

double mean_of(const std::vector<double>& data) {
    if (data.empty()) return nan_v;
    return pairwise_sum(data) / static_cast<double>(data.size());
}

// numpy.std (ddof 0): the squared deviations are summed as NumPy sums its
// temporary array of them.
double std_of(const std::vector<double>& data, std::vector<double>& scratch) {
    if (data.empty()) return nan_v;
    const double m = mean_of(data);
    scratch.resize(data.size());
    for (size_t i = 0; i < data.size(); ++i) scratch[i] = (data[i] - m) * (data[i] - m);
    return std::sqrt(pairwise_sum(scratch) / static_cast<double>(data.size()));
}

}  // namespace

ClipResult kappa_sigma_clip(const HostArray& a, double kappa, int max_iters, bool return_mask) {
    check_clip_parameters(kappa, max_iters);
    if (a.shape.empty())
        throw InvalidArgument(
            "kappa_sigma_clip: the array is empty; at least one finite value "
            "is needed");

    std::vector<double> data;
    data.reserve(a.size());
    visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        for (T v : a.as<T>()) {
            const double x = static_cast<double>(v);
            if (std::isfinite(x)) data.push_back(x);
        }
    });
    if (data.empty())
        throw InvalidArgument("kappa_sigma_clip: the array of " + std::to_string(a.size()) +
                              " elements has no finite value to clip");

    // Every pass keeps a subset of the previous one, so the final set is the
    // finite values inside the intersection of all the passes' intervals; the
    // mask is rebuilt from that instead of carrying indices along.
    double lo_all = -std::numeric_limits<double>::infinity();
    double hi_all = std::numeric_limits<double>::infinity();
    std::vector<double> scratch;
    int iterations = 0;
    for (;;) {
        const double med = median_of(data, scratch);
        const double sd = std_of(data, scratch);
        const double lo = med - kappa * sd;
        const double hi = med + kappa * sd;
        ++iterations;
        // Values all equal (std 0, or a std so small that the interval
        // rounds to the median): nothing lies strictly inside, yet nothing
        // is an outlier. Keep them all, as astropy's sigma_clip does, and
        // let this pass constrain nothing (the mask keeps them too).
        if (data.empty() || !(lo < hi)) break;
        if (*std::min_element(data.begin(), data.end()) == *std::max_element(data.begin(), data.end())) break;
        size_t kept = 0;
        for (double v : data)
            if (v > lo && v < hi) data[kept++] = v;
        const bool done = kept == data.size() || iterations == max_iters;
        data.resize(kept);
        if (kept > 0) lo_all = std::max(lo_all, lo), hi_all = std::min(hi_all, hi);
        if (done) break;
    }

    ClipResult r{median_of(data, scratch),
                 std_of(data, scratch),
                 mean_of(data),
                 data.size(),
                 iterations,
                 std::nullopt};
    if (return_mask) {
        HostArray mask(a.shape, DType::uint8);
        auto m = mask.as<uint8_t>();
        if (r.count > 0)
            visit_dtype(a.dtype, [&](auto t) {
                using T = decltype(t);
                auto v = a.as<T>();
                for (size_t i = 0; i < v.size(); ++i) {
                    const double x = static_cast<double>(v[i]);
                    m[i] = std::isfinite(x) && x > lo_all && x < hi_all;
                }
            });
        r.mask = std::move(mask);
    }
    return r;
}

}  // namespace kiln::cpu
