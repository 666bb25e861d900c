#pragma once
// CPU reference for the geometric transforms (kiln/transforms.hpp): SciPy
// 1.10's C code (ni_interpolation.c, ni_splines.c) followed step by step in
// double: the recursive spline filter with its mode-dependent initial values,
// the coordinate mapping of each boundary mode, the interpolation weights.
#include <array>
#include <vector>

#include "kiln/host_array.hpp"
#include "kiln/transforms.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// scipy.ndimage.spline_filter(input, order=3, output=numpy.float64, mode):
/// float64, filtered along every axis in turn by SciPy's recursion.
HostArray spline_filter(const HostArray& input, InterpMode mode = InterpMode::mirror);

/// The transforms of kiln/transforms.hpp with the same arguments and result
/// dtypes (float64 for float64 input, else float32: SciPy with
/// output=numpy.float32), each from SciPy's own mapping of output
/// coordinates. A 3-D rotate transforms each plane as a 2-D image, as SciPy.
HostArray shift(const HostArray& input, const std::vector<double>& shift, const Interp& interp = {});
HostArray zoom(const HostArray& input, const std::vector<double>& zoom, const Interp& interp = {},
               bool grid_mode = false);
HostArray rotate(const HostArray& input, double angle, std::array<int, 2> axes = {1, 0}, bool reshape = true,
                 const Interp& interp = {});
HostArray affine_transform(const HostArray& input, const std::vector<double>& matrix,
                           const std::vector<double>& offset = {}, const std::vector<size_t>& output_shape = {},
                           const Interp& interp = {});
HostArray map_coordinates(const HostArray& input, const HostArray& coordinates, const Interp& interp = {});

}  // namespace kiln::cpu
#pragma GCC visibility pop
