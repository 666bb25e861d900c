#pragma once
// splitmix64: the seeded generator step behind kiln's synthetic data (the
// sky, the samples' frames, test and benchmark inputs).
#include <cstdint>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Advances `state` and returns the next 64 random bits (Steele, Lea and
/// Flood's SplittableRandom mix).
inline uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// A double uniform in [0, 1) from the top 53 of the next 64 bits.
inline double uniform01(uint64_t& state) { return double(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0); }

}  // namespace kiln
#pragma GCC visibility pop
