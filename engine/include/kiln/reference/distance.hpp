#pragma once
// The exact Euclidean distance transform, the CPU reference for the GPU passes.
#include <vector>

#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// scipy.ndimage.distance_transform_edt(input, sampling) with
/// kiln::distance_transform_edt's arguments and checks: squared distances
/// in float64 (per axis, each line's minimum taken over every element of the
/// line: O(N * extent), for tests), then sqrt rounded to `result`.
HostArray distance_transform_edt(const HostArray& input, const std::vector<double>& sampling = {},
                                 DType result = DType::float32);

}  // namespace kiln::cpu
#pragma GCC visibility pop
