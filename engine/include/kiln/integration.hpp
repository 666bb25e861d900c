#pragma once
// The corrections of a 1-D azimuthal integration and its result per bin,
// shared by the GPU integrator (kiln/azimuthal.hpp) and the CPU reference
// (kiln/reference/integrate.hpp), whose header defines the terms.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Corrections and options of an integration; every pointer is optional and,
/// when given, holds one value per pixel (csr.pixels).
struct IntegrateParams {
    const HostArray* dark = nullptr;                   ///< subtracted from the frame (any dtype)
    const HostArray* flat = nullptr;                   ///< flat field, divides (any dtype)
    const std::vector<float>* solid_angle = nullptr;   ///< relative solid angle, divides
    const std::vector<float>* polarization = nullptr;  ///< polarization factor, divides
    const std::vector<uint8_t>* mask = nullptr;        ///< nonzero = excluded
    std::optional<double> dummy;                       ///< raw value marking invalid pixels
    double delta_dummy = 0;                            ///< tolerance around dummy
    /// Where each pixel's variance comes from (kiln/reference/integrate.hpp
    /// has the definitions): none; poisson, max(raw, 1) (+ the dark, see
    /// dark_variance); variance, the given array; azimuthal, the spread of
    /// the pixels' normalized values around their bin's mean (pyFAI 0.21's
    /// error_model="azimuthal" of its CSR integrator). With compensated
    /// float32 sums (Accumulation::compensated) a bin of equal values gets a
    /// spread of about an ulp of the value rather than 0.
    enum class ErrorModel { none, poisson, variance, azimuthal } error_model = ErrorModel::poisson;
    const HostArray* variance = nullptr;  ///< per-pixel variance, for ErrorModel::variance
    /// Poisson model with a dark: true adds the dark to the variance,
    /// max(raw, 1) + dark (kiln's default; pyFAI 0.21's Python reference,
    /// pyFAI/engines/preproc.py); false leaves it out, max(raw, 1) (pyFAI
    /// 0.21's compiled pre-processing, pyFAI/ext/preproc.pyx, as its
    /// integrate1d_ng and sigma_clip_ng with method ("no", "csr", "cython")
    /// use it; their sigma is lower by the dark's share of the variance).
    /// Either way max(raw, 1) is of the raw value, before the dark is
    /// subtracted. The other models never add the dark.
    bool dark_variance = true;
    double empty = 0.0;                   ///< reported for bins without any pixel
};

/// The clipping threshold of sigma_clip, in units of the bin's std: fixed,
/// kappa; chauvenet (pyFAI 0.21's sigma_clip_ng), max(kappa, Chauvenet's
/// criterion sqrt(2 ln(n / sqrt(2 pi)))) where n is the bin's pixel count
/// (at least 3), so that kappa is the minimum and crowded bins clip less.
enum class ClipThreshold { chauvenet, fixed };

/// A 1-D profile: per bin, the results and the sums they come from.
struct Profile1d {
    std::vector<double> radial, intensity, sigma, sem, std;
    std::vector<double> sum_signal, sum_variance, sum_normalization, sum_normalization_sq, count;
};

/// The error model of its name: "none", "poisson", "variance" or
/// "azimuthal" (pyFAI's names; "" is none). Throws InvalidArgument naming
/// the accepted ones.
IntegrateParams::ErrorModel parse_error_model(std::string_view name);

}  // namespace kiln
#pragma GCC visibility pop
