// The manifest entries of the morphology (kiln/manifest.hpp): SciPy's
// keywords, size / footprint / structure / origin turned into a Footprint.
#include <algorithm>
#include <string>

#include "kiln/manifest.hpp"
#include "kiln/morphology.hpp"

namespace kiln {
namespace {

// One origin per footprint axis: a single value applies to every axis;
// none given, 0.
std::vector<int> origins(const OpArgs& x, size_t ndim) {
    if (!x.has("origin")) return std::vector<int>(ndim, 0);
    const std::vector<int64_t>& o = x.integers("origin");
    if (o.size() == 1) return std::vector<int>(ndim, int(o[0]));
    return {o.begin(), o.end()};
}

std::vector<int64_t> shape_of(const Array& a) {
    std::vector<int64_t> d;
    for (size_t i = 0; i < a.ndim(); ++i) d.push_back(int64_t(a.shape()[i]));
    return d;
}

// size, footprint or structure (its shape, all of it) for the grey ops.
Footprint grey_footprint(const OpArgs& x, const char* op) {
    const size_t nd = x.array("input").ndim();
    Footprint f;
    if (x.has("footprint")) {
        f = Footprint::from_host(x.array("footprint").to_host());
    } else if (x.has("structure")) {
        f = Footprint::box(shape_of(x.array("structure")));
    } else if (x.has("size")) {
        std::vector<int64_t> s = x.integers("size");
        if (s.size() == 1) s.assign(nd, s[0]);
        f = Footprint::box(s);
    } else {
        throw InvalidArgument(std::string(op) + ": give a size, a footprint or a structure (scipy.ndimage's size=, footprint=, structure=)");
    }
    f.origin = origins(x, f.ndim());
    return f;
}

std::vector<double> heights(const OpArgs& x) {
    if (!x.has("structure")) return {};
    const HostArray h = x.array("structure").to_host();
    std::vector<double> v(h.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = h.at(i);
    return v;
}

// The binary ops' structure: SciPy's default cross unless given.
Footprint binary_structure(const OpArgs& x) {
    const size_t nd = x.array("input").ndim();
    Footprint f = x.has("structure") ? Footprint::from_host(x.array("structure").to_host())
                                     : Footprint::binary_structure(nd, 1);
    f.origin = origins(x, f.ndim());
    return f;
}

std::vector<ArgSpec> grey_args(bool structure) {
    std::vector<ArgSpec> a = {
        {"input", ArgKind::array, "Input array file (1-, 2- or 3-D, any dtype)"},
        {"size", ArgKind::integers, "Box sizes, one per axis or one for all (e.g. --size 3 3)", "", true, {}, 1,
         1 << 20},
        {"footprint", ArgKind::array, "Footprint array file: its nonzero elements (instead of --size)", "", true}};
    if (structure)
        a.push_back({"structure", ArgKind::array,
                     "Non-flat structuring element file (float values; subtracted on erosion, added on dilation)", "",
                     true});
    a.push_back({"mode", ArgKind::choice, "How the input extends beyond its edges (scipy.ndimage)", "reflect", false,
                 nd_mode_names()});
    a.push_back({"cval", ArgKind::number, "Value outside the input with --mode constant", "0"});
    a.push_back({"origin", ArgKind::integers,
                 "Shift of the footprint's centre, one per axis or one for all (default 0)", "", true, {},
                 -(1 << 20), 1 << 20});
    return a;
}

using GreyFn = Array (*)(const Array&, const Footprint&, const std::vector<double>&, NdMode, double);

OpEntry grey_entry(const char* name, const char* doc, GreyFn fn) {
    return {name, doc, grey_args(true), ResultKind::array, {}, {}, [name, fn](const OpArgs& x) {
                return fn(x.array("input"), grey_footprint(x, name), heights(x), parse_nd_mode(x.text("mode")),
                          x.number("cval"));
            }};
}

using FlatFn = Array (*)(const Array&, const Footprint&, NdMode, double);

OpEntry flat_entry(const char* name, const char* doc, FlatFn fn) {
    return {name, doc, grey_args(false), ResultKind::array, {}, {}, [name, fn](const OpArgs& x) {
                return fn(x.array("input"), grey_footprint(x, name), parse_nd_mode(x.text("mode")), x.number("cval"));
            }};
}

using BinaryFn = Array (*)(const Array&, const Footprint&, const BinaryOptions&);

OpEntry binary_entry(const char* name, const char* doc, BinaryFn fn) {
    return {name,
            doc,
            {{"input", ArgKind::array, "Input array file (1-, 2- or 3-D, any dtype; nonzero is true)"},
             {"structure", ArgKind::array, "Structuring element file (default: the cross, connectivity 1)", "", true},
             {"iterations", ArgKind::integer, "Times to apply it; below 1: until nothing changes", "1"},
             {"mask", ArgKind::array, "Only the mask's nonzero elements may change", "", true},
             {"border_value", ArgKind::integer, "Value outside the array (0 or 1)", "0", false, {}, 0, 1},
             {"origin", ArgKind::integers, "Shift of the structure's centre, one per axis or one for all (default 0)", "", true,
              {}, -(1 << 20), 1 << 20}},
            ResultKind::array,
            {},
            {},
            [fn](const OpArgs& x) {
                BinaryOptions o;
                o.iterations = int(std::clamp<int64_t>(x.integer("iterations"), -1, 1 << 30));
                if (x.has("mask")) o.mask = x.array("mask");
                o.border_value = x.integer("border_value") != 0;
                return fn(x.array("input"), binary_structure(x), o);
            }};
}

const OpFamily morphology_family(
    "morphology",
    {flat_entry("minimum_filter", "Minimum over a box or footprint, as scipy.ndimage.minimum_filter", minimum_filter),
     flat_entry("maximum_filter", "Maximum over a box or footprint, as scipy.ndimage.maximum_filter", maximum_filter),
     grey_entry("grey_erosion", "Grey erosion as scipy.ndimage.grey_erosion", grey_erosion),
     grey_entry("grey_dilation", "Grey dilation as scipy.ndimage.grey_dilation (reflected footprint)", grey_dilation),
     grey_entry("grey_opening", "Grey opening (dilation of the erosion) as scipy.ndimage.grey_opening", grey_opening),
     grey_entry("grey_closing", "Grey closing (erosion of the dilation) as scipy.ndimage.grey_closing", grey_closing),
     grey_entry("white_tophat", "Input minus its grey opening, as scipy.ndimage.white_tophat", white_tophat),
     grey_entry("black_tophat", "Grey closing minus the input, as scipy.ndimage.black_tophat", black_tophat),
     grey_entry("morphological_gradient", "Grey dilation minus erosion, as scipy.ndimage.morphological_gradient",
                morphological_gradient),
     binary_entry("binary_erosion", "Binary erosion as scipy.ndimage.binary_erosion; uint8 0/1 out", binary_erosion),
     binary_entry("binary_dilation", "Binary dilation as scipy.ndimage.binary_dilation; uint8 0/1 out",
                  binary_dilation),
     binary_entry("binary_opening", "Binary opening as scipy.ndimage.binary_opening; uint8 0/1 out", binary_opening),
     binary_entry("binary_closing", "Binary closing as scipy.ndimage.binary_closing; uint8 0/1 out", binary_closing),
     {"binary_fill_holes",
      "Fills the holes of a mask as scipy.ndimage.binary_fill_holes; uint8 0/1 out",
      {{"input", ArgKind::array, "Input array file (1-, 2- or 3-D, any dtype; nonzero is true)"},
       {"structure", ArgKind::array, "Structuring element file (default: the cross, connectivity 1)", "", true},
       {"origin", ArgKind::integers, "Shift of the structure's centre, one per axis or one for all (default 0)", "", true, {},
        -(1 << 20), 1 << 20}},
      ResultKind::array,
      {},
      {},
      [](const OpArgs& x) {
          const bool plain = !x.has("structure") && !x.has("origin");
          return binary_fill_holes(x.array("input"), plain ? Footprint{} : binary_structure(x));
      }}});

}  // namespace
}  // namespace kiln
