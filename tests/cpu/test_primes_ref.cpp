// Both CPU prime finders against known values of the prime-counting function
// and against each other.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kiln/reference/primes.hpp"

TEST_CASE("primes below small bounds", "[cpu][primes]") {
    const std::vector<uint32_t> below_30{2, 3, 5, 7, 11, 13, 17, 19, 23, 29};
    CHECK(kiln::cpu::primes_trial_division(30) == below_30);
    CHECK(kiln::cpu::primes_sieve(30) == below_30);
    // The bound itself is excluded.
    CHECK(kiln::cpu::primes_sieve(29).back() == 23);
    CHECK(kiln::cpu::primes_trial_division(29).back() == 23);
    for (uint32_t upper : {0u, 1u, 2u}) {
        CHECK(kiln::cpu::primes_trial_division(upper).empty());
        CHECK(kiln::cpu::primes_sieve(upper).empty());
    }
    CHECK(kiln::cpu::primes_sieve(3) == std::vector<uint32_t>{2});
    CHECK(kiln::cpu::primes_trial_division(3) == std::vector<uint32_t>{2});
}

TEST_CASE("prime counts pi(10), pi(100), pi(100000)", "[cpu][primes]") {
    CHECK(kiln::cpu::primes_trial_division(10).size() == 4);
    CHECK(kiln::cpu::primes_sieve(10).size() == 4);
    CHECK(kiln::cpu::primes_trial_division(100).size() == 25);
    CHECK(kiln::cpu::primes_sieve(100).size() == 25);
    const auto trial = kiln::cpu::primes_trial_division(100000);
    const auto sieve = kiln::cpu::primes_sieve(100000);
    CHECK(trial.size() == 9592);
    CHECK(sieve.size() == 9592);
    CHECK(trial == sieve);
    CHECK(sieve.back() == 99991); // the largest prime below 10^5
}

TEST_CASE("primes near squares of primes", "[cpu][primes]") {
    // Squares of primes are where an off-by-one in the divisor bound shows.
    for (uint32_t upper : {26u, 50u, 122u, 170u, 290u, 362u, 530u, 962u, 1370u}) {
        INFO("upper " << upper);
        CHECK(kiln::cpu::primes_trial_division(upper) == kiln::cpu::primes_sieve(upper));
    }
    const auto p = kiln::cpu::primes_sieve(1000);
    for (uint32_t sq : {4u, 9u, 25u, 49u, 121u, 169u, 289u, 361u, 529u, 961u})
        CHECK(std::find(p.begin(), p.end(), sq) == p.end());
}
