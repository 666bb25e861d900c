#include "host/op_rules.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "kiln/error.hpp"

namespace kiln {

void check_clip_parameters(double kappa, int max_iters) {
    if (!(kappa > 0.0) || !std::isfinite(kappa))
        throw InvalidArgument("kappa_sigma_clip: kappa = " + std::to_string(kappa) +
                              " is not accepted; it must be finite and > 0");
    if (max_iters < 1)
        throw InvalidArgument("kappa_sigma_clip: max_iters = " + std::to_string(max_iters) +
                              " is not accepted; at least one pass is needed");
}

int neighbour_reach(size_t ndim, int connectivity) {
    struct Rule {
        int connectivity, reach;
    };
    static const std::vector<Rule> rules[3] = {{{2, 1}}, {{4, 1}, {8, 2}}, {{6, 1}, {18, 2}, {26, 3}}};
    const auto& accepted = rules[ndim - 1];
    if (connectivity == 0) return 1;
    std::string names;
    for (const Rule& r : accepted) {
        if (r.connectivity == connectivity) return r.reach;
        names += (names.empty() ? "" : ", ") + std::to_string(r.connectivity);
    }
    throw InvalidArgument("label: connectivity " + std::to_string(connectivity) + " is not valid for a " +
                          std::to_string(ndim) + "-D mask; accepted: " + names + " (or 0 for the default, " +
                          std::to_string(accepted.front().connectivity) + ")");
}

void throw_no_finite_range(size_t elements) {
    throw InvalidArgument("histogram: none of the " + std::to_string(elements) +
                          " values is finite (all NaN or infinite), so there is no range to take "
                          "from them (NumPy: autodetected range is not finite); give a range");
}

DType convolution_dtype(DType a, DType b) {
    return (a == DType::float64 || b == DType::float64) ? DType::float64 : DType::float32;
}

}  // namespace kiln
