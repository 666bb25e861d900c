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

void check_gaussian_order(int order, const char* op) {
    if (order < 0 || order > 3)
        throw InvalidArgument(std::string(op) + ": order = " + std::to_string(order) +
                              " is not accepted; derivative orders 0, 1, 2 and 3 are");
}

std::vector<double> gaussian_kernel1d(double sigma, double truncate, int order) {
    check_gaussian_order(order, "gaussian filter");
    check_gaussian_parameter(sigma, "sigma");
    check_gaussian_parameter(truncate, "truncate");
    const double reach = truncate * sigma + 0.5;
    if (reach > max_radius)
        throw InvalidArgument("gaussian filter: sigma " + std::to_string(sigma) + " with truncate " +
                              std::to_string(truncate) +
                              " gives a radius above 2^20; "
                              "truncate * sigma must stay below 1048576");
    const int radius = static_cast<int>(reach);
    if (radius == 0 && order == 0) return {1.0};
    // Operation order as SciPy's: (-0.5 / sigma^2) * x^2, so the weights agree
    // to the last bit wherever exp does.
    const double scale = -0.5 / (sigma * sigma);
    std::vector<double> w(static_cast<size_t>(2 * radius + 1));
    for (int x = -radius; x <= radius; ++x)
        // x = 0 gives 1 even for sigma 0 (scale -inf), a derivative's single tap.
        w[static_cast<size_t>(x + radius)] = x == 0 ? 1.0 : std::exp(scale * static_cast<double>(x * x));
    const double total = pairwise_sum(w);
    for (double& v : w) v /= total;
    if (order == 0) return w;
    // q's coefficients by power of x: q'(x) + q(x) p'(x) with p' = -x / sigma^2.
    std::vector<double> q(static_cast<size_t>(order + 1), 0.0);
    q[0] = 1;
    for (int step = 0; step < order; ++step) {
        std::vector<double> next(q.size(), 0.0);
        for (size_t e = 0; e < q.size(); ++e) {
            if (e + 1 < q.size()) next[e] += static_cast<double>(e + 1) * q[e + 1];
            if (e >= 1) next[e] += q[e - 1] / -(sigma * sigma);
        }
        q = std::move(next);
    }
    for (int x = -radius; x <= radius; ++x) {
        double poly = 0, power = 1;
        for (double c : q) {
            poly += power * c;
            power *= x;
        }
        w[static_cast<size_t>(x + radius)] *= poly;
    }
    return w;
}

}  // namespace kiln
