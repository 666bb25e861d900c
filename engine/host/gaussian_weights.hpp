#pragma once
// The Gaussian weights of scipy.ndimage, shared by the GPU filter (ops) and
// the CPU reference gaussian_filter.
#include <vector>

namespace kiln {

/// The weights scipy.ndimage uses for sigma: radius r = int(truncate * sigma
/// + 0.5), w[i] = exp(-0.5 / sigma^2 * x^2) for x = i - r in -r .. r, divided
/// by their sum (taken as NumPy sums). 2r + 1 weights, symmetric; {1} when r
/// is 0 (also for sigma 0). With order > 0 (the derivative of that order),
/// the normalized weights times scipy's polynomial q(x), which the
/// recurrence q <- q' - q x / sigma^2 from q = 1 gives (odd orders make
/// antisymmetric weights, w[i] = -w[2r - i]). These are convolution
/// weights, as _gaussian_kernel1d's: gaussian_filter1d correlates with them
/// reversed. Throws InvalidArgument for sigma or truncate negative or not
/// finite, for r above 2^20, and for an order outside 0 .. 3.
std::vector<double> gaussian_kernel1d(double sigma, double truncate = 4.0, int order = 0);

/// Throws InvalidArgument ("<op>: order = v is not accepted") unless v is
/// 0, 1, 2 or 3: the derivative orders gaussian_kernel1d makes.
void check_gaussian_order(int order, const char* op);

/// Throws InvalidArgument ("gaussian filter: <what> = v is not accepted")
/// unless v is finite and >= 0: the rule for every sigma and truncate.
void check_gaussian_parameter(double v, const char* what);

}  // namespace kiln
