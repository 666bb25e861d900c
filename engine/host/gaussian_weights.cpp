#include "host/gaussian_weights.hpp"

#include <cmath>
#include <string>

#include "host/pairwise.hpp"
#include "kiln/error.hpp"

namespace kiln {
namespace {

// Longest radius accepted: far beyond any useful blur, short of exhausting
// memory on a typo'd sigma.
constexpr double max_radius = 1 << 20;

}  // namespace

void check_gaussian_parameter(double v, const char* what) {
    if (!(v >= 0.0) || !std::isfinite(v))
        throw InvalidArgument(std::string("gaussian filter: ") + what + " = " + std::to_string(v) +
                              " is not accepted; it must be finite and >= 0");
}

std::vector<double> gaussian_kernel1d(double sigma, double truncate) {
    check_gaussian_parameter(sigma, "sigma");
    check_gaussian_parameter(truncate, "truncate");
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

}  // namespace kiln
