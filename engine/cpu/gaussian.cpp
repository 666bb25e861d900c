#include "cpu/gaussian.hpp"

#include <cmath>
#include <string>

#include "cpu/reduce.hpp"
#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

// Longest radius accepted: far beyond any useful blur, short of exhausting
// memory on a typo'd sigma.
constexpr double max_radius = 1 << 20;

// SciPy skips axes whose sigma is not above this.
constexpr double min_sigma = 1e-15;

void require_finite_nonnegative(double v, const char* what) {
    if (!(v >= 0.0) || !std::isfinite(v))
        throw InvalidArgument(std::string("gaussian filter: ") + what + " = " + std::to_string(v) +
                              " is not accepted; it must be finite and >= 0");
}

}  // namespace

std::vector<double> gaussian_kernel1d(double sigma, double truncate) {
    require_finite_nonnegative(sigma, "sigma");
    require_finite_nonnegative(truncate, "truncate");
    const double reach = truncate * sigma + 0.5;
    if (reach > max_radius)
        throw InvalidArgument("gaussian filter: sigma " + std::to_string(sigma) + " with truncate " +
                              std::to_string(truncate) +
                              " gives a radius above 2^20; "
                              "truncate * sigma must stay below 1048576");
    const int radius = static_cast<int>(reach);
    if (radius == 0) return {1.0};
    // Operation order as SciPy's: (-0.5 / sigma^2) * x^2, so the weights agree
    // to the last bit wherever exp does.
    const double scale = -0.5 / (sigma * sigma);
    std::vector<double> w(static_cast<size_t>(2 * radius + 1));
    for (int x = -radius; x <= radius; ++x)
        w[static_cast<size_t>(x + radius)] = std::exp(scale * static_cast<double>(x * x));
    const double total = pairwise_sum(w);
    for (double& v : w) v /= total;
    return w;
}

HostArray gaussian_filter(const HostArray& input, std::array<double, 3> sigma_zyx, NdMode mode, double cval,
                          double truncate) {
    if (input.shape.empty())
        throw InvalidArgument(
            "gaussian_filter: the input is empty; arrays with at least one "
            "element are accepted");
    for (double s : sigma_zyx) require_finite_nonnegative(s, "sigma");
    require_finite_nonnegative(truncate, "truncate");

    const size_t ndim = input.shape.ndim();
    HostArray current;
    bool filtered = false;
    for (size_t axis = 0; axis < ndim; ++axis) {
        const double sigma = sigma_zyx[3 - ndim + axis];
        if (sigma <= min_sigma) continue;
        const std::vector<double> w = gaussian_kernel1d(sigma, truncate);
        current = convolve1d(filtered ? current : input, w, static_cast<int>(axis), mode, cval, 0);
        filtered = true;
    }
    if (filtered) return current;
    // A single tap of weight 1 is the identity with the dtype rule applied.
    const double one = 1.0;
    return convolve1d(input, std::span<const double>(&one, 1), -1, mode, cval, 0);
}

}  // namespace kiln::cpu
