#pragma once
// Shared pieces of the stress tests ("[stress]"): cases that hunt races in
// kernels whose workgroups communicate (atomics, union-find, the last
// workgroup finishing, counters left zero for the next call). On lavapipe
// few workgroups run at once, so the suite runs them small and once; on a
// GPU, run them many times and larger:
//
//   KILN_STRESS_REPEAT=50 KILN_STRESS_SCALE=8 kiln_tests "[stress]"
//
// KILN_STRESS_REPEAT (default 1): every case runs its whole body that many
// times, each repetition with fresh seeds: a base per generator plus the
// repetition (times a stride where a generator takes several seeds in a
// row), and single pixels, holes and NaN moved to new places.
// KILN_STRESS_SCALE (default 1): multiplies the extents each case scales
// (both sides of an image, the length of a 1-D array), so a GPU gets many
// workgroups; some counts stay fixed where the case is about them (e.g. the
// 2^20 elements at which selection changes path).
#include <cstddef>
#include <cstdint>
#include <functional>

#include "label_support.hpp"
#include "support.hpp"

namespace kiln::test::stress {

/// KILN_STRESS_REPEAT, at least 1; throws InvalidArgument for anything
/// other than a positive integer.
uint64_t repeat_count();

/// KILN_STRESS_SCALE, at least 1; throws InvalidArgument as repeat_count().
size_t scale();

/// An extent of a case: n * scale().
size_t scaled(size_t n);

/// Runs body(repetition) repeat_count() times; failures name the repetition.
void repeat(const std::function<void(uint64_t)>& body);

/// 2-D worst cases for labelling beyond label_support.hpp's (uint8, 1 for
/// foreground):

/// Columns at even x over the whole height, joined only by the bottom row:
/// one component whose columns find each other at the far end of the image
/// from their roots (the first row).
HostArray comb(size_t ny, size_t nx);

/// Single pixels every `step` rows and columns from (0, 0): for step >= 2,
/// ceil(ny / step) * ceil(nx / step) components of one pixel with 4 and 8
/// connectivity alike.
HostArray dots(size_t ny, size_t nx, size_t step);

/// One foreground element at flat index i.
HostArray one_pixel(Shape shape, size_t i);

/// Everything foreground.
HostArray full(Shape shape);

/// 3-D: a serpentine in every even slab, joined through the odd slab
/// between by one voxel at alternate ends: one component for 6, 18 and 26
/// connectivity (ny odd).
HostArray serpentine_3d(size_t nz, size_t ny, size_t nx);

/// 3-D: 1 where z + y + x is even: every voxel alone with 6 connectivity,
/// one component with 18 and 26.
HostArray checkerboard_3d(size_t nz, size_t ny, size_t nx);

}  // namespace kiln::test::stress
