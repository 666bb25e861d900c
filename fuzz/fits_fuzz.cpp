// libFuzzer harness: the FITS reader (kiln's header and tile checks, then
// cfitsio) on arbitrary bytes written to a file. Any kiln::Error is an
// accepted refusal; a crash, a sanitizer report, a hang or an allocation
// beyond libFuzzer's limit is a bug, in kiln's checks when cfitsio is the
// one that fails (they exist to refuse what cfitsio cannot read safely).
#include <cstddef>
#include <cstdint>

#include "kiln/error.hpp"
#include "kiln/io.hpp"
#include "temp_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string& path = kiln::fuzz::temp_path(".fits");
    kiln::fuzz::write_file(path, data, size);
    try {
        const kiln::HostArray a = kiln::io::read_fits(path);
        if (a.nbytes() != kiln::byte_size(a.shape, a.dtype)) __builtin_trap();
    } catch (const kiln::Error&) {
    }
    try {
        for (const std::string& name : kiln::io::fits_image_extensions(path)) {
            const kiln::HostArray a = kiln::io::read_fits(path, name);
            if (a.nbytes() != kiln::byte_size(a.shape, a.dtype)) __builtin_trap();
        }
    } catch (const kiln::Error&) {
    }
    return 0;
}
