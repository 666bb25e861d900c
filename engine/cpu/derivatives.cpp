#include "kiln/reference/derivatives.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "kiln/error.hpp"
#include "kiln/reference/elementwise.hpp"
#include "kiln/reference/gaussian.hpp"

namespace kiln::cpu {
namespace {

void check_input(const HostArray& input, const char* op) {
    if (input.shape.empty())
        throw InvalidArgument(std::string(op) +
                              ": the input is empty; arrays with at least one element are accepted");
}

// correlate1d(x, w) is convolve1d(x, reversed w) for odd sizes.
HostArray edge(const HostArray& input, int axis, NdMode mode, double cval, const std::vector<double>& smooth,
               const char* op) {
    check_input(input, op);
    const int ndim = static_cast<int>(input.shape.ndim());
    if (axis < -ndim || axis >= ndim)
        throw InvalidArgument(std::string(op) + ": axis " + std::to_string(axis) + " is outside the " +
                              std::to_string(ndim) + "-D input; -ndim .. ndim - 1 are accepted");
    if (axis < 0) axis += ndim;
    const std::vector<double> derivative{1, 0, -1};
    HostArray out = convolve1d(input, derivative, axis, mode, cval, 0);
    for (int other = 0; other < ndim; ++other)
        if (other != axis) out = convolve1d(out, smooth, other, mode, cval, 0);
    return out;
}

// gaussian_filter of order `order` along each axis in turn.
std::vector<HostArray> gaussian_terms(const HostArray& input, std::array<double, 3> sigma_zyx, NdMode mode,
                                      double cval, double truncate, int order) {
    const size_t ndim = input.shape.ndim();
    std::vector<HostArray> terms;
    for (size_t axis = 0; axis < ndim; ++axis) {
        std::array<int, 3> order_zyx{};
        order_zyx[3 - ndim + axis] = order;
        terms.push_back(gaussian_filter(input, sigma_zyx, mode, cval, truncate, order_zyx));
    }
    return terms;
}

}  // namespace

HostArray sobel(const HostArray& input, int axis, NdMode mode, double cval) {
    return edge(input, axis, mode, cval, {1, 2, 1}, "sobel");
}

HostArray prewitt(const HostArray& input, int axis, NdMode mode, double cval) {
    return edge(input, axis, mode, cval, {1, 1, 1}, "prewitt");
}

HostArray laplace(const HostArray& input, NdMode mode, double cval) {
    check_input(input, "laplace");
    const std::vector<double> second{1, -2, 1};
    HostArray out = convolve1d(input, second, 0, mode, cval, 0);
    for (int axis = 1; axis < static_cast<int>(input.shape.ndim()); ++axis)
        out = binary(BinaryOp::add, out, convolve1d(input, second, axis, mode, cval, 0));
    return out;
}

HostArray gaussian_laplace(const HostArray& input, std::array<double, 3> sigma_zyx, NdMode mode, double cval,
                           double truncate) {
    check_input(input, "gaussian_laplace");
    std::vector<HostArray> terms = gaussian_terms(input, sigma_zyx, mode, cval, truncate, 2);
    HostArray out = terms[0];
    for (size_t i = 1; i < terms.size(); ++i) out = binary(BinaryOp::add, out, terms[i]);
    return out;
}

HostArray gaussian_gradient_magnitude(const HostArray& input, std::array<double, 3> sigma_zyx, NdMode mode,
                                      double cval, double truncate) {
    check_input(input, "gaussian_gradient_magnitude");
    std::vector<HostArray> terms = gaussian_terms(input, sigma_zyx, mode, cval, truncate, 1);
    HostArray out = binary(BinaryOp::multiply, terms[0], terms[0]);
    for (size_t i = 1; i < terms.size(); ++i)
        out = binary(BinaryOp::add, out, binary(BinaryOp::multiply, terms[i], terms[i]));
    auto root = [](auto values) {
        for (auto& v : values) v = std::sqrt(v);
    };
    if (out.dtype == DType::float64) root(out.as<double>());
    else root(out.as<float>());
    return out;
}

HostArray difference_of_gaussians(const HostArray& image, double low_sigma, double high_sigma, NdMode mode,
                                  double cval, double truncate) {
    check_input(image, "difference_of_gaussians");
    const double high = high_sigma == -1 ? 1.6 * low_sigma : high_sigma;
    if (!(high >= low_sigma))
        throw InvalidArgument("difference_of_gaussians: high_sigma = " + std::to_string(high_sigma) +
                              " is below low_sigma; it must be >= low_sigma, or -1 for 1.6 * low_sigma");
    return binary(BinaryOp::subtract,
                  gaussian_filter(image, {low_sigma, low_sigma, low_sigma}, mode, cval, truncate),
                  gaussian_filter(image, {high, high, high}, mode, cval, truncate));
}

}  // namespace kiln::cpu
