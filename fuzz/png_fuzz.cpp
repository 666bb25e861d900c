// libFuzzer harness: the PNG reader (stb_image behind kiln's checks) on
// arbitrary bytes.
#include "kiln/io.hpp"
#include "parse_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return kiln::fuzz::parse_bytes(kiln::io::parse_png, data, size, "fuzz.png");
}
