#pragma once
// What the GPU transforms (ops/transforms*.cpp) and their CPU reference
// (cpu/transforms.cpp) share: scipy.ndimage's Python half, which turns
// shift, zoom, rotate and affine_transform arguments into the coordinate
// mapping its C code runs, and the boundary-mode codes of that C code.
#include <array>
#include <cstdint>
#include <vector>

#include "kiln/shape.hpp"
#include "kiln/transforms.hpp"

namespace kiln::transform {

/// SciPy's NI_ExtendMode codes (ni_support.h), as the shaders take them.
enum Code : int { nearest = 0, wrap = 1, reflect = 2, mirror = 3, constant = 4, grid_wrap = 5, grid_constant = 6 };
int code_of(InterpMode m);
/// The mode the taps beyond the edge follow (_get_spline_boundary_mode):
/// constant and wrap read mirrored taps.
int spline_code(int code);
/// Elements prepended to each filtered axis before the spline filter
/// (_prepad_for_spline_filter): 12 for nearest and grid-constant, else 0.
int prepad(int code);

/// How output index o becomes input coordinates, per axis a (NumPy order):
/// zoom_shift (NI_ZoomShift): c = o[a]; c += shift[a] (has_shift); then
///   grid_mode ? (c + 0.5) * zoom[a] - 0.5 : c * zoom[a] (has_zoom).
/// matrix (NI_GeometricTransform): c = sum_l o[l] * m[a][l] + offset[a].
/// An axis in `plane_only`'s complement (rotate of a volume) is not
/// interpolated: its index passes through, its extent unfiltered.
struct Plan {
    Shape in, out;
    bool matrix = false;
    bool has_shift = false, has_zoom = false, grid_mode = false;
    std::array<double, 3> shift{}, zoom{};
    std::array<double, 9> m{};  // row-major ndim x ndim
    std::array<double, 3> offset{};
    std::array<bool, 3> interpolated{true, true, true};
};

/// Checks order (0, 1, 3; Unsupported for 2, 4, 5), cval and prefilter.
void check_interp(const Interp& interp, const char* op);
Plan shift_plan(const Shape& in, const std::vector<double>& shift);
Plan zoom_plan(const Shape& in, const std::vector<double>& zoom, bool grid_mode);
Plan rotate_plan(const Shape& in, double angle, std::array<int, 2> axes, bool reshape);
Plan affine_plan(const Shape& in, const std::vector<double>& matrix, const std::vector<double>& offset,
                 const std::vector<size_t>& output_shape);
/// The output shape of map_coordinates, after checking the coordinates' shape.
Shape coordinates_output(const Shape& in, const Shape& coordinates);

/// scipy.special.cosdg and sindg: exact at multiples of 90 degrees.
double cosdg(double degrees);
double sindg(double degrees);

/// The cubic B-spline's pole, sqrt(3) - 2.
constexpr double cubic_pole = -0.267949192431122706472553658494127633;

}  // namespace kiln::transform
