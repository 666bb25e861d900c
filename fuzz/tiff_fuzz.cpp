// libFuzzer harness: the TIFF reader (kiln's checks of what a file declares,
// then libtiff) on arbitrary bytes.
#include "kiln/io.hpp"
#include "parse_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return kiln::fuzz::parse_bytes(kiln::io::parse_tiff, data, size, "fuzz.tif");
}
