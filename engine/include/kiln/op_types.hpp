#pragma once
// Operation selectors shared by the GPU ops (kiln/elementwise.hpp) and their
// CPU references (engine/cpu/), which must not include the GPU layers.

namespace kiln {

enum class BinaryOp { add, subtract, multiply, divide, minimum, maximum };
enum class CompareOp { equal, not_equal, less, less_equal, greater, greater_equal };

} // namespace kiln
