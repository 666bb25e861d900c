#pragma once
// The built-in kernels' SPIR-V, embedded at build time (cmake/shaders.cmake
// writes the registry, in the order of shaders::KernelId).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace kiln::shaders {

struct Entry {
    std::string_view name;
    std::span<const uint32_t> code;
};
extern const Entry registry[];
extern const size_t registry_size;

}  // namespace kiln::shaders
