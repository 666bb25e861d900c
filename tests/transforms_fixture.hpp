#pragma once
// scipy.ndimage's transforms of tests/data/make_transforms.py, shared by the
// CPU reference test and the GPU test: the case table, its .npy arrays, and
// one runner for both (Api: the functions of kiln or of kiln::cpu).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/io.hpp"
#include "kiln/transforms.hpp"

namespace kiln::test::fixture {

/// One SciPy call: op is shift, zoom, rotate, affine, map or spline; input
/// and coords name in_<input>.npy and co_<coords>.npy; params hold the shift,
/// zoom or matrix (row-major) values; the result is <name>.npy of `shape`.
struct TransformCase {
    const char* name;
    const char* op;
    const char* input;
    std::vector<double> params, offset;
    std::vector<size_t> output_shape;
    double angle;
    std::array<int, 2> axes;
    bool reshape, grid_mode;
    const char* coords;
    int order;
    const char* mode;
    double cval;
    bool prefilter;
    std::vector<size_t> shape;
};

#include "data/transforms/cases.inc"

inline HostArray transform_npy(const std::string& file) { return npy_fixture("transforms/" + file + ".npy"); }

inline Interp interp_of(const TransformCase& c) {
    return {c.order, parse_interp_mode(c.mode), c.cval, c.prefilter};
}

/// The case run by Api's functions on `in` (and `coords` for map).
template <typename Api, typename A>
A run_transform(const TransformCase& c, const A& in, const A& coords) {
    const std::string op = c.op;
    const Interp ip = interp_of(c);
    if (op == "shift") return Api::shift(in, c.params, ip);
    if (op == "zoom") return Api::zoom(in, c.params, ip, c.grid_mode);
    if (op == "rotate") return Api::rotate(in, c.angle, c.axes, c.reshape, ip);
    if (op == "affine") return Api::affine_transform(in, c.params, c.offset, c.output_shape, ip);
    if (op == "map") return Api::map_coordinates(in, coords, ip);
    return Api::spline_filter(in, ip.mode);
}

/// How far a result may be from SciPy's (which computes in double and
/// rounds once): order 0 picks elements, exactly; orders 1 and 3 without a
/// prefilter sum at most 64 weighted taps whose weights sum to 1, a few
/// roundings of the largest input (`scale`); the float32 prefilter adds its
/// 27 taps of total weight 3, each rounded, to every coefficient.
inline std::array<double, 2> transform_tolerance(const TransformCase& c, bool gpu, bool f64, double scale) {
    if (std::string(c.op) != "spline" && c.order == 0) return {0, 0};
    // The CPU reference repeats SciPy's double operations in its order: the
    // same double, or one rounding to float32 apart.
    if (!gpu) return {f64 ? 1e-12 : 2.5e-7, 1e-12 * scale};
    if (f64) return {1e-12, 1e-12 * scale};
    const bool filtered = std::string(c.op) == "spline" || (c.order > 1 && c.prefilter);
    return {2e-6, (filtered ? 3e-6 : 1e-6) * scale};
}

}  // namespace kiln::test::fixture
