#pragma once
// Frames for the bitshuffle-LZ4 decoders, their chunks and a byte-exact
// comparison; shared by the op tests and the stress tests.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "support.hpp"

namespace kiln::test {

/// The array's bytes.
std::span<const uint8_t> bytes_of(const HostArray& a);

/// One bitshuffle-LZ4 chunk of the array (kiln::bslz4_compress; block_size in
/// elements, 0 for the format's default).
std::vector<uint8_t> compress(const HostArray& a, size_t block_size = 0);

/// Detector-like counts: mostly small Poisson values, so high bit planes are
/// long runs of zeros (long overlapping matches) and low ones near-random.
HostArray poisson(Shape shape, DType t, double mean, uint32_t seed);

/// The same byte size and bytes; reports the first differing byte.
void require_same_bytes(const HostArray& got, const HostArray& want);

}  // namespace kiln::test
