#pragma once
// Bitshuffle and bitshuffle-LZ4: the chunk format of HDF5 filter 32008, which
// Eiger and Jungfrau detectors write. The decoder here is the reference the
// GPU decompressor mirrors, so it parses the format explicitly (headers, then
// independent blocks) and checks every length before it reads or writes.
//
// Chunk layout (all integers big-endian):
//   uint64 uncompressed size in bytes
//   uint32 block size in bytes (a multiple of 8 elements; 0 means the default)
//   for each block: uint32 compressed length, then that many bytes of an LZ4
//                   block holding the bit-shuffled block
//   the trailing (elements % 8) elements, copied raw (neither shuffled nor
//   compressed)
// Blocks hold block-size elements each, except the last, which holds the
// remaining elements rounded down to a multiple of 8.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// How a chunk of one frame is stored: bitshuffle-LZ4 compressed, or raw (the
/// frame's bytes as they are, e.g. an HDF5 chunk whose filter mask says its
/// bitshuffle filter was skipped).
enum class ChunkCoding : uint8_t { bslz4, raw };

/// Bit-transposes the elements of `data` as one bitshuffle block: bit r of
/// element i goes to bit r * n + i of the output (bytes filled from their least
/// significant bit), where n is the element count rounded down to a multiple of
/// 8. Trailing elements beyond n are copied unchanged, as the format stores
/// them. Throws InvalidArgument if elem_size is 0 or does not divide the size.
std::vector<uint8_t> bitshuffle(std::span<const uint8_t> data, size_t elem_size);

/// Inverse of bitshuffle() for the same element size.
std::vector<uint8_t> bitunshuffle(std::span<const uint8_t> data, size_t elem_size);

/// Block size in elements that the bitshuffle library picks when given 0:
/// about 8 KiB of data, a multiple of 8 elements, at least 128 elements.
size_t bslz4_default_block_size(size_t elem_size);

/// Compresses `data` (elements of elem_size bytes) into one bitshuffle-LZ4
/// chunk, byte for byte what the HDF5 plugin writes for the same input, block
/// size and liblz4. block_size is in elements (0: bslz4_default_block_size) and
/// must be a multiple of 8. Throws InvalidArgument for a bad element or block
/// size.
std::vector<uint8_t> bslz4_compress(std::span<const uint8_t> data, size_t elem_size, size_t block_size = 0);

/// One unit of decompression work in a chunk, as the GPU decoder launches
/// them: an LZ4 block, or (raw == true) the trailing elements stored as is.
struct BslzBlock {
    uint64_t src_offset;  ///< first byte of the LZ4 data (after its length) in the chunk
    uint32_t src_size;    ///< compressed bytes
    uint64_t dst_offset;  ///< first byte of the block in the uncompressed output
    uint32_t dst_size;    ///< uncompressed bytes
    bool raw = false;     ///< trailing elements: copy src to dst, no LZ4, no unshuffle
};

/// Uncompressed size in bytes that a chunk's header announces. Throws IoError
/// naming what_for_errors if the chunk is shorter than its 12-byte header.
uint64_t bslz4_uncompressed_size(std::span<const uint8_t> chunk, const std::string& what_for_errors);

/// Parses a chunk's headers into its blocks, in order, checking that they
/// tile the chunk exactly. Throws IoError naming what_for_errors (e.g.
/// "frame 12") and the problem for a truncated or corrupt chunk.
std::vector<BslzBlock> bslz4_blocks(std::span<const uint8_t> chunk, size_t elem_size,
                                    const std::string& what_for_errors);

/// Decompresses one chunk into `out`, whose size must be the uncompressed size
/// the chunk announces. Uses kiln's own LZ4 block decoder. Throws IoError
/// naming what_for_errors for any truncated or corrupt input; never reads or
/// writes out of bounds.
void bslz4_decompress(std::span<const uint8_t> chunk, size_t elem_size, std::span<uint8_t> out,
                      const std::string& what_for_errors);

/// Decodes one LZ4 block (the raw block format, no frame header) into `dst`,
/// which it must fill exactly. Throws IoError starting with what_for_errors on
/// malformed input or a size mismatch.
void lz4_decode_block(std::span<const uint8_t> src, std::span<uint8_t> dst,
                      const std::string& what_for_errors);

}  // namespace kiln
#pragma GCC visibility pop
