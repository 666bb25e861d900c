#pragma once
// The marker watershed, the CPU reference for the GPU relaxation.
#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// kiln::watershed's rule (kiln/watershed.hpp) computed another way: F by a
/// priority-queue flood (Dijkstra with the largest value on the path as the
/// cost), then labels by a queue ordered by label, so the smallest label
/// reaches each element first along edges to its least-F neighbours. A
/// default-constructed mask (no shape) means everywhere. Image values compare as
/// doubles (any dtype; NaN is not ordered: keep it out). int32 labels.
/// Throws InvalidArgument for shapes that differ, a rank outside 1-3 or a
/// connectivity outside 1..ndim.
HostArray watershed(const HostArray& image, const HostArray& markers, const HostArray& mask,
                    int connectivity = 1);

}  // namespace kiln::cpu
#pragma GCC visibility pop
