#pragma once
// Data for kappa-sigma clipping and the check of the GPU clipping against
// kiln::cpu::kappa_sigma_clip; shared by the op tests and the stress tests.
#include <cstdint>

#include "support.hpp"

namespace kiln::test {

/// Gaussian noise of width `sigma` around `offset`, with a fraction `tail` of
/// Cauchy-distributed outliers (many passes until nothing more is clipped),
/// rounded and clamped to integer dtypes.
HostArray noisy(Shape s, DType t, uint64_t seed, double sigma = 1, double offset = 0, double tail = 0.2);

/// |got - want| <= rtol * |want|, NaN only for NaN.
void check_close(double got, double want, double rtol);

/// The GPU result against the CPU one: the same passes, count and kept set
/// (the mask, when asked for); the median exactly (to 1e-15), std and mean to
/// 1e-12 (the sums are added in another order).
void check_clip(const Array& a, const HostArray& h, double kappa, int max_iters, bool mask = true);

}  // namespace kiln::test
