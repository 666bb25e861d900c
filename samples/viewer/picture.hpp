#pragma once
// The viewer's picture computed on the CPU, from kiln's CPU references: what
// the GPU pipeline and the colour kernel must show, for the CI check.
#include <cstdint>
#include <vector>

#include "compose.hpp"
#include "kiln/host_array.hpp"
#include "settings.hpp"

namespace viewer {

/// The pipeline's results on the CPU: the blur, the labels of the mask, and
/// the background statistics (float32, as the GPU's colour step reads them).
struct CpuResults {
    kiln::HostArray blur;    ///< float32
    kiln::HostArray labels;  ///< int32
    int32_t count = 0;
    float median = 0, std = 0;
};

/// kiln::cpu::kappa_sigma_clip, threshold at nsigma * std, label; and
/// kiln::cpu::gaussian_filter(image, {0, sigma, sigma}), the reference of
/// kiln::gaussian_blur.
CpuResults cpu_pipeline(const kiln::HostArray& image, const Settings& s);

/// The picture (RGBA8 packed as R | G << 8 | B << 16 | A << 24, row by row)
/// from compose.glsl's functions, run on the host.
std::vector<uint32_t> cpu_picture(const glsl::Params& p, const kiln::HostArray& image, const CpuResults& r);

}  // namespace viewer
