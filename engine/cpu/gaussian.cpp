#include "kiln/reference/gaussian.hpp"

#include <span>
#include <vector>

#include "host/gaussian_weights.hpp"
#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

// SciPy skips axes whose sigma is not above this.
constexpr double min_sigma = 1e-15;

}  // namespace

HostArray gaussian_filter(const HostArray& input, std::array<double, 3> sigma_zyx, NdMode mode, double cval,
                          double truncate, std::array<int, 3> order_zyx) {
    if (input.shape.empty())
        throw InvalidArgument(
            "gaussian_filter: the input is empty; arrays with at least one "
            "element are accepted");
    for (double s : sigma_zyx) check_gaussian_parameter(s, "sigma");
    check_gaussian_parameter(truncate, "truncate");
    for (int o : order_zyx) check_gaussian_order(o, "gaussian_filter");

    const size_t ndim = input.shape.ndim();
    HostArray current;
    bool filtered = false;
    for (size_t axis = 0; axis < ndim; ++axis) {
        const double sigma = sigma_zyx[3 - ndim + axis];
        if (sigma <= min_sigma) continue;
        const std::vector<double> w = gaussian_kernel1d(sigma, truncate, order_zyx[3 - ndim + axis]);
        current = convolve1d(filtered ? current : input, w, static_cast<int>(axis), mode, cval, 0);
        filtered = true;
    }
    if (filtered) return current;
    // A single tap of weight 1 is the identity with the dtype rule applied.
    const double one = 1.0;
    return convolve1d(input, std::span<const double>(&one, 1), -1, mode, cval, 0);
}

}  // namespace kiln::cpu
