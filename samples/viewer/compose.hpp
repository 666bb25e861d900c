#pragma once
// compose.glsl, the picture's layout and colours, as C++: the names GLSL
// gives its built-ins mapped to the standard library's, so the CPU picture
// runs the very functions the GPU kernel runs.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace viewer::glsl {

using uint = std::uint32_t;
using std::clamp;
using std::isnan;
using std::log;
using std::max;
using std::min;

#define SHARED inline
#include "compose.glsl"
#undef SHARED

}  // namespace viewer::glsl
