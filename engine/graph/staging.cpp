#include "graph/staging.hpp"

namespace kiln::detail {

StagingRing::StagingRing(vk::Allocator& allocator, VkDeviceSize size)
    : allocator_(allocator), alloc_(allocator, size, vk::MemoryUsage::staging) {}

Slice StagingRing::allocate(VkDeviceSize size, uint64_t serial) {
    const VkDeviceSize a = allocator_.alignment();
    size = (size + a - 1) / a * a;
    if (size > alloc_->size) return {};
    VkDeviceSize begin;
    if (regions_.empty()) {
        begin = 0;
    } else {
        VkDeviceSize head = regions_.back().end, tail = regions_.front().begin;
        if (head > tail) {
            // Free space is [head, capacity) and [0, tail).
            if (head + size <= alloc_->size)
                begin = head;
            else if (size <= tail)
                begin = 0;
            else
                return {};
        } else {
            // Wrapped: free space is [head, tail).
            if (head + size <= tail)
                begin = head;
            else
                return {};
        }
    }
    regions_.push_back({begin, begin + size, serial});
    return {alloc_->buffer(), alloc_->offset + begin, size, alloc_->mapped() + begin};
}

void StagingRing::done(const Slice& s) {
    for (auto& r : regions_)
        if (alloc_->offset + r.begin == s.offset) r.serial = 0;
}

void StagingRing::release(uint64_t completed) {
    while (!regions_.empty() && regions_.front().serial <= completed) regions_.pop_front();
}

} // namespace kiln::detail
