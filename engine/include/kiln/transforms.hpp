#pragma once
// Geometric transforms on the GPU with scipy.ndimage's semantics (SciPy
// 1.10): shift, zoom, rotate, affine_transform and map_coordinates of 1-, 2-
// and 3-D arrays by B-spline interpolation of order 0, 1 or 3.
//
// Every function takes SciPy's `order`, `mode`, `cval` and `prefilter`. With
// order 3 and prefilter the input is first turned into B-spline coefficients
// (spline_filter) with the boundary handling of the mode, as SciPy does
// (the input padded by 12 with mode nearest and grid-constant). The result is
// float64 for float64 input and float32 otherwise: SciPy's default would keep
// an integer input's dtype; these equal SciPy's with output=numpy.float32.
// Each throws InvalidArgument for a null input, arguments SciPy refuses
// (counts of values that fit no axis, axes out of range, a homogeneous
// matrix whose last row is not 0 ... 0 1, an output extent of 0) and values
// that are not finite, and Unsupported for orders 2, 4 and 5 and for inputs
// or outputs of 2^32 elements or more.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// How scipy.ndimage's interpolation extends its input, as its `mode`:
/// constant       cval outside [0, n - 1]; no interpolation beyond the edges
/// grid_constant  cval beyond the edges, interpolated with them
/// nearest        the edge value repeats
/// reflect        half-sample symmetric (d c b a | a b c d | d c b a)
/// grid_mirror    the same as reflect
/// mirror         whole-sample symmetric (d c b | a b c d | c b a)
/// wrap           SciPy's periodic extension of period n - 1 (its old "wrap")
/// grid_wrap      periodic with period n
enum class InterpMode { constant, grid_constant, nearest, reflect, grid_mirror, mirror, wrap, grid_wrap };

/// The mode by SciPy's name ("constant", "grid-constant", "nearest",
/// "reflect", "grid-mirror", "mirror", "wrap", "grid-wrap"; underscores are
/// accepted for dashes). Throws InvalidArgument naming the accepted ones.
InterpMode parse_interp_mode(std::string_view name);
/// The accepted names, with dashes, in the order above.
std::vector<std::string> interp_mode_names();

/// Interpolation settings shared by every transform.
struct Interp {
    int order = 3;                        ///< 0 (nearest), 1 (linear) or 3 (cubic B-spline)
    InterpMode mode = InterpMode::constant;
    double cval = 0;
    bool prefilter = true;                ///< order 3: spline_filter the input first
};

/// scipy.ndimage.spline_filter(input, order=3, mode=mode): the B-spline
/// coefficients of order 3 along every axis. Float64 for float64 input, else
/// float32 (SciPy computes in float64). Modes nearest and grid_constant filter
/// as reflect and mirror do (SciPy pads first for those; the transforms here
/// pad as SciPy does).
Array spline_filter(const Array& input, InterpMode mode = InterpMode::mirror);

/// scipy.ndimage.shift(input, shift): out[o] = input(o - shift). shift has
/// one value per axis, or one for all.
Array shift(const Array& input, const std::vector<double>& shift, const Interp& interp = {});

/// scipy.ndimage.zoom(input, zoom, grid_mode=grid_mode): output extents
/// round(n * zoom) (half to even, as Python's round); zoom has one value per
/// axis, or one for all.
Array zoom(const Array& input, const std::vector<double>& zoom, const Interp& interp = {},
           bool grid_mode = false);

/// scipy.ndimage.rotate(input, angle, axes, reshape): rotation by `angle`
/// degrees in the plane of the two axes (NumPy order, negative counts from
/// the end) about the centre; with reshape the output plane grows to hold the
/// whole input. A 3-D input is rotated plane by plane (no interpolation
/// across planes), as SciPy does. Needs a 2- or 3-D input.
Array rotate(const Array& input, double angle, std::array<int, 2> axes = {1, 0}, bool reshape = true,
             const Interp& interp = {});

/// scipy.ndimage.affine_transform(input, matrix, offset, output_shape):
/// out[o] = input(matrix @ o + offset). matrix holds its values in row-major
/// order, their count giving its shape: ndim (the diagonal), ndim^2,
/// ndim * (ndim + 1) or (ndim + 1)^2 (homogeneous: its last column is the
/// offset and `offset` is ignored; the last row must be 0 ... 0 1). offset:
/// empty (zero), one value for all axes or one per axis. output_shape: empty
/// (the input's) or one extent per input axis.
Array affine_transform(const Array& input, const std::vector<double>& matrix,
                       const std::vector<double>& offset = {}, const std::vector<size_t>& output_shape = {},
                       const Interp& interp = {});

/// scipy.ndimage.map_coordinates(input, coordinates): out[i] = input at
/// coordinates[:, i]. coordinates has shape (input.ndim, ...) with at least
/// two axes; the output has its shape less the first axis. Float32
/// coordinates are read as float32, any other dtype as float64.
Array map_coordinates(const Array& input, const Array& coordinates, const Interp& interp = {});

}  // namespace kiln
#pragma GCC visibility pop
