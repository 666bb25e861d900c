#pragma once
// Argument rules and result types that a GPU operation (ops) and its CPU
// reference (cpu) share, so both accept, refuse and type alike.
#include <cstddef>

#include "kiln/dtype.hpp"

namespace kiln {

/// kappa_sigma_clip's checks: InvalidArgument unless kappa is finite and > 0
/// and max_iters >= 1.
void check_clip_parameters(double kappa, int max_iters);

/// How many coordinates of a neighbour offset may be nonzero for that
/// connectivity of an ndim-D mask (1..3): scipy's
/// generate_binary_structure(ndim, reach). 0 picks the default (reach 1);
/// anything but the accepted values (2; 4 or 8; 6, 18 or 26) throws
/// InvalidArgument listing them.
int neighbour_reach(size_t ndim, int connectivity);

/// The InvalidArgument histogram() throws for an array of `elements` values
/// none of which is finite, given no range.
[[noreturn]] void throw_no_finite_range(size_t elements);

/// The dtype convolving a with b gives: float64 if either is float64, else
/// float32 (integers included).
DType convolution_dtype(DType a, DType b);

}  // namespace kiln
