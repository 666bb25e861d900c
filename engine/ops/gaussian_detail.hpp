#pragma once
// What the Gaussian filter shares with the derivative filters built on it
// (ops/derivatives.cpp).
#include <array>
#include <string>
#include <vector>

#include "kiln/array.hpp"
#include "kiln/manifest.hpp"
#include "ops/axis_passes.hpp"

namespace kiln::detail {

/// The input itself when float32 or float64, else cast to float32.
Array float_input(const Array& input);

/// gaussian_filter's taps per array axis for a 1-, 2- or 3-D array: the
/// weights of each axis whose sigma is above 1e-15, of that axis' order.
/// Checks every sigma and order, used or not, and truncate.
ops::AxisTaps gaussian_taps(size_t ndim, std::array<double, 3> sigma_zyx, double truncate,
                            std::array<int, 3> order_zyx);

/// The passes of taps over the input (as float_input), slowest axis first;
/// a new array even with no pass.
Array gaussian_taps_filter(const Array& input, const ops::AxisTaps& taps, NdMode mode, double cval);

/// The manifest's sigma arguments (--sigma, or --sigma-x/-y/-z), their
/// alternatives and their (z, y, x) values; --mode and --cval; --truncate.
std::vector<ArgSpec> sigma_args();
std::vector<std::vector<std::string>> sigma_alternatives();
std::array<double, 3> sigma_of(const OpArgs& x);
std::vector<ArgSpec> mode_args();
ArgSpec truncate_arg();

}  // namespace kiln::detail
