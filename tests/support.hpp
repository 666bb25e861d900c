#pragma once
// Shared test helpers: a validated context, random data with fixed seeds,
// poisoned outputs, comparisons with dtype-aware tolerances.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/kiln.hpp"

namespace kiln::test {

/// A context on lavapipe or the GPU with validation on; messages are
/// collected and fail the test process (see main.cpp).
Context context(ContextOptions options = {});
std::vector<std::string> validation_messages();

/// Random values of dtype t (floats in [lo, hi), integers over [lo, hi]).
HostArray random(Shape shape, DType t, uint64_t seed, double lo = -100, double hi = 100);

/// An array whose every byte is 0xCD: elements an op fails to write show.
Array poisoned(const Context& ctx, Shape shape, DType t);

/// Element-wise comparison: exact for integers, relative+absolute for floats;
/// NaN equals NaN. Reports the first mismatches.
void require_close(const HostArray& got, const HostArray& want, double rtol = 1e-6, double atol = 0);

} // namespace kiln::test
