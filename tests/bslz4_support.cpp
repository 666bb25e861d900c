#include "bslz4_support.hpp"

#include <random>

#include "kiln/bslz4_host.hpp"

namespace kiln::test {

std::span<const uint8_t> bytes_of(const HostArray& a) {
    return {reinterpret_cast<const uint8_t*>(a.data()), a.nbytes()};
}

std::vector<uint8_t> compress(const HostArray& a, size_t block_size) {
    return kiln::bslz4_compress(bytes_of(a), dtype_size(a.dtype), block_size);
}

HostArray poisson(Shape shape, DType t, double mean, uint32_t seed) {
    std::mt19937 rng(seed);
    std::poisson_distribution<int> pd(mean);
    HostArray a(shape, t);
    visit_dtype(t, [&](auto z) {
        using T = decltype(z);
        for (auto& x : a.as<T>()) x = T(pd(rng));
    });
    return a;
}

void require_same_bytes(const HostArray& got, const HostArray& want) {
    REQUIRE(got.nbytes() == want.nbytes());
    size_t first = got.nbytes();
    for (size_t i = 0; i < got.nbytes() && first == got.nbytes(); ++i)
        if (bytes_of(got)[i] != bytes_of(want)[i]) first = i;
    INFO("first differing byte " << first << " of " << got.nbytes());
    REQUIRE(first == got.nbytes());
}

}  // namespace kiln::test
