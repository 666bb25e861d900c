#include "host/transform_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "kiln/error.hpp"

namespace kiln::transform {

namespace {

std::string list(const std::vector<double>& v) {
    std::string s;
    for (double x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return "[" + s + "]";
}

// One value per axis from `v`: its own, or its single value repeated
// (_normalize_sequence).
std::array<double, 3> per_axis(const std::vector<double>& v, size_t ndim, const char* op, const char* what) {
    if (v.size() != 1 && v.size() != ndim)
        throw InvalidArgument(std::string(op) + ": " + what + " has " + std::to_string(v.size()) +
                              " values for a " + std::to_string(ndim) +
                              "-D input; one per axis, or one for all, is accepted");
    std::array<double, 3> r{};
    for (size_t a = 0; a < ndim; ++a) {
        r[a] = v.size() == 1 ? v[0] : v[a];
        if (!std::isfinite(r[a]))
            throw InvalidArgument(std::string(op) + ": " + what + " " + list(v) + " is not finite");
    }
    return r;
}

Shape shape_of(const std::vector<size_t>& dims) {
    return Shape::of(dims.size(), dims.data());
}

// cos and sin of the angle r (|r| <= 45 degrees) in the quadrant k.
double quadrant(double r, long k, bool sine) {
    const double rad = r * (M_PI / 180.0);
    switch (((k % 4) + 4 + (sine ? 3 : 0)) % 4) {
        case 0: return std::cos(rad);
        case 1: return -std::sin(rad);
        case 2: return -std::cos(rad);
        default: return std::sin(rad);
    }
}

const std::pair<const char*, InterpMode> interp_modes[] = {
    {"constant", InterpMode::constant}, {"grid-constant", InterpMode::grid_constant},
    {"nearest", InterpMode::nearest},   {"reflect", InterpMode::reflect},
    {"grid-mirror", InterpMode::grid_mirror}, {"mirror", InterpMode::mirror},
    {"wrap", InterpMode::wrap},         {"grid-wrap", InterpMode::grid_wrap}};

}  // namespace

int code_of(InterpMode m) {
    switch (m) {
        case InterpMode::constant: return constant;
        case InterpMode::grid_constant: return grid_constant;
        case InterpMode::nearest: return nearest;
        case InterpMode::reflect:
        case InterpMode::grid_mirror: return reflect;
        case InterpMode::mirror: return mirror;
        case InterpMode::wrap: return wrap;
        case InterpMode::grid_wrap: return grid_wrap;
    }
    return constant;
}

int spline_code(int code) {
    return code == constant || code == wrap ? mirror : code;
}

int prepad(int code) {
    return code == nearest || code == grid_constant ? 12 : 0;
}

void check_interp(const Interp& interp, const char* op) {
    if (interp.order == 2 || interp.order == 4 || interp.order == 5)
        throw Unsupported(std::string(op) + ": spline order " + std::to_string(interp.order) +
                          " is not implemented; orders 0, 1 and 3 are");
    if (interp.order != 0 && interp.order != 1 && interp.order != 3)
        throw InvalidArgument(std::string(op) + ": spline order " + std::to_string(interp.order) +
                              " is not accepted; orders 0, 1 and 3 are");
}

Plan shift_plan(const Shape& in, const std::vector<double>& shift) {
    Plan p;
    p.in = p.out = in;
    p.has_shift = true;
    p.shift = per_axis(shift, in.ndim(), "shift", "shift");
    for (double& s : p.shift) s = -s;
    return p;
}

Plan zoom_plan(const Shape& in, const std::vector<double>& zoom, bool grid_mode) {
    const std::array<double, 3> z = per_axis(zoom, in.ndim(), "zoom", "zoom");
    std::vector<size_t> out(in.ndim());
    for (size_t a = 0; a < in.ndim(); ++a) {
        // Python's round: half to even, as nearbyint in the default rounding mode.
        const double n = std::nearbyint(double(in[a]) * z[a]);
        if (!(n >= 1) || n > 1e15)
            throw InvalidArgument("zoom: zoom " + list(zoom) + " gives an output extent of " +
                                  std::to_string(n) + " along axis " + std::to_string(a) +
                                  "; zooms giving at least one element are accepted");
        out[a] = static_cast<size_t>(n);
    }
    Plan p;
    p.in = in;
    p.out = shape_of(out);
    p.has_zoom = true;
    p.grid_mode = grid_mode;
    for (size_t a = 0; a < in.ndim(); ++a) {
        const double num = double(in[a]) - (grid_mode ? 0 : 1), div = double(out[a]) - (grid_mode ? 0 : 1);
        p.zoom[a] = div != 0 ? num / div : 1.0;
    }
    return p;
}

double cosdg(double degrees) {
    const double x = std::fmod(std::abs(degrees), 360.0);
    const long k = std::lround(x / 90.0);
    return quadrant(x - 90.0 * double(k), k, false);
}

double sindg(double degrees) {
    const double x = std::fmod(std::abs(degrees), 360.0);
    const long k = std::lround(x / 90.0);
    const double s = quadrant(x - 90.0 * double(k), k, true);
    return degrees < 0 ? -s : s;
}

Plan rotate_plan(const Shape& in, double angle, std::array<int, 2> axes, bool reshape) {
    const int ndim = static_cast<int>(in.ndim());
    if (ndim < 2)
        throw InvalidArgument("rotate: the input is " + std::to_string(ndim) +
                              "-D; 2- and 3-D inputs are accepted");
    if (!std::isfinite(angle)) throw InvalidArgument("rotate: the angle is not finite");
    for (int& a : axes) {
        const int given = a;
        if (a < 0) a += ndim;
        if (a < 0 || a >= ndim)
            throw InvalidArgument("rotate: axis " + std::to_string(given) + " is not an axis of a " +
                                  std::to_string(ndim) + "-D input");
    }
    if (axes[0] == axes[1])
        throw InvalidArgument("rotate: the axes are the same; two different axes are accepted");
    std::sort(axes.begin(), axes.end());
    const double c = cosdg(angle), s = sindg(angle);
    const double r[2][2] = {{c, s}, {-s, c}};
    const double iy = double(in[axes[0]]), ix = double(in[axes[1]]);
    std::array<double, 2> out_plane{iy, ix};
    if (reshape) {
        const double by[4] = {0, 0, iy, iy}, bx[4] = {0, ix, 0, ix};
        for (int i = 0; i < 2; ++i) {
            double lo = INFINITY, hi = -INFINITY;
            for (int j = 0; j < 4; ++j) {
                const double v = r[i][0] * by[j] + r[i][1] * bx[j];
                lo = std::min(lo, v), hi = std::max(hi, v);
            }
            out_plane[i] = std::trunc(hi - lo + 0.5);
        }
    }
    const double oc[2] = {(out_plane[0] - 1) / 2, (out_plane[1] - 1) / 2};
    const double ic[2] = {(iy - 1) / 2, (ix - 1) / 2};
    Plan p;
    p.in = in;
    p.matrix = true;
    std::vector<size_t> out(ndim);
    for (int a = 0; a < ndim; ++a) {
        out[a] = in[a];
        p.m[a * ndim + a] = 1;
        p.interpolated[a] = a == axes[0] || a == axes[1];
    }
    for (int i = 0; i < 2; ++i) {
        out[axes[i]] = static_cast<size_t>(std::max(out_plane[i], 1.0));
        for (int j = 0; j < 2; ++j) p.m[axes[i] * ndim + axes[j]] = r[i][j];
        p.offset[axes[i]] = ic[i] - (r[i][0] * oc[0] + r[i][1] * oc[1]);
    }
    p.out = shape_of(out);
    return p;
}

Plan affine_plan(const Shape& in, const std::vector<double>& matrix, const std::vector<double>& offset,
                 const std::vector<size_t>& output_shape) {
    const size_t n = in.ndim(), count = matrix.size();
    for (double v : matrix)
        if (!std::isfinite(v)) throw InvalidArgument("affine_transform: the matrix is not finite");
    Plan p;
    p.in = in;
    if (!output_shape.empty() && output_shape.size() != n)
        throw InvalidArgument("affine_transform: output_shape has " + std::to_string(output_shape.size()) +
                              " extents for a " + std::to_string(n) + "-D input; one per input axis is accepted");
    for (size_t e : output_shape)
        if (e == 0) throw InvalidArgument("affine_transform: output_shape has an extent of 0");
    p.out = output_shape.empty() ? in : shape_of(output_shape);
    std::array<double, 3> off{};
    if (!offset.empty()) off = per_axis(offset, n, "affine_transform", "offset");
    if (count == n) {
        // SciPy's diagonal path: zoom_shift with shift offset / matrix.
        p.has_zoom = p.has_shift = true;
        for (size_t a = 0; a < n; ++a) p.zoom[a] = matrix[a], p.shift[a] = off[a] / matrix[a];
        return p;
    }
    const size_t cols = count == n * n ? n : n + 1;
    if (count != n * n && count != n * (n + 1) && count != (n + 1) * (n + 1))
        throw InvalidArgument("affine_transform: a matrix of " + std::to_string(count) + " values for a " +
                              std::to_string(n) + "-D input; " + std::to_string(n) + " (diagonal), " +
                              std::to_string(n * n) + ", " + std::to_string(n * (n + 1)) + " or " +
                              std::to_string((n + 1) * (n + 1)) + " values are accepted");
    if (count == (n + 1) * (n + 1))
        for (size_t j = 0; j <= n; ++j)
            if (matrix[n * cols + j] != (j == n ? 1.0 : 0.0))
                throw InvalidArgument("affine_transform: the homogeneous matrix's last row is not 0 ... 0 1");
    p.matrix = true;
    for (size_t a = 0; a < n; ++a) {
        for (size_t l = 0; l < n; ++l) p.m[a * n + l] = matrix[a * cols + l];
        p.offset[a] = cols == n ? off[a] : matrix[a * cols + n];
    }
    return p;
}

Shape coordinates_output(const Shape& in, const Shape& coordinates) {
    if (coordinates.ndim() < 2 || coordinates[0] != in.ndim())
        throw InvalidArgument("map_coordinates: coordinates of shape " + coordinates.str() + " for a " +
                              std::to_string(in.ndim()) + "-D input; shape (" + std::to_string(in.ndim()) +
                              ", ...) with at least two axes is accepted");
    std::vector<size_t> out;
    for (size_t a = 1; a < coordinates.ndim(); ++a) out.push_back(coordinates[a]);
    return shape_of(out);
}

}  // namespace kiln::transform

namespace kiln {

InterpMode parse_interp_mode(std::string_view name) {
    std::string dashed(name);
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    for (const auto& [n, m] : transform::interp_modes)
        if (dashed == n) return m;
    std::string accepted;
    for (const auto& [n, m] : transform::interp_modes) accepted += (accepted.empty() ? "" : ", ") + std::string(n);
    throw InvalidArgument("unknown interpolation mode '" + std::string(name) + "'; accepted: " + accepted);
}

std::vector<std::string> interp_mode_names() {
    std::vector<std::string> v;
    for (const auto& [n, m] : transform::interp_modes) v.emplace_back(n);
    return v;
}

}  // namespace kiln
