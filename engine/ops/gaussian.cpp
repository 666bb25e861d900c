// scipy.ndimage.gaussian_filter on the GPU: the y and x passes of each image
// in one dispatch of the separable kernel; the z pass of a volume before them.
#include <cmath>
#include <string>

#include "host/gaussian_weights.hpp"
#include "kiln/elementwise.hpp"
#include "kiln/filters.hpp"
#include "kiln/manifest.hpp"
#include "ops/axis_passes.hpp"
#include "ops/gaussian_detail.hpp"

namespace kiln {

namespace {

// SciPy skips axes whose sigma is not above this.
constexpr double min_sigma = 1e-15;

constexpr std::array<size_t, 3> ascending{0, 1, 2};

}  // namespace

namespace detail {

Array float_input(const Array& input) {
    return dtype_is_float(input.dtype()) ? input : cast(input, DType::float32);
}

Array gaussian_taps_filter(const Array& input, const ops::AxisTaps& taps, NdMode mode, double cval) {
    const Array in = float_input(input);
    const Array out = ops::axis_passes(in, taps, std::span(ascending).first(in.ndim()), mode, cval);
    // No pass: a copy, unless the cast made one already.
    return out.storage() == input.storage() ? copy(input) : out;
}

ops::AxisTaps gaussian_taps(size_t ndim, std::array<double, 3> sigma_zyx, double truncate,
                            std::array<int, 3> order_zyx) {
    // The CPU reference's checks and weights: every sigma and order is
    // checked, used or not.
    std::array<std::vector<double>, 3> zyx;
    for (size_t i = 0; i < 3; ++i) zyx[i] = gaussian_kernel1d(sigma_zyx[i], truncate, order_zyx[i]);
    ops::AxisTaps taps;
    for (size_t axis = 0; axis < ndim; ++axis)
        if (sigma_zyx[3 - ndim + axis] > min_sigma) taps[axis] = std::move(zyx[3 - ndim + axis]);
    return taps;
}

}  // namespace detail

Array gaussian_filter(const Array& input, std::array<double, 3> sigma_zyx, NdMode mode, double cval,
                      double truncate, std::array<int, 3> order_zyx) {
    if (!input) throw InvalidArgument("gaussian_filter: the input is a null Array");
    return detail::gaussian_taps_filter(
        input, detail::gaussian_taps(input.ndim(), sigma_zyx, truncate, order_zyx), mode, cval);
}

Array gaussian_filter1d(const Array& input, double sigma, int axis, int order, NdMode mode, double cval,
                        double truncate) {
    if (!input) throw InvalidArgument("gaussian_filter1d: the input is a null Array");
    const int ndim = static_cast<int>(input.ndim());
    if (axis < -ndim || axis >= ndim)
        throw InvalidArgument("gaussian_filter1d: axis " + std::to_string(axis) + " is outside the " +
                              std::to_string(ndim) + "-D input; -ndim .. ndim - 1 are accepted");
    const size_t zyx = static_cast<size_t>(3 - ndim + (axis < 0 ? axis + ndim : axis));
    std::array<double, 3> sigma_zyx{};
    std::array<int, 3> order_zyx{};
    sigma_zyx[zyx] = sigma;
    order_zyx[zyx] = order;
    return gaussian_filter(input, sigma_zyx, mode, cval, truncate, order_zyx);
}

Array gaussian_blur(const Array& image, double sigma_x, double sigma_y, double sigma_z) {
    if (!image) throw InvalidArgument("gaussian_blur: the image is a null Array");
    auto check = [](double s, const char* name, bool may_default) {
        if (may_default && s == -1) return;
        if (!(s > 0) || !std::isfinite(s))
            throw InvalidArgument(std::string("gaussian_blur: ") + name + " = " +
                                  std::to_string(s) +
                                  " is not accepted; it must be finite and > 0" +
                                  (may_default ? " (or -1 for sigma_x)" : ""));
    };
    check(sigma_x, "sigma_x", false);
    check(sigma_y, "sigma_y", true);
    check(sigma_z, "sigma_z", true);
    const double sy = sigma_y == -1 ? sigma_x : sigma_y;
    const double sz = image.ndim() == 3 ? (sigma_z == -1 ? sigma_x : sigma_z) : 0;
    return gaussian_filter(image, {sz, image.ndim() >= 2 ? sy : 0, sigma_x});
}

}  // namespace kiln

// The manifest entries (kiln/manifest.hpp).
namespace kiln {

namespace detail {

std::vector<ArgSpec> sigma_args() {
    return {{"sigma", ArgKind::numbers,
             "Standard deviation along every axis, or one per axis (z, y, x order): --sigma 2 or --sigma 1,2 (0 "
             "leaves an axis alone); or give --sigma-x/--sigma-y/--sigma-z instead",
             "", true},
            {"sigma_z", ArgKind::number, "Sigma along z (3-D), instead of --sigma", "", true},
            {"sigma_y", ArgKind::number, "Sigma along y, instead of --sigma", "", true},
            {"sigma_x", ArgKind::number,
             "Sigma along x (the last axis), instead of --sigma; an axis whose sigma is not given is left alone",
             "", true}};
}

std::vector<std::vector<std::string>> sigma_alternatives() {
    return {{"sigma"}, {"sigma_x", "sigma_y", "sigma_z"}};
}

std::array<double, 3> sigma_of(const OpArgs& x) {
    std::array<double, 3> zyx{};
    if (x.has("sigma")) {
        // SciPy's sigma: one for every axis, or a sequence with one per axis.
        const std::vector<double>& s = x.numbers("sigma");
        const size_t nd = x.array("input").ndim();
        if (s.size() != 1 && s.size() != nd)
            throw InvalidArgument("sigma: " + std::to_string(s.size()) + " values for a " + std::to_string(nd) +
                                  "-D input; one (every axis) or one per axis is accepted");
        for (size_t i = 0; i < 3; ++i) zyx[i] = s.size() == 1 ? s[0] : i + nd >= 3 ? s[i + nd - 3] : 0.0;
        return zyx;
    }
    const char* axes[3] = {"sigma_z", "sigma_y", "sigma_x"};
    for (size_t i = 0; i < 3; ++i) zyx[i] = x.has(axes[i]) ? x.number(axes[i]) : 0.0;
    return zyx;
}

std::vector<ArgSpec> mode_args() {
    return {{"mode", ArgKind::choice, "How the input extends beyond its edges (scipy.ndimage)", "reflect", false,
             nd_mode_names()},
            {"cval", ArgKind::number, "Value outside the input with --mode constant", "0"}};
}

ArgSpec truncate_arg() {
    return {"truncate", ArgKind::number, "Radius in sigmas: int(truncate * sigma + 0.5) weights each side", "4.0"};
}

}  // namespace detail

namespace {

// --order: one for every axis, or one per axis in the array's order.
std::array<int, 3> order_of(const OpArgs& x, size_t ndim) {
    const std::vector<int64_t>& o = x.integers("order");
    if (o.size() != 1 && o.size() != ndim)
        throw InvalidArgument("gaussian_filter: --order has " + std::to_string(o.size()) +
                              " values; one (every axis) or one per axis of the " + std::to_string(ndim) +
                              "-D input is accepted");
    std::array<int, 3> zyx{};
    for (size_t axis = 0; axis < ndim; ++axis)
        zyx[3 - ndim + axis] = static_cast<int>(o.size() == 1 ? o[0] : o[axis]);
    return zyx;
}

std::vector<ArgSpec> with(std::vector<ArgSpec> a, const std::vector<ArgSpec>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

const OpFamily gaussian_family("filters", {
    {"gaussian_filter",
     "Gaussian filter as scipy.ndimage.gaussian_filter (with --order, its derivatives); float32 out for integer "
     "input. Give --sigma (every axis), or --sigma-x/--sigma-y/--sigma-z (per axis)",
     with(with({{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"}}, detail::sigma_args()),
          with(detail::mode_args(),
               {detail::truncate_arg(),
                {"order", ArgKind::integers,
                 "Derivative order 0-3: one for every axis, or one per axis in the array's order (z y x)", "0",
                 false, {}, 0, 3}})),
     ResultKind::array, {}, detail::sigma_alternatives(),
     [](const OpArgs& x) {
         const Array& in = x.array("input");
         return gaussian_filter(in, detail::sigma_of(x), parse_nd_mode(x.text("mode")), x.number("cval"),
                                x.number("truncate"), order_of(x, in.ndim()));
     }},
    {"gaussian_filter1d",
     "Gaussian filter along one axis as scipy.ndimage.gaussian_filter1d; float32 out for integer input",
     with({{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"},
           {"sigma", ArgKind::number, "Standard deviation, >= 0"},
           {"axis", ArgKind::integer, "Axis to filter along (negative counts from the last)", "-1", false, {}, -3, 2},
           {"order", ArgKind::integer, "Derivative order 0-3", "0", false, {}, 0, 3}},
          with(detail::mode_args(), {detail::truncate_arg()})),
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return gaussian_filter1d(x.array("input"), x.number("sigma"), static_cast<int>(x.integer("axis")),
                                  static_cast<int>(x.integer("order")), parse_nd_mode(x.text("mode")),
                                  x.number("cval"), x.number("truncate"));
     }},
    {"gaussian_blur",
     "Gaussian blur (pyclesperanto's arguments, scipy.ndimage's semantics: mode reflect, truncate 4)",
     {{"image", ArgKind::array, "Input image file (2-D, or 3-D, or 1-D)"},
      {"sigma_x", ArgKind::number, "Sigma along x, > 0"},
      {"sigma_y", ArgKind::number, "Sigma along y (default: --sigma-x)", "-1"},
      {"sigma_z", ArgKind::number, "Sigma along z of a 3-D image (default: --sigma-x)", "-1"}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return gaussian_blur(x.array("image"), x.number("sigma_x"), x.number("sigma_y"), x.number("sigma_z"));
     }},
});

}  // namespace
}  // namespace kiln
