// libFuzzer harness: the bitshuffle-LZ4 chunk parser and CPU decoder (the
// GPU decoder's host side walks the same headers) on arbitrary bytes. The
// first byte picks the element size; the rest is the chunk. Chunks that
// declare more than 64 MiB are refused by size alone, as a reader would.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kiln/bslz4_host.hpp"
#include "kiln/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    static constexpr size_t elem_sizes[4] = {1, 2, 4, 8};
    const size_t elem = elem_sizes[data[0] & 3];
    const std::span<const uint8_t> chunk(data + 1, size - 1);
    try {
        const uint64_t n = kiln::bslz4_uncompressed_size(chunk, "fuzz chunk");
        if (n > (64u << 20)) return 0;
        (void)kiln::bslz4_blocks(chunk, elem, "fuzz chunk");
        std::vector<uint8_t> out(n);
        kiln::bslz4_decompress(chunk, elem, out, "fuzz chunk");
    } catch (const kiln::Error&) {
    }
    return 0;
}
