// The manifest entries of the geometric transforms (kiln/transforms.hpp):
// SciPy's keyword names; SciPy's booleans (prefilter, reshape, grid_mode)
// as 1 or 0, which Python's True and False are.
#include <string>
#include <vector>

#include "kiln/manifest.hpp"
#include "kiln/transforms.hpp"

namespace kiln {
namespace {

ArgSpec flag(const char* name, const char* doc, const char* default_value) {
    return {name, ArgKind::integer, doc, default_value, false, {}, 0, 1};
}

// The input first, the op's own arguments, then order, mode, cval, prefilter.
std::vector<ArgSpec> with_interp(std::vector<ArgSpec> own) {
    std::vector<ArgSpec> v{{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"}};
    v.insert(v.end(), own.begin(), own.end());
    v.push_back({"order", ArgKind::integer, "Spline order: 0 (nearest), 1 (linear) or 3 (cubic)", "3", false, {}, 0, 5});
    v.push_back({"mode", ArgKind::choice, "How the input extends beyond its edges (scipy.ndimage's interpolation modes)",
                 "constant", false, interp_mode_names()});
    v.push_back({"cval", ArgKind::number, "Value beyond the edges with --mode constant and grid-constant", "0"});
    v.push_back(flag("prefilter", "1: spline-filter the input first (order 3), as SciPy; 0: it holds coefficients", "1"));
    return v;
}

Interp interp_of(const OpArgs& x) {
    return {static_cast<int>(x.integer("order")), parse_interp_mode(x.text("mode")), x.number("cval"),
            x.integer("prefilter") != 0};
}

const char* result_doc = "; float64 out for float64 input, else float32";

const OpFamily transforms_family("transforms", {
    {"shift", std::string("Shift as scipy.ndimage.shift") + result_doc,
     with_interp({{"shift", ArgKind::numbers, "Shift per axis (NumPy order), or one for all: --shift 10.3,-7.7"}}),
     ResultKind::array, {}, {},
     [](const OpArgs& x) { return shift(x.array("input"), x.numbers("shift"), interp_of(x)); }},
    {"zoom", std::string("Zoom as scipy.ndimage.zoom") + result_doc,
     with_interp({{"zoom", ArgKind::numbers, "Zoom factor per axis (NumPy order), or one for all: --zoom 2"},
                  flag("grid_mode", "1: zoom the pixels' full extent (SciPy's grid_mode=True)", "0")}),
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return zoom(x.array("input"), x.numbers("zoom"), interp_of(x), x.integer("grid_mode") != 0);
     }},
    {"rotate", std::string("Rotate as scipy.ndimage.rotate (a volume plane by plane)") + result_doc,
     with_interp({{"angle", ArgKind::number, "Rotation in degrees"},
                  {"axes", ArgKind::integers, "The two axes of the plane of rotation: --axes 1 0", "1,0", false, {}, -3, 2},
                  flag("reshape", "1: the output grows to hold the whole rotated input; 0: the input's shape", "1")}),
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         const auto& axes = x.integers("axes");
         if (axes.size() != 2)
             throw InvalidArgument("rotate: --axes has " + std::to_string(axes.size()) + " values; two are accepted");
         return rotate(x.array("input"), x.number("angle"), {int(axes[0]), int(axes[1])}, x.integer("reshape") != 0,
                       interp_of(x));
     }},
    {"affine_transform", std::string("Affine transform as scipy.ndimage.affine_transform") + result_doc,
     with_interp({{"matrix", ArgKind::numbers,
                   "Row-major matrix mapping output to input coordinates: ndim values (its diagonal), ndim^2, "
                   "ndim*(ndim+1) or (ndim+1)^2 (homogeneous)"},
                  {"offset", ArgKind::numbers, "Offset per axis, or one for all (ignored with a homogeneous matrix)", "0"},
                  {"output_shape", ArgKind::integers, "Output extents (default: the input's): --output-shape 512 512",
                   "", true, {}, 1}}),
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         std::vector<size_t> shape;
         if (x.has("output_shape"))
             for (int64_t e : x.integers("output_shape")) shape.push_back(static_cast<size_t>(e));
         return affine_transform(x.array("input"), x.numbers("matrix"), x.numbers("offset"), shape, interp_of(x));
     }},
    {"map_coordinates", std::string("Interpolation at coordinates as scipy.ndimage.map_coordinates") + result_doc,
     with_interp({{"coordinates", ArgKind::array,
                   "Coordinates array file of shape (input ndim, ...); the output has the rest of its shape"}}),
     ResultKind::array, {}, {},
     [](const OpArgs& x) { return map_coordinates(x.array("input"), x.array("coordinates"), interp_of(x)); }},
    {"spline_filter", std::string("Cubic B-spline coefficients as scipy.ndimage.spline_filter(order=3)") + result_doc,
     {{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"},
      {"mode", ArgKind::choice, "Boundary handling of the filter (scipy.ndimage's interpolation modes)", "mirror",
       false, interp_mode_names()}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) { return spline_filter(x.array("input"), parse_interp_mode(x.text("mode"))); }},
});

}  // namespace
}  // namespace kiln
