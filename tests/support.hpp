#pragma once
// Shared GPU test helpers: a validated context and poisoned outputs; the
// CPU-only ones (random data, comparisons) come from cpu_support.hpp.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/kiln.hpp"

namespace kiln::test {

/// A context on lavapipe or the GPU with validation on; messages are
/// collected and fail the test process (see main.cpp).
Context context(ContextOptions options = {});
std::vector<std::string> validation_messages();

/// An array whose every byte is 0xCD: elements an op fails to write show.
Array poisoned(const Context& ctx, Shape shape, DType t);

/// Leaves a freed block of 0xCD bytes of that shape and dtype for the next
/// allocation to reuse, so an element an op fails to write shows as garbage.
void poison_pool(const Context& ctx, Shape shape, DType t);

} // namespace kiln::test
