#pragma once
// Float controls (SPV_KHR_float_controls, core in SPIR-V 1.4): execution
// modes that forbid a driver to flush denormals to zero and to assume no
// NaN, infinity or signed zero in float arithmetic and comparisons. Without
// them Vulkan allows both, and NVIDIA's driver does flush float32
// denormals: a comparison x >= 0 held for x = -1e-45, and min, argmin,
// count_nonzero and nonzero tests on denormals can differ from NumPy's.
// kiln adds the modes a device supports to every module it creates.
#include <cstdint>
#include <span>
#include <vector>

namespace kiln::vk {

/// The float-control execution modes to add, per float width.
struct FloatControls {
    bool denorm_preserve32 = false, denorm_preserve64 = false;
    bool nan_preserve32 = false, nan_preserve64 = false;  ///< SignedZeroInfNanPreserve
    bool any() const { return denorm_preserve32 || denorm_preserve64 || nan_preserve32 || nan_preserve64; }
};

/// The module with the asked execution modes on every GLCompute entry point
/// (the 64-bit ones only where the module declares Float64), their
/// capabilities, and the extension where the module's SPIR-V version
/// predates 1.4. Modes the module already has are not repeated. Throws
/// kiln::InvalidArgument for words that are not a SPIR-V module.
std::vector<uint32_t> with_float_controls(std::span<const uint32_t> spirv, const FloatControls& fc);

} // namespace kiln::vk
