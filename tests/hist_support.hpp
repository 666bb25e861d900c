#pragma once
// The exact check of the GPU histogram against kiln::cpu::histogram; shared
// by the op tests and the stress tests.
#include <optional>
#include <utility>

#include "support.hpp"

namespace kiln::test {

/// histogram() on the GPU and cpu::histogram agree exactly: counts, and
/// edges bit for bit.
void check_histogram(const Context& ctx, const HostArray& h, int bins,
                     std::optional<std::pair<double, double>> range);

}  // namespace kiln::test
