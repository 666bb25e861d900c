#include "kiln/reference/distance.hpp"

#include <cmath>
#include <limits>

#include "host/distance_rules.hpp"

namespace kiln::cpu {

HostArray distance_transform_edt(const HostArray& input, const std::vector<double>& sampling, DType result) {
    const size_t ndim = input.shape.ndim();
    const std::array<double, 3> s = edt_sampling(ndim, sampling);
    check_edt_result(result);
    const size_t first = 3 - ndim;
    size_t dims[3] = {1, 1, 1};
    for (size_t a = 0; a < ndim; ++a) dims[first + a] = input.shape[a];
    const size_t n = input.size();
    const double inf = std::numeric_limits<double>::infinity();

    std::vector<double> d2(n);
    bool any_zero = false;
    visit_dtype(input.dtype, [&](auto t) {
        using T = decltype(t);
        const auto v = input.as<T>();
        for (size_t i = 0; i < n; ++i) {
            d2[i] = v[i] == T(0) ? 0.0 : inf;  // NaN is foreground, as in SciPy
            any_zero |= v[i] == T(0);
        }
    });
    // Axis by axis: the minimum over the line of (s k)^2 + d2.
    std::vector<double> line;
    for (size_t a = first; a < 3; ++a) {
        size_t stride = 1;
        for (size_t b = a + 1; b < 3; ++b) stride *= dims[b];
        const size_t len = dims[a];
        line.resize(len);
        for (size_t i0 = 0; i0 < n; ++i0) {
            if ((i0 / stride) % len != 0) continue;  // one start per line
            for (size_t l = 0; l < len; ++l) line[l] = d2[i0 + l * stride];
            for (size_t l = 0; l < len; ++l) {
                double best = inf;
                for (size_t m = 0; m < len; ++m) {
                    const double t = s[a] * (double(l) - double(m));
                    best = std::min(best, t * t + line[m]);
                }
                d2[i0 + l * stride] = best;
            }
        }
    }
    HostArray out(input.shape, result);
    for (size_t i = 0; i < n; ++i) {
        double v = d2[i];
        if (!any_zero) {  // SciPy measures from index -1 of the first axis
            v = 0;
            size_t c[3] = {i / (dims[1] * dims[2]), (i / dims[2]) % dims[1], i % dims[2]};
            for (size_t a = first; a < 3; ++a) {
                const double t = s[a] * double(c[a] + (a == first ? 1 : 0));
                v += t * t;
            }
        }
        if (result == DType::float64)
            out.as<double>()[i] = std::sqrt(v);
        else
            out.as<float>()[i] = static_cast<float>(std::sqrt(v));
    }
    return out;
}

}  // namespace kiln::cpu
