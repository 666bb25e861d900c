#pragma once
// Masks for labelling and per-label measurements (random ones at a chosen
// density, the worst cases of a union-find: chains that run around or
// across the whole image) and the exact check of label() against the CPU
// reference. Shared by the op tests and the stress tests.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "support.hpp"

namespace kiln::test {

/// Labels on the GPU into memory left poisoned (an element the labelling
/// fails to write shows), requires kiln::cpu::label's count and labels
/// exactly, and returns the count.
int32_t require_label_same(const Context& ctx, const HostArray& mask, int connectivity);

/// Nonzero (1, 2 or 3, varying by index) with probability `density`, else
/// zero, in dtype t.
HostArray random_mask(Shape shape, DType t, double density, uint64_t seed);

/// A uint8 ny x nx mask, 1 where f(y, x).
HostArray from_rows(size_t ny, size_t nx, const std::function<bool(size_t, size_t)>& f);

/// A one-pixel-wide square spiral with one-pixel gaps in an n x n uint8
/// mask: one component whose union-find chains run around the whole image.
HostArray spiral(size_t n);

/// Every even row full, joined at alternate ends by one pixel of the odd
/// row between: one component (for 4 and 8 connectivity) that crosses the
/// image ny / 2 times.
HostArray serpentine(size_t ny, size_t nx);

/// 1 where y + x is even: every pixel alone with 4 connectivity, one
/// component with 8.
HostArray checkerboard(size_t ny, size_t nx);

}  // namespace kiln::test
