#pragma once
// Operation selectors shared by the GPU ops (kiln/elementwise.hpp) and their
// CPU references (engine/cpu/), which must not include the GPU layers.

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

enum class BinaryOp { add, subtract, multiply, divide, minimum, maximum };
enum class CompareOp { equal, not_equal, less, less_equal, greater, greater_equal };

/// How an operation accumulates sums (reductions, azimuthal integration).
enum class Accumulation {
    automatic,    ///< float64 where the device has shaderFloat64, else compensated float32
    float64,      ///< double-precision sums (Unsupported without shaderFloat64)
    compensated,  ///< float32 with compensation (Kahan/Neumaier or hi+lo pairs), even where float64 exists
};

} // namespace kiln
#pragma GCC visibility pop
