// libFuzzer harness: the NPY reader on arbitrary bytes. Any kiln::Error is
// an accepted refusal; a crash, a sanitizer report or a hang is a bug.
#include <cstddef>
#include <cstdint>
#include <span>

#include "kiln/error.hpp"
#include "kiln/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const kiln::HostArray a =
            kiln::io::parse_npy(std::span(reinterpret_cast<const std::byte*>(data), size), "fuzz.npy");
        // What it returns must be consistent: the bytes its shape and dtype say.
        if (a.nbytes() != kiln::byte_size(a.shape, a.dtype)) __builtin_trap();
    } catch (const kiln::Error&) {
    }
    return 0;
}
