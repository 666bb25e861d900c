#pragma once
// The body of the harnesses of readers that parse bytes in memory (NPY, PNG,
// TIFF): any kiln::Error is an accepted refusal; an array whose bytes are not
// what its shape and dtype say traps, and a crash, a sanitizer report, a hang
// or an allocation past libFuzzer's limit is a bug.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "kiln/error.hpp"
#include "kiln/host_array.hpp"

namespace kiln::fuzz {

template <typename Parse>
int parse_bytes(Parse parse, const uint8_t* data, size_t size, const std::string& name) {
    try {
        const HostArray a = parse(std::span(reinterpret_cast<const std::byte*>(data), size), name);
        if (a.nbytes() != byte_size(a.shape, a.dtype)) __builtin_trap();
    } catch (const Error&) {
    }
    return 0;
}

}  // namespace kiln::fuzz
