#pragma once
// The argument rules distance_transform_edt and its CPU reference share.
#include <array>
#include <cstddef>
#include <vector>

#include "kiln/dtype.hpp"

namespace kiln {

/// The spacing of each axis of an ndim-D array (1..3) in (z, y, x) order,
/// 1 for the axes it lacks: empty means 1, one value every axis, else one
/// per axis. InvalidArgument for another rank or count, or a value that is
/// not finite and > 0.
std::array<double, 3> edt_sampling(size_t ndim, const std::vector<double>& sampling);

/// InvalidArgument unless t is float32 or float64.
void check_edt_result(DType t);

}  // namespace kiln
