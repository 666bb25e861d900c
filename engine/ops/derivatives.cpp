// scipy.ndimage's derivative filters on the GPU: sobel and prewitt as the
// separable passes of ops/axis_passes (an image in one dispatch), laplace as
// one stencil dispatch (shaders/deriv_laplace.comp), the Gaussian derivatives as gaussian_filter's
// passes with orders, summed or combined in one element-wise pass.
#include "kiln/derivatives.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/elementwise.hpp"
#include "kiln/filters.hpp"
#include "ops/convolve_pass.hpp"
#include "ops/gaussian_detail.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

void check_input(const Array& input, const char* op) {
    if (!input) throw InvalidArgument(std::string(op) + ": the input is a null Array");
}

size_t axis_index(const Array& input, int axis, const char* op) {
    const int ndim = static_cast<int>(input.ndim());
    if (axis < -ndim || axis >= ndim)
        throw InvalidArgument(std::string(op) + ": axis " + std::to_string(axis) + " is outside the " +
                              std::to_string(ndim) + "-D input; -ndim .. ndim - 1 are accepted");
    return static_cast<size_t>(axis < 0 ? axis + ndim : axis);
}

// correlate1d with [-1, 0, 1] along axis, then with `smooth` along the
// others in ascending order, as SciPy's sobel and prewitt.
Array edge_filter(const Array& input, int axis, NdMode mode, double cval, std::vector<double> smooth,
                  const char* op) {
    check_input(input, op);
    const size_t a = axis_index(input, axis, op), ndim = input.ndim();
    ops::AxisTaps taps;
    std::vector<size_t> order{a};
    for (size_t i = 0; i < ndim; ++i) {
        // Convolution weights: correlate1d's reversed.
        taps[i] = i == a ? std::vector<double>{1, 0, -1} : smooth;
        if (i != a) order.push_back(i);
    }
    return ops::axis_passes(detail::float_input(input), taps, order, mode, cval);
}

// gaussian_filter with order 2 (laplace) or 1 (gradient) along each axis in
// turn, the others smoothed: one result per axis.
std::vector<Array> gaussian_derivatives(const Array& input, std::array<double, 3> sigma_zyx, NdMode mode,
                                        double cval, double truncate, int order) {
    const size_t ndim = input.ndim();
    std::vector<Array> terms;
    for (size_t axis = 0; axis < ndim; ++axis) {
        std::array<int, 3> order_zyx{};
        order_zyx[3 - ndim + axis] = order;
        terms.push_back(detail::gaussian_taps_filter(
            input, detail::gaussian_taps(ndim, sigma_zyx, truncate, order_zyx), mode, cval));
    }
    return terms;
}

struct LaplacePush {
    uint32_t cval[2];
    uint32_t Z, Y, X, ndim, mode;
};

struct MagnitudePush {
    uint32_t n;
};

}  // namespace

Array sobel(const Array& input, int axis, NdMode mode, double cval) {
    return edge_filter(input, axis, mode, cval, {1, 2, 1}, "sobel");
}

Array prewitt(const Array& input, int axis, NdMode mode, double cval) {
    return edge_filter(input, axis, mode, cval, {1, 1, 1}, "prewitt");
}

Array laplace(const Array& input, NdMode mode, double cval) {
    check_input(input, "laplace");
    const Array in = detail::float_input(input);
    const Shape& s = in.shape();
    const size_t ndim = in.ndim();
    LaplacePush p{};
    const auto bits = ops::scalar_bits(cval, in.dtype());
    p.cval[0] = bits[0], p.cval[1] = bits[1];
    p.X = static_cast<uint32_t>(s[ndim - 1]);
    p.Y = ndim >= 2 ? static_cast<uint32_t>(s[ndim - 2]) : 1;
    p.Z = ndim == 3 ? static_cast<uint32_t>(s[0]) : 1;
    p.ndim = static_cast<uint32_t>(ndim);
    p.mode = static_cast<uint32_t>(ops::conv::ext_of(mode));
    const Array out = Array::empty(in.context(), s, in.dtype());
    detail::OpServices& ctx = ops::services(in);
    ops::Dispatcher d(ctx, ops::variant(ops::Shader::deriv_laplace, in.dtype()), {64, 4, 1});
    const auto& l = d.local();
    // Elements beyond the grid's limit loop in the shader.
    auto groups = [&](uint64_t n, uint32_t local, int axis) {
        const uint64_t limit = std::min<uint64_t>(ctx.info().max_workgroup_count[axis], 65535);
        return static_cast<uint32_t>(std::clamp<uint64_t>((n + local - 1) / local, 1, limit));
    };
    d.read(in).write(out).push(p);
    d.groups(groups(p.X, l[0], 0), groups(p.Y, l[1], 1), groups(p.Z, l[2], 2)).record();
    return out;
}

Array gaussian_laplace(const Array& input, std::array<double, 3> sigma_zyx, NdMode mode, double cval,
                       double truncate) {
    check_input(input, "gaussian_laplace");
    std::vector<Array> terms = gaussian_derivatives(input, sigma_zyx, mode, cval, truncate, 2);
    Array sum = terms[0];
    for (size_t i = 1; i < terms.size(); ++i) sum = add(sum, terms[i]);
    return sum;
}

Array gaussian_gradient_magnitude(const Array& input, std::array<double, 3> sigma_zyx, NdMode mode,
                                  double cval, double truncate) {
    check_input(input, "gaussian_gradient_magnitude");
    const std::vector<Array> terms = gaussian_derivatives(input, sigma_zyx, mode, cval, truncate, 1);
    const Array& a = terms[0];
    const Array out = Array::empty(a.context(), a.shape(), a.dtype());
    ops::Dispatcher d(ops::services(a), ops::variant(ops::Shader::deriv_magnitude, a.dtype()), {256, 1, 1});
    // Unused inputs are bound to the first, keeping the layout.
    d.read(a).read(terms[std::min<size_t>(1, terms.size() - 1)]).read(terms.back()).write(out);
    const MagnitudePush p{static_cast<uint32_t>(a.size())};
    d.spec(static_cast<uint32_t>(terms.size())).push(p).stride_grid(a.size()).record();
    return out;
}

Array difference_of_gaussians(const Array& image, double low_sigma, double high_sigma, NdMode mode, double cval,
                              double truncate) {
    check_input(image, "difference_of_gaussians");
    if (!(low_sigma >= 0) || !std::isfinite(low_sigma))
        throw InvalidArgument("difference_of_gaussians: low_sigma = " + std::to_string(low_sigma) +
                              " is not accepted; it must be finite and >= 0");
    const double high = high_sigma == -1 ? 1.6 * low_sigma : high_sigma;
    if (!(high >= low_sigma) || !std::isfinite(high))
        throw InvalidArgument("difference_of_gaussians: high_sigma = " + std::to_string(high_sigma) +
                              " is not accepted; it must be finite and >= low_sigma (" +
                              std::to_string(low_sigma) + "), or -1 for 1.6 * low_sigma");
    const std::array<double, 3> low3{low_sigma, low_sigma, low_sigma}, high3{high, high, high};
    return subtract(gaussian_filter(image, low3, mode, cval, truncate),
                    gaussian_filter(image, high3, mode, cval, truncate));
}

}  // namespace kiln

// The manifest entries (kiln/manifest.hpp).
namespace kiln {
namespace {

const ArgSpec input_arg{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"};

std::vector<ArgSpec> edge_args() {
    std::vector<ArgSpec> a{input_arg,
                           {"axis", ArgKind::integer, "Axis of the derivative (negative counts from the last)", "-1",
                            false, {}, -3, 2}};
    for (ArgSpec& m : detail::mode_args()) a.push_back(std::move(m));
    return a;
}

std::vector<ArgSpec> gaussian_args() {
    std::vector<ArgSpec> a{input_arg};
    for (auto* more : {detail::sigma_args, detail::mode_args})
        for (ArgSpec& m : more()) a.push_back(std::move(m));
    a.push_back(detail::truncate_arg());
    return a;
}

NdMode mode_of(const OpArgs& x) {
    return parse_nd_mode(x.text("mode"));
}

const OpFamily derivatives_family(
    "derivatives",
    {
        {"sobel", "Sobel derivative along an axis as scipy.ndimage.sobel; float32 out for integer input",
         edge_args(), ResultKind::array, {}, {},
         [](const OpArgs& x) {
             return sobel(x.array("input"), static_cast<int>(x.integer("axis")), mode_of(x), x.number("cval"));
         }},
        {"prewitt", "Prewitt derivative along an axis as scipy.ndimage.prewitt; float32 out for integer input",
         edge_args(), ResultKind::array, {}, {},
         [](const OpArgs& x) {
             return prewitt(x.array("input"), static_cast<int>(x.integer("axis")), mode_of(x), x.number("cval"));
         }},
        {"laplace", "Laplacian ([1, -2, 1] along every axis, summed) as scipy.ndimage.laplace",
         [] {
             std::vector<ArgSpec> a{input_arg};
             for (ArgSpec& m : detail::mode_args()) a.push_back(std::move(m));
             return a;
         }(),
         ResultKind::array, {}, {},
         [](const OpArgs& x) { return laplace(x.array("input"), mode_of(x), x.number("cval")); }},
        {"gaussian_laplace",
         "Laplacian of Gaussian as scipy.ndimage.gaussian_laplace. Give --sigma, or --sigma-x/--sigma-y/--sigma-z",
         gaussian_args(), ResultKind::array, {}, detail::sigma_alternatives(),
         [](const OpArgs& x) {
             return gaussian_laplace(x.array("input"), detail::sigma_of(x), mode_of(x), x.number("cval"),
                                     x.number("truncate"));
         }},
        {"gaussian_gradient_magnitude",
         "Gradient magnitude with Gaussian derivatives as scipy.ndimage.gaussian_gradient_magnitude. Give --sigma, "
         "or --sigma-x/--sigma-y/--sigma-z",
         gaussian_args(), ResultKind::array, {}, detail::sigma_alternatives(),
         [](const OpArgs& x) {
             return gaussian_gradient_magnitude(x.array("input"), detail::sigma_of(x), mode_of(x),
                                                x.number("cval"), x.number("truncate"));
         }},
        {"difference_of_gaussians",
         "Band-pass as skimage.filters.difference_of_gaussians: gaussian(low_sigma) - gaussian(high_sigma), "
         "mode nearest by default; integer input unscaled",
         {{"image", ArgKind::array, "Input array file (1-, 2- or 3-D)"},
          {"low_sigma", ArgKind::number, "Sigma of the lighter blur, every axis"},
          {"high_sigma", ArgKind::number, "Sigma of the heavier blur, >= low_sigma (default: 1.6 * low_sigma)", "-1"},
          {"mode", ArgKind::choice, "How the input extends beyond its edges (scipy.ndimage)", "nearest", false,
           nd_mode_names()},
          {"cval", ArgKind::number, "Value outside the input with --mode constant", "0"},
          detail::truncate_arg()},
         ResultKind::array, {}, {},
         [](const OpArgs& x) {
             return difference_of_gaussians(x.array("image"), x.number("low_sigma"), x.number("high_sigma"),
                                            mode_of(x), x.number("cval"), x.number("truncate"));
         }},
    });

}  // namespace
}  // namespace kiln
