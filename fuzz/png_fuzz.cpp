// libFuzzer harness: the PNG reader (stb_image behind kiln's checks) on
// arbitrary bytes. A kiln::Error is an accepted refusal.
#include <cstddef>
#include <cstdint>
#include <span>

#include "kiln/error.hpp"
#include "kiln/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const kiln::HostArray a =
            kiln::io::parse_png(std::span(reinterpret_cast<const std::byte*>(data), size), "fuzz.png");
        if (a.nbytes() != kiln::byte_size(a.shape, a.dtype)) __builtin_trap();
    } catch (const kiln::Error&) {
    }
    return 0;
}
