#pragma once
// A synthetic radio continuum image, the default input of the astronomy
// sample: noise, compact sources, supernova-like shells and a bright radio
// galaxy at the centre.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// What synthetic_sky draws. Brightnesses scale with noise_sigma.
struct SkyParams {
    /// The image is size x size pixels, min_size to max_size.
    size_t size = 2048;
    static constexpr size_t min_size = 64;
    /// A 4 GiB float32 image (and its 8 GiB float64 canvas): beyond it the
    /// image no longer fits one GPU binding on any device kiln knows, and
    /// size * size must stay far from overflowing.
    static constexpr size_t max_size = 32768;
    /// Standard deviation of the Gaussian noise, in Jy/beam; finite and > 0.
    double noise_sigma = 0.013;
    /// Number of compact (unresolved) Gaussian sources; >= 0.
    int n_compact = 400;
    /// Number of extended shells (rings); >= 0.
    int n_shells = 6;
    uint64_t seed = 42;
};

/// Where the compact sources were put.
struct SkyTruth {
    /// Centre of each compact source, (y, x) in pixels (pixel centres are integers).
    std::vector<std::array<double, 2>> positions;
    /// Peak brightness of each compact source in Jy/beam, before noise.
    std::vector<double> fluxes;
};

/// A float32 (size, size) image in Jy/beam:
///  - Gaussian noise of standard deviation noise_sigma everywhere;
///  - n_compact circular Gaussians of width (sigma) 1-3 px, peaks log-uniform
///    in [3, 300] * noise_sigma, so most are well above 5 sigma and about one
///    in ten below;
///  - n_shells rings of radius size/64..size/24 px, Gaussian cross-section of
///    1.5-3 px, brightness 15-30 sigma varying smoothly around the ring
///    (never below 0.7 of that);
///  - a bright centre: a compact core (peak 600 sigma), a halo and two lobes
///    whose edges are sharp (they end at >= 7.5 sigma), so a 5-sigma mask
///    outlines them cleanly.
/// Sources and shells keep size/16 px away from the edges, so the border
/// strip holds noise alone: a region to check background estimates on.
///
/// Deterministic: the same params give the same image bit for bit on every
/// platform whose libm gives the same exp, log, pow, sin, cos and atan2
/// (the random numbers themselves use integer arithmetic alone);
/// noise comes from its own stream, so changing the source counts leaves it
/// unchanged. If truth is given it receives the compact sources (the shells
/// and the centre are not listed). Throws InvalidArgument for params outside
/// the ranges above.
HostArray synthetic_sky(const SkyParams& params, SkyTruth* truth = nullptr);

}  // namespace kiln
#pragma GCC visibility pop
