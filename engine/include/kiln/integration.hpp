#pragma once
// The corrections of a 1-D azimuthal integration and its result per bin,
// shared by the GPU integrator (kiln/azimuthal.hpp) and the CPU reference
// (kiln/reference/integrate.hpp), whose header defines the terms.
#include <cstdint>
#include <optional>
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
    enum class ErrorModel { none, poisson, variance } error_model = ErrorModel::poisson;
    const HostArray* variance = nullptr;  ///< per-pixel variance, for ErrorModel::variance
    double empty = 0.0;                   ///< reported for bins without any pixel
};

/// A 1-D profile: per bin, the results and the sums they come from.
struct Profile1d {
    std::vector<double> radial, intensity, sigma, sem, std;
    std::vector<double> sum_signal, sum_variance, sum_normalization, sum_normalization_sq, count;
};

}  // namespace kiln
#pragma GCC visibility pop
