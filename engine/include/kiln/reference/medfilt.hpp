#pragma once
// CPU reference of the quantile filter per ring (pyFAI's medfilt1d_ng, its
// Cython CSR engine) and of the separation of a frame into Bragg and
// amorphous parts (pyFAI's separate), which the GPU ops are tested against.
// Pre-processing terms are cpu::preprocess's (kiln/reference/integrate.hpp).
//
// Quantile filter, per bin, over its CSR entries (pixel i, weight c) whose
// pixel is valid with a normalization n > 0:
//   value  x = s / n, rounded to float32 (pyFAI sorts float32 values)
//   weight w = c * n, with n rounded to float32, in fixed point: w rounded
//          down to a multiple of 2^-K (medfilt_fixed_weight), so cumulative
//          sums are exact and do not depend on the order of summation.
//          Entries of weight 0 take no part (pyFAI skips them too).
// The entries are ordered by x, equal values by their position in the row
// (pyFAI's sort leaves the order of ties unspecified). With L the sum of the
// weights before an entry, U = L + w and W the bin's total, the entry is kept
// when its interval [L, U] lies inside [q_lo W, q_hi W] or contains it:
//   (q_lo W <= L and U <= q_hi W) or (q_lo W >= L and U >= q_hi W)
// (pyFAI's rule; q_lo = q_hi = 0.5 keeps the entry holding the median, or
// both entries meeting there). q_lo and q_hi are taken to 9 decimals (as
// integers q 10^9), so that a decimal quantile such as 0.1 of 30 entries is
// 3 exactly.
// The bin's result is integrate()'s over the kept entries: sum_signal = sum c
// s, sum_variance = sum c^2 v, sum_normalization = sum c n, sum_normalization_sq
// = sum c^2 n^2, intensity, sem and std from them; count is the number of
// kept entries, as pyFAI reports it (not the sum of their weights).
#include <cstdint>
#include <utility>
#include <vector>

#include "kiln/csr.hpp"
#include "kiln/host_array.hpp"
#include "kiln/integration.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// The exponent K of the fixed-point weights: the largest product
/// max_weight * max_norm (the largest matrix weight and the largest float32
/// normalization of an unmasked pixel) is below 2^(32 - K), so every fixed
/// weight fits 32 bits. 0 when either is 0 or not finite.
int medfilt_scale_exponent(float max_weight, float max_norm);

/// floor(c * n * 2^K) for float32 c, n > 0, computed exactly from their
/// mantissas (the GPU computes the same integer); 0 for c or n <= 0.
uint32_t medfilt_fixed_weight(float c, float n, int K);

/// An unsigned key of the float32 x ordering as x does (-inf lowest).
uint32_t medfilt_order_key(float x);

/// q in [0, 1] to 9 decimals: round(q * 10^9).
uint32_t medfilt_fixed_quantile(double q);

/// The largest weight and unmasked float32 normalization (flat * solid angle
/// * polarization, 1 without) that medfilt uses for K, by the GPU's rule.
std::pair<float, float> medfilt_weight_range(const Csr& csr, const IntegrateParams& p);

/// Mean of the entries between the quantiles q_lo and q_hi of each bin
/// (above). Throws InvalidArgument unless 0 <= q_lo <= q_hi <= 1, for the
/// azimuthal error model, or as integrate() for inconsistent inputs.
Profile1d medfilt(const Csr& csr, const HostArray& frame, const IntegrateParams& p, double q_lo = 0.5,
                  double q_hi = 0.5);

/// numpy.interp(x, xp, fp) at each x: fp[0] left of xp[0], fp.back() right of
/// xp.back(), else fp[j] + (fp[j+1] - fp[j]) / (xp[j+1] - xp[j]) * (x - xp[j])
/// for xp[j] <= x < xp[j+1]; NaN x gives NaN. xp must be ascending
/// (InvalidArgument if empty or of a size other than fp's).
std::vector<double> interp(const std::vector<double>& x, const std::vector<double>& xp,
                           const std::vector<double>& fp);

/// Bragg and amorphous parts of a frame, per pixel.
struct Separation {
    std::vector<double> bragg, amorphous;
};

/// pyFAI's separate with a given background profile: amorphous_i =
/// interp(radial_i, centres, intensity) * (flat_i * solid_angle_i *
/// polarization_i) + dark_i (the corrections integration divides by and
/// subtracts, undone; pyFAI's calcfrom1d multiplies back solid angle and
/// polarization, and its separate has no flat or dark), bragg_i = frame_i -
/// amorphous_i. With restore_mask, pixels the mask excludes get the frame's
/// value in both. `radial` holds each pixel's radial coordinate (the matrix's
/// unit), `background` the profile (its radial and intensity). Throws
/// InvalidArgument for sizes that do not match the frame's.
Separation separate(const HostArray& frame, const std::vector<double>& radial, const Profile1d& background,
                    const IntegrateParams& p, bool restore_mask = true);

}  // namespace kiln::cpu
#pragma GCC visibility pop
