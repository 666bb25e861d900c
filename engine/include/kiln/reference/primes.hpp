#pragma once
// CPU references for the primes lesson: the GPU kernel's naive algorithm, and
// a sieve for when the primes themselves are wanted.
#include <cstdint>
#include <vector>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// Primes below upper, in increasing order, by trial division of each n by
/// 2..floor(sqrt(n)), one independent test per number as the lesson's kernel
/// runs one invocation per number. Empty for upper <= 2.
std::vector<uint32_t> primes_trial_division(uint32_t upper);

/// Primes below upper, in increasing order, by the sieve of Eratosthenes.
/// Empty for upper <= 2.
std::vector<uint32_t> primes_sieve(uint32_t upper);

} // namespace kiln::cpu
#pragma GCC visibility pop
