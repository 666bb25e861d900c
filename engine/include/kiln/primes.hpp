#pragma once
// Primes on the GPU: the CUDA lessons' one-invocation-per-number trial
// division, and a segmented sieve for real use. Each gives uint8 flags (lazy,
// like every op result) or the list of primes (compacted on the GPU, then
// pulled).
#include <cstdint>
#include <vector>

#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// uint8 flags of the numbers 0 .. upper - 1: 1 where the number is prime.
/// One invocation per number divides it by 2, 3, ... up to floor(sqrt(n)) (the
/// lessons' algorithm: simple, and slow for large upper). Throws
/// InvalidArgument for upper == 0.
Array prime_flags_trial_division(const Context& ctx, uint32_t upper);

/// The same flags from a segmented sieve of Eratosthenes: the primes up to
/// sqrt(upper) by trial division, then each workgroup strikes their multiples
/// out of a segment of numbers in shared memory.
Array prime_flags_sieve(const Context& ctx, uint32_t upper);

/// The primes below upper in increasing order: prime_flags_trial_division
/// compacted on the GPU, then pulled (waits for the GPU). Empty for upper <= 2.
/// The list is built in one buffer binding: Unsupported when it could exceed
/// the device's maxStorageBufferRange (upper beyond about 6e8 on lavapipe's
/// 128 MiB; every uint32 upper fits the H200's 4 GiB).
std::vector<uint32_t> primes_trial_division(const Context& ctx, uint32_t upper);

/// The primes below upper in increasing order, from prime_flags_sieve.
std::vector<uint32_t> primes_sieve(const Context& ctx, uint32_t upper);

/// The numbers base + i for which flags[i] is nonzero (uint8 flags, as the
/// functions above give), in increasing order, compacted on the GPU and
/// pulled. Throws InvalidArgument for flags that are not uint8, Unsupported
/// when flags.size() numbers would not fit one buffer binding.
std::vector<uint32_t> flagged_numbers(const Array& flags, uint32_t base = 0);

} // namespace kiln
#pragma GCC visibility pop
