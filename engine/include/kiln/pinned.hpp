#pragma once
// Pinned host memory: allocated by kiln from Vulkan, host-visible, so a push
// from it or a pull into it is a single DMA with no host copy (CUDA's pinned
// memory, cupyx.empty_pinned). Pageable memory goes through the staging ring.
#include <cstddef>
#include <memory>
#include <span>

#include "kiln/context.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

class PinnedBuffer {
public:
    PinnedBuffer();
    /// `bytes` of pinned host memory from the context's device.
    PinnedBuffer(const Context& ctx, size_t bytes);
    ~PinnedBuffer();
    PinnedBuffer(PinnedBuffer&&) noexcept;
    PinnedBuffer& operator=(PinnedBuffer&&) noexcept;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    std::byte* data() const { return data_; }
    size_t size() const { return size_; }
    template <typename T> std::span<T> as() const {
        return {reinterpret_cast<T*>(data_), size_ / sizeof(T)};
    }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::byte* data_ = nullptr;
    size_t size_ = 0;
};

} // namespace kiln
#pragma GCC visibility pop
