#pragma once
// Detector geometries, frames and the check of the GPU azimuthal integration
// against kiln::cpu::integrate; shared by the op tests and the stress tests.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kiln/azimuthal.hpp"
#include "kiln/reference/integrate.hpp"
#include "support.hpp"

namespace kiln::test {

/// 37 x 41 pixels of 1 mm, 0.1 m away, beam on the detector, tilted.
kiln::Geometry small_geometry();

/// 127 x 131 pixels of 172 um, the beam off the detector.
kiln::Geometry larger_geometry();

/// Positive values for every dtype (large for wide types), so bin sums do
/// not cancel and relative tolerances mean something.
HostArray frame_of(const kiln::Geometry& g, DType t, uint64_t seed);

/// A stack of n uint16 frames (frame_of with seeds seed, seed + 1, ...) on
/// the device; the frames themselves go to `host` for the CPU reference.
Array frame_stack(const Context& ctx, const kiln::Geometry& g, size_t n, uint64_t seed,
                  std::vector<HostArray>& host);

/// GPU result (frame `frame` of it) against the CPU profile, bin by bin:
/// every field to rtol (float32 results), with room for float32's own
/// rounding of numbers that are zero in double.
void require_profile(const AzimuthalResult& r, const kiln::Profile1d& want, double rtol, size_t frame = 0);

/// Geometry g integrated in `bins` bins of q (nm^-1), with or without pixel
/// splitting, accumulating as asked.
AzimuthalSetup setup_for(const kiln::Geometry& g, bool split, Accumulation acc, size_t bins = 23);

}  // namespace kiln::test
