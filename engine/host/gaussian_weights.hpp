#pragma once
// The Gaussian weights of scipy.ndimage, shared by the GPU filter (ops) and
// the CPU reference gaussian_filter.
#include <vector>

namespace kiln {

/// The weights scipy.ndimage uses for sigma: radius r = int(truncate * sigma
/// + 0.5), w[i] = exp(-0.5 / sigma^2 * x^2) for x = i - r in -r .. r, divided
/// by their sum (taken as NumPy sums). 2r + 1 weights, symmetric; {1} when r
/// is 0 (also for sigma 0). Throws InvalidArgument for sigma or truncate
/// negative or not finite, and for r above 2^20.
std::vector<double> gaussian_kernel1d(double sigma, double truncate = 4.0);

/// Throws InvalidArgument ("gaussian filter: <what> = v is not accepted")
/// unless v is finite and >= 0: the rule for every sigma and truncate.
void check_gaussian_parameter(double v, const char* what);

}  // namespace kiln
