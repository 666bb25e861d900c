#pragma once
// The derivative filters' fixtures (tests/data/make_derivatives.py), their
// tolerances, and one macro running a case through either the GPU
// functions (namespace kiln) or the CPU reference (kiln::cpu), whose names
// and arguments are the same.
#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "host/gaussian_weights.hpp"
#include "kiln/io.hpp"

namespace kiln::test::deriv {

struct Case {
    std::string name, op, input;
    int axis = 0;
    NdMode mode = NdMode::reflect;
    double cval = 0;
    std::array<double, 3> sigma{};
    std::array<int, 3> order{};
    double truncate = 4;
};

inline std::vector<Case> cases() {
    std::vector<Case> out;
    for (const std::string& line : data_lines("derivatives/cases.txt")) {
        std::istringstream in(line);
        Case c;
        std::string mode;
        in >> c.name >> c.op >> c.input >> c.axis >> mode >> c.cval >> c.sigma[0] >> c.sigma[1] >> c.sigma[2] >>
            c.order[0] >> c.order[1] >> c.order[2] >> c.truncate;
        REQUIRE(in);
        c.mode = parse_nd_mode(mode);
        out.push_back(c);
    }
    return out;
}

inline HostArray array(const std::string& name) { return npy_fixture("derivatives/" + name + ".npy"); }

inline double l1(const std::vector<double>& w) {
    double s = 0;
    for (double v : w) s += std::abs(v);
    return s;
}

/// The largest sum of |weight| products a result value is made of (the
/// sums of the derivatives are 0, so relative tolerances mean nothing):
/// the bound on |result| per unit of max |input|.
inline double gain(const Case& c, size_t ndim) {
    if (c.op == "sobel") return 2 * std::pow(4.0, double(ndim - 1));
    if (c.op == "prewitt") return 2 * std::pow(3.0, double(ndim - 1));
    if (c.op == "laplace") return 4.0 * double(ndim);
    if (c.op == "difference_of_gaussians") return 2;
    auto product = [&](std::array<int, 3> order) {
        double p = 1;
        for (size_t a = 3 - ndim; a < 3; ++a)
            if (c.sigma[a] > 1e-15) p *= l1(gaussian_kernel1d(c.sigma[a], c.truncate, order[a]));
        return p;
    };
    if (c.op == "gaussian_filter") return product(c.order);
    double total = 0;  // gaussian_laplace's sum; the magnitude's root of squares is below it too
    for (size_t a = 3 - ndim; a < 3; ++a) {
        std::array<int, 3> order{};
        order[a] = c.op == "gaussian_laplace" ? 2 : 1;
        total += product(order);
    }
    return total;
}

/// The absolute tolerance of a float32 result: each pass sums at most 2r + 1
/// <= 17 products (3 or 9 for the stencils) and rounds, at most three
/// passes plus a sum, each value's rounding error below eps32 = 6e-8 of the
/// magnitudes it sums, so under ~ 50 eps32 = 3e-6 of gain * max |input|
/// (worst case; the errors met are a tenth of that). float64: eps64 = 1.1e-16.
inline double tolerance(const Case& c, const HostArray& in, DType t) {
    const double scale = std::max(max_abs(in), std::abs(c.cval)) * gain(c, in.shape.ndim());
    return (t == DType::float64 ? 6e-15 : 3e-6) * scale;
}

/// Every fixture case through run(case, input) (a float32 HostArray back),
/// within tolerance() of SciPy's result; returns the largest error as a
/// fraction of the tolerance.
template <typename Run> double check_fixtures(Run run) {
    double worst = 0;
    for (const Case& c : cases()) {
        INFO(c.name);
        const HostArray in = array(c.input), want = array(c.name);
        const HostArray got = run(c, in);
        REQUIRE(got.dtype == DType::float32);
        const double tol = tolerance(c, in, DType::float32);
        require_close(got, want, 0, tol);
        for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got.at(i) - want.at(i)) / tol);
    }
    return worst;
}

}  // namespace kiln::test::deriv

/// The case c through namespace NS's functions on IN (a HostArray or an Array).
#define KILN_DERIV_RUN(NS, c, IN)                                                                              \
    ((c).op == "sobel"     ? NS::sobel(IN, (c).axis, (c).mode, (c).cval)                                       \
     : (c).op == "prewitt" ? NS::prewitt(IN, (c).axis, (c).mode, (c).cval)                                     \
     : (c).op == "laplace" ? NS::laplace(IN, (c).mode, (c).cval)                                               \
     : (c).op == "gaussian_laplace"                                                                             \
         ? NS::gaussian_laplace(IN, (c).sigma, (c).mode, (c).cval, (c).truncate)                                \
     : (c).op == "gaussian_gradient_magnitude"                                                                  \
         ? NS::gaussian_gradient_magnitude(IN, (c).sigma, (c).mode, (c).cval, (c).truncate)                     \
     : (c).op == "difference_of_gaussians"                                                                      \
         ? NS::difference_of_gaussians(IN, (c).sigma[1], (c).sigma[2], (c).mode, (c).cval, (c).truncate)        \
         : NS::gaussian_filter(IN, (c).sigma, (c).mode, (c).cval, (c).truncate, (c).order))
