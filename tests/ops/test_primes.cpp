// GPU primes (trial division, sieve, compaction) against the CPU references
// of engine/cpu/primes, including arrays split over several bindings.
#include "kiln/primes.hpp"
#include "kiln/reference/primes.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

std::vector<uint8_t> flags_of(const std::vector<uint32_t>& primes, uint32_t upper) {
    std::vector<uint8_t> f(upper, 0);
    for (uint32_t p : primes) f[p] = 1;
    return f;
}

} // namespace

TEST_CASE("prime flags by trial division and by the sieve match the CPU", "[ops][primes]") {
    Context ctx = test::context();
    for (uint32_t upper : {1u, 2u, 3u, 13u, 1031u, 100003u}) {
        INFO("upper " << upper);
        const std::vector<uint8_t> want = flags_of(cpu::primes_sieve(upper), upper);
        Array trial = prime_flags_trial_division(ctx, upper);
        CHECK(trial.dtype() == DType::uint8);
        CHECK(trial.size() == upper);
        CHECK(trial.to_vector<uint8_t>() == want);
        CHECK(prime_flags_sieve(ctx, upper).to_vector<uint8_t>() == want);
    }
}

TEST_CASE("lists of primes are compacted in order on the GPU", "[ops][primes]") {
    Context ctx = test::context();
    for (uint32_t upper : {0u, 2u, 3u, 4u, 100u, 1031u, 100000u}) {
        INFO("upper " << upper);
        const std::vector<uint32_t> want = cpu::primes_trial_division(upper);
        CHECK(primes_trial_division(ctx, upper) == want);
        CHECK(primes_sieve(ctx, upper) == want);
    }
    // Several segments and tiles, and a number of the form p * q near the end.
    CHECK(primes_sieve(ctx, 1000003) == cpu::primes_sieve(1000003));
    CHECK(primes_sieve(ctx, 1000003).size() == 78498);  // pi(10^6), a known value
}

TEST_CASE("flagged_numbers compacts any uint8 flags", "[ops][primes]") {
    Context ctx = test::context();
    HostArray h = test::random(Shape{7, 1031}, DType::uint8, 81, 0, 3);
    std::vector<uint32_t> want;
    for (size_t i = 0; i < h.size(); ++i)
        if (h.as<uint8_t>()[i]) want.push_back(static_cast<uint32_t>(i + 1000));
    CHECK(flagged_numbers(Array::from_host(ctx, h), 1000) == want);
    CHECK(flagged_numbers(Array::zeros(ctx, Shape{13}, DType::uint8)).empty());
}

TEST_CASE("primes over several bindings", "[ops][primes][large]") {
    ContextOptions o;
    o.max_binding_range = 4096;  // as if maxStorageBufferRange were 4 KiB
    Context ctx = test::context(o);
    const uint32_t upper = 20011;
    const std::vector<uint32_t> want = cpu::primes_sieve(upper);
    CHECK(prime_flags_trial_division(ctx, upper).to_vector<uint8_t>() == flags_of(want, upper));
    CHECK(prime_flags_sieve(ctx, upper).to_vector<uint8_t>() == flags_of(want, upper));
    // A list of up to ~2300 primes does not fit one 4 KiB binding; one of ~900 does.
    CHECK_THROWS_WITH(primes_sieve(ctx, upper), Catch::Contains("maxStorageBufferRange"));
    CHECK(primes_trial_division(ctx, 7001) == cpu::primes_sieve(7001));
    CHECK(primes_sieve(ctx, 7001) == cpu::primes_sieve(7001));
}

TEST_CASE("primes refuse bad input clearly", "[ops][primes][errors]") {
    Context ctx = test::context();
    CHECK_THROWS_WITH(prime_flags_trial_division(ctx, 0), Catch::Contains("upper = 0") && Catch::Contains(">= 1"));
    CHECK_THROWS_AS(prime_flags_sieve(ctx, 0), InvalidArgument);
    CHECK_THROWS_WITH(flagged_numbers(Array::zeros(ctx, Shape{4}, DType::int32)),
                      Catch::Contains("int32") && Catch::Contains("uint8"));
    CHECK_THROWS_AS(flagged_numbers(Array()), InvalidArgument);
    CHECK(primes_sieve(ctx, 30) == std::vector<uint32_t>{2, 3, 5, 7, 11, 13, 17, 19, 23, 29});
}
