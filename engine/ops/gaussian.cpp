// scipy.ndimage.gaussian_filter on the GPU: the y and x passes of each image
// in one dispatch of the separable kernel; the z pass of a volume before them.
#include <cmath>
#include <string>

#include "host/gaussian_weights.hpp"
#include "kiln/elementwise.hpp"
#include "kiln/filters.hpp"
#include "kiln/manifest.hpp"
#include "ops/convolve_pass.hpp"

namespace kiln {

namespace {

// SciPy skips axes whose sigma is not above this.
constexpr double min_sigma = 1e-15;

}  // namespace

Array gaussian_filter(const Array& input, std::array<double, 3> sigma_zyx, NdMode mode, double cval,
                      double truncate) {
    if (!input) throw InvalidArgument("gaussian_filter: the input is a null Array");
    // The CPU reference's checks and weights: every sigma is checked, used or not.
    std::array<std::vector<double>, 3> taps;
    for (size_t i = 0; i < 3; ++i) taps[i] = gaussian_kernel1d(sigma_zyx[i], truncate);
    const size_t ndim = input.ndim();
    auto used = [&](size_t axis) { return sigma_zyx[3 - ndim + axis] > min_sigma; };
    auto weights = [&](size_t axis) { return taps[3 - ndim + axis]; };

    const DType t = dtype_is_float(input.dtype()) ? input.dtype() : DType::float32;
    Array current = input.dtype() == t ? input : cast(input, t);
    const ops::conv::Ext ext = ops::conv::ext_of(mode);
    const Shape& shape = input.shape();
    bool filtered = false;

    auto pass = [&](uint32_t b, uint32_t h, uint32_t w, std::vector<double> wy,
                    std::vector<double> wx) {
        ops::conv::Separable s;
        s.in = current;
        s.out = Array::empty(input.context(), shape, t);
        s.B = b, s.H = s.OH = h, s.W = s.OW = w;
        s.oy = static_cast<int>(wy.size() / 2), s.ox = static_cast<int>(wx.size() / 2);
        s.y.host = std::move(wy);
        s.x.host = std::move(wx);
        s.mode_y = s.mode_x = ext;
        s.cval = cval;
        s.nd = true;
        ops::conv::record(s);
        current = s.out;
        filtered = true;
    };
    // The slowest axis first, as SciPy; y and x together.
    const uint32_t nx = static_cast<uint32_t>(shape[ndim - 1]);
    if (ndim == 3 && used(0))
        pass(1, static_cast<uint32_t>(shape[0]), static_cast<uint32_t>(shape[1] * shape[2]),
             weights(0), {});
    if (ndim >= 2 && (used(ndim - 2) || used(ndim - 1))) {
        const uint32_t planes = ndim == 3 ? static_cast<uint32_t>(shape[0]) : 1;
        const uint32_t ny = static_cast<uint32_t>(shape[ndim - 2]);
        pass(planes, ny, nx, used(ndim - 2) ? weights(ndim - 2) : std::vector<double>{},
             used(ndim - 1) ? weights(ndim - 1) : std::vector<double>{});
    }
    if (ndim == 1 && used(0)) pass(1, 1, nx, {}, weights(0));
    if (filtered) return current;
    return input.dtype() == t ? copy(input) : current;
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
namespace {

const OpFamily gaussian_family("filters", {
    {"gaussian_filter",
     "Gaussian filter as scipy.ndimage.gaussian_filter; float32 out for integer input. Give --sigma (every axis), "
     "or --sigma-x/--sigma-y/--sigma-z (per axis)",
     {{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"},
      {"sigma", ArgKind::number,
       "Standard deviation along every axis (0 leaves an axis alone); or give --sigma-x/--sigma-y/--sigma-z instead",
       "", true},
      {"sigma_z", ArgKind::number, "Sigma along z (3-D), instead of --sigma", "", true},
      {"sigma_y", ArgKind::number, "Sigma along y, instead of --sigma", "", true},
      {"sigma_x", ArgKind::number,
       "Sigma along x (the last axis), instead of --sigma; an axis whose sigma is not given is left alone", "", true},
      {"mode", ArgKind::choice, "How the input extends beyond its edges (scipy.ndimage)", "reflect", false,
       nd_mode_names()},
      {"cval", ArgKind::number, "Value outside the input with --mode constant", "0"},
      {"truncate", ArgKind::number, "Radius in sigmas: int(truncate * sigma + 0.5) weights each side", "4.0"}},
     ResultKind::array, {}, {{"sigma"}, {"sigma_x", "sigma_y", "sigma_z"}},
     [](const OpArgs& x) {
         std::array<double, 3> zyx;
         const char* axes[3] = {"sigma_z", "sigma_y", "sigma_x"};
         for (size_t i = 0; i < 3; ++i)
             zyx[i] = x.has("sigma") ? x.number("sigma") : x.has(axes[i]) ? x.number(axes[i]) : 0.0;
         return gaussian_filter(x.array("input"), zyx, parse_nd_mode(x.text("mode")), x.number("cval"),
                                x.number("truncate"));
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
