#pragma once
// CPU reference of 1-D azimuthal integration through a CSR matrix, with
// pyFAI's pre-processing and error propagation (pyFAI documentation, "Weighted
// average and uncertainty propagation"). The GPU kernels are tested against it.
//
// Per pixel i (pre-processing):
//   signal_i        = frame_i - dark_i
//   normalization_i = flat_i * solid_angle_i * polarization_i   (each optional)
//   variance_i      = poisson:  max(frame_i, 1) + dark_i  with dark_variance (the
//                               default; pyFAI's Python reference engine), or
//                               max(frame_i, 1) without (pyFAI 0.21's compiled
//                               preproc); a pixel counting 0 still carries variance 1
//                     variance: the given array;  none, azimuthal: 0
// A pixel is excluded if masked, if frame_i is the dummy value (|frame_i -
// dummy| <= delta_dummy), or if its signal, normalization or variance is not
// finite or its normalization is 0.
//
// Per bin r, over its CSR entries (pixel i, weight c_i):
//   sum_signal = sum c s,  sum_normalization = sum c n,
//   sum_normalization_sq = sum c^2 n^2,  count = sum c
//   sum_variance = sum c^2 v, or for the azimuthal model the weighted sum of
//     squared deviations of the pixels' normalized values x = s / n from
//     their weighted mean: sum c n (x - intensity)^2 (weights c n; pyFAI
//     0.21's CSR integrator, which accumulates it with an online update,
//     Schubert & Gertz 2018; kiln sums it in a second pass over the bin).
//     Excluded pixels take no part; pyFAI 0.21's integrate1d_ng does not
//     skip them in this model and reports NaN for a bin where one follows
//     a valid pixel (its sigma_clip_ng skips them)
//   intensity = sum_signal / sum_normalization
//   sem   = sqrt(sum_variance) / sum_normalization   (uncertainty of the mean)
//   std   = sqrt(sum_variance / sum_normalization_sq) (spread of one pixel's value)
//   sigma = sem, the value pyFAI reports as "sigma" (its "error", for every
//     model, the azimuthal one included).
// Bins with no normalization get `empty` in intensity, sigma, sem and std.
// All sums are accumulated in double.
#include <cstdint>
#include <vector>

#include "kiln/csr.hpp"
#include "kiln/host_array.hpp"
#include "kiln/integration.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// Per-pixel result of pre-processing (what the fused GPU kernel computes).
struct Preprocessed {
    std::vector<double> signal, variance, normalization;
    std::vector<uint8_t> valid;  ///< 1 if the pixel takes part
};

/// Pre-processes a frame of `pixels` elements (any dtype). Throws
/// InvalidArgument for a size mismatch or a missing variance array.
Preprocessed preprocess(const HostArray& frame, size_t pixels, const IntegrateParams& p);

/// Integrates one frame (dtypes uint8, uint16, uint32, int32, float32, and
/// the others too) through the matrix. Throws InvalidArgument if any per-pixel
/// input has the wrong size.
Profile1d integrate(const Csr& csr, const HostArray& frame, const IntegrateParams& p);

/// Integration with per-ring sigma clipping, as pyFAI 0.21's sigma_clip_ng
/// (method csr, its CsrIntegrator.sigma_clip): up to max_iter times, each
/// bin's mean <x> = sum_signal / sum_normalization and deviation
///   d = sqrt(sum_variance / sum_normalization)
/// (pyFAI 0.21's "std" of clipping; for unit normalization the rms of the
/// pixels' standard deviations, or for the azimuthal model their spread) are
/// computed from its remaining entries, and entries whose normalized value
/// x = s / n lies more than t * d from <x> are dropped from that bin, with
/// t = max(kappa, sqrt(2 ln(max(count, 3) / sqrt(2 pi)))) (Chauvenet's
/// criterion, the default) or t = kappa (ClipThreshold::fixed). A bin stops
/// when a pass drops nothing or has no normalization left. The profile of the
/// remaining entries is returned (Profile1d's definitions; count is their
/// number: pyFAI 0.21 reports max(count, 3) for a bin that stopped because a
/// pass dropped nothing). Clipping is per matrix entry, so a split pixel may
/// be kept in one bin and dropped in another (pyFAI drops the pixel from
/// every bin processed after). Needs an error model other than none
/// (InvalidArgument); InvalidArgument also for kappa not finite or < 0 (or 0
/// with a fixed threshold; pyFAI's thres=0 is Chauvenet's criterion alone),
/// or max_iter < 0.
Profile1d sigma_clip(const Csr& csr, const HostArray& frame, const IntegrateParams& p, double kappa = 5.0,
                     int max_iter = 5, ClipThreshold threshold = ClipThreshold::chauvenet);

}  // namespace kiln::cpu
#pragma GCC visibility pop
