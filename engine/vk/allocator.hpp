#pragma once
// kiln's sub-allocator: device memory is taken from Vulkan in large blocks,
// each bound to one VkBuffer, and handed out as aligned ranges of it. Freed
// ranges are merged and reused; a block that empties is returned.
#include <vulkan/vulkan.h>

#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "kiln/device.hpp"

namespace kiln::vk {

class Device;

enum class MemoryUsage {
    device,   ///< arrays: device-local
    staging,  ///< transfers: host-visible, coherent, cached where possible
    host,     ///< pinned host memory handed to the application (PinnedBuffer)
};

struct Block;

/// A range of a block. A default-constructed Allocation is empty.
struct Allocation {
    Block* block = nullptr;
    VkDeviceSize offset = 0;
    VkDeviceSize size = 0;

    explicit operator bool() const { return block != nullptr; }
    VkBuffer buffer() const;
    /// Host address of the range, or nullptr if the memory is not host-visible.
    std::byte* mapped() const;
    bool host_coherent() const;
    VkDeviceMemory memory() const;
};

struct Block {
    /// Unique per allocator over its life (a new block may reuse a freed
    /// one's address and handles): what may key objects bound to the buffer.
    uint64_t serial = 0;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    std::byte* mapped = nullptr;
    VkDeviceSize size = 0;
    VkDeviceSize used = 0;
    uint32_t type = 0;
    uint32_t heap = 0;
    bool coherent = false;
    MemoryUsage usage = MemoryUsage::device;
    std::map<VkDeviceSize, VkDeviceSize> free;  // offset -> size, merged
};

class Allocator {
public:
    /// `map_device`: whether device-usage blocks in host-visible memory are
    /// mapped (off when a context emulates a discrete GPU).
    Allocator(const Device& device, VkDeviceSize block_size, bool map_device = true);
    ~Allocator();
    Allocator(const Allocator&) = delete;
    Allocator& operator=(const Allocator&) = delete;

    /// An aligned range of at least `size` bytes; throws kiln::Error with the
    /// size asked and the memory in use when the device is out of memory.
    Allocation allocate(VkDeviceSize size, MemoryUsage usage);
    void free(const Allocation& a);

    MemoryStats stats() const;
    /// The pinned-host allocation range holding [p, p + bytes), if any:
    /// transfers from such memory need no host copy.
    bool find_host(const void* p, size_t bytes, VkBuffer& buffer, VkDeviceSize& offset) const;
    VkDeviceSize alignment() const { return alignment_; }
    /// Whether arrays live in mapped host-visible memory (UMA devices,
    /// lavapipe), unless device blocks are not mapped.
    bool device_memory_mappable() const;

private:
    Block* new_block(VkDeviceSize size, MemoryUsage usage);
    void release_block(Block* b);
    void destroy_block(Block* b);
    void release_empty_blocks();
    uint32_t pick_type(MemoryUsage usage) const;

    const Device& device_;
    VkDeviceSize block_size_;
    bool map_device_;
    VkDeviceSize alignment_;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<Block>> blocks_;
    std::vector<uint64_t> heap_in_use_, heap_peak_;
    uint64_t peak_ = 0;
    uint32_t allocations_ = 0;
    uint64_t blocks_made_ = 0;
};

/// An allocation owned: returned to its allocator when this goes (the
/// allocator must outlive it). Move-only; empty when default-constructed.
class UniqueAllocation {
public:
    UniqueAllocation() = default;
    /// Allocates `size` bytes of `usage` (Allocator::allocate).
    UniqueAllocation(Allocator& allocator, VkDeviceSize size, MemoryUsage usage)
        : allocator_(&allocator), allocation_(allocator.allocate(size, usage)) {}
    ~UniqueAllocation() { reset(); }
    UniqueAllocation(UniqueAllocation&& o) noexcept
        : allocator_(o.allocator_), allocation_(std::exchange(o.allocation_, Allocation{})) {}
    UniqueAllocation& operator=(UniqueAllocation&& o) noexcept {
        if (this != &o) {
            reset();
            allocator_ = o.allocator_;
            allocation_ = std::exchange(o.allocation_, Allocation{});
        }
        return *this;
    }
    UniqueAllocation(const UniqueAllocation&) = delete;
    UniqueAllocation& operator=(const UniqueAllocation&) = delete;

    const Allocation* operator->() const { return &allocation_; }
    explicit operator bool() const { return static_cast<bool>(allocation_); }
    /// Returns the memory to the allocator now.
    void reset() {
        if (allocation_) allocator_->free(allocation_);
        allocation_ = {};
    }

private:
    Allocator* allocator_ = nullptr;
    Allocation allocation_;
};

} // namespace kiln::vk
