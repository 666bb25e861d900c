#include "host/distance_rules.hpp"

#include <cmath>
#include <string>

#include "kiln/error.hpp"

namespace kiln {

std::array<double, 3> edt_sampling(size_t ndim, const std::vector<double>& sampling) {
    if (ndim < 1 || ndim > 3)
        throw InvalidArgument("distance_transform_edt: the input is " + std::to_string(ndim) +
                              "-D; 1-, 2- and 3-D arrays are accepted");
    if (sampling.size() > 1 && sampling.size() != ndim)
        throw InvalidArgument("distance_transform_edt: " + std::to_string(sampling.size()) +
                              " sampling values for a " + std::to_string(ndim) +
                              "-D input; give none, one, or one per axis");
    std::array<double, 3> zyx{1, 1, 1};
    for (size_t a = 0; a < ndim; ++a) {
        const double s = sampling.empty() ? 1.0 : sampling.size() == 1 ? sampling[0] : sampling[a];
        if (!std::isfinite(s) || !(s > 0))
            throw InvalidArgument("distance_transform_edt: sampling " + std::to_string(s) +
                                  " is not accepted; each spacing must be finite and > 0");
        zyx[3 - ndim + a] = s;
    }
    return zyx;
}

void check_edt_result(DType t) {
    if (t != DType::float32 && t != DType::float64)
        throw InvalidArgument(std::string("distance_transform_edt: result dtype ") + std::string(dtype_name(t)) +
                              " is not accepted; float32 or float64");
}

}  // namespace kiln
