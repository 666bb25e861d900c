#include "kiln/reference/primes.hpp"

namespace kiln::cpu {
namespace {

// Same test as the GPU kernel, so the two can be compared number by number.
// d * d <= n is computed in 64 bits so n near 2^32 cannot overflow it.
bool is_prime_by_trial_division(uint32_t n) {
    if (n < 2) return false;
    for (uint64_t d = 2; d * d <= n; ++d)
        if (n % d == 0) return false;
    return true;
}

} // namespace

std::vector<uint32_t> primes_trial_division(uint32_t upper) {
    std::vector<uint32_t> primes;
    for (uint32_t n = 2; n < upper; ++n)
        if (is_prime_by_trial_division(n)) primes.push_back(n);
    return primes;
}

std::vector<uint32_t> primes_sieve(uint32_t upper) {
    std::vector<uint32_t> primes;
    if (upper <= 2) return primes;
    std::vector<bool> composite(upper, false);
    for (uint64_t p = 2; p < upper; ++p) {
        if (composite[p]) continue;
        primes.push_back(static_cast<uint32_t>(p));
        // Smaller multiples of p were struck out by smaller primes already.
        for (uint64_t m = p * p; m < upper; m += p) composite[m] = true;
    }
    return primes;
}

} // namespace kiln::cpu
