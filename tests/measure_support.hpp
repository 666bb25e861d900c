#pragma once
// Checks of the per-label measurements against kiln::cpu::measure and the
// images they are made on; shared by the op tests and the stress tests.
#include <cstdint>
#include <span>
#include <vector>

#include "kiln/measure.hpp"
#include "support.hpp"

namespace kiln::test {

/// Integer results exactly; sums to rtol of their size (the GPU adds in
/// another order), the variance to rtol of the squared value range, the
/// std to sqrt(rtol) of the value range, centres of mass to rtol (NaN only
/// for NaN). Reports the first few differing entries field by field.
void require_stats(const std::vector<LabelStats>& got, const std::vector<LabelStats>& want, double rtol);

/// Measures on the GPU with both accumulators and requires the CPU's table;
/// also with every label reduced by workgroups, and by single invocations up
/// to 64 pixels (a GPU and a CPU driver pick one of these by default).
void require_measure_same(const Context& ctx, const HostArray& image, const HostArray& labels,
                          std::span<const int32_t> index = {});

/// Random positive values (the centre of mass is well conditioned), with
/// repeated values so min/max ties occur (integers: 0..24).
HostArray random_image(Shape shape, DType t, uint64_t seed);

}  // namespace kiln::test
