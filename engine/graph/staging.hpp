#pragma once
// A ring of host-visible memory for transfers. Slices are handed out in
// order and come back when the submission that used them has finished.
#include <deque>

#include "vk/allocator.hpp"

namespace kiln::detail {

struct Slice {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;  // within buffer
    VkDeviceSize size = 0;
    std::byte* mapped = nullptr;
    explicit operator bool() const { return buffer != VK_NULL_HANDLE; }
};

class StagingRing {
public:
    StagingRing(vk::Allocator& allocator, VkDeviceSize size);
    StagingRing(const StagingRing&) = delete;
    StagingRing& operator=(const StagingRing&) = delete;

    /// A slice of `size` bytes (at most capacity()) that the submission
    /// `serial` will use, or an empty slice when the ring is full.
    Slice allocate(VkDeviceSize size, uint64_t serial);
    /// Returns the slices of submissions up to `completed`.
    void release(uint64_t completed);
    /// A slice allocated with serial `held` stays until done() is called
    /// (pulls read it after its submission has finished).
    static constexpr uint64_t held = ~0ull;
    void done(const Slice& s);
    VkDeviceSize capacity() const { return alloc_->size; }

private:
    struct Region {
        VkDeviceSize begin, end;
        uint64_t serial;
    };
    vk::Allocator& allocator_;
    vk::UniqueAllocation alloc_;
    std::deque<Region> regions_;  // oldest first
};

} // namespace kiln::detail
