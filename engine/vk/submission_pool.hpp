#pragma once
// The Vulkan objects a submission uses and gives back once it has finished:
// command buffers, fences and timestamp query pools, kept for the next
// submissions (creating a fence or query pool costs the driver far more
// than reusing one). Not locked: its owner calls it under the context's lock.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "vk/handle.hpp"

namespace kiln::vk {

/// A timestamp query pool and the number of queries it holds.
struct TimestampPool {
    QueryPool pool;
    uint32_t capacity = 0;
    explicit operator bool() const { return static_cast<bool>(pool); }
};

class SubmissionPool {
public:
    /// Command buffers come from `commands`, which must outlive the pool.
    SubmissionPool(VkDevice device, VkCommandPool commands) : device_(device), commands_(commands) {}

    /// A primary command buffer (vkBeginCommandBuffer resets a reused one).
    CommandBuffer command_buffer();
    /// An unsignalled fence.
    Fence fence();
    /// The smallest free pool of at least `count` timestamp queries, else a
    /// new one with room to spare for the next, larger graphs. Its queries
    /// are to be reset before use.
    TimestampPool timestamps(uint32_t count);
    /// Takes back the objects of a finished (or never submitted) submission,
    /// a few of each at most; the others are destroyed.
    void recycle(CommandBuffer cmd, Fence fence, TimestampPool queries);

private:
    static constexpr size_t keep = 16;  // objects kept of each kind
    VkDevice device_;
    VkCommandPool commands_;
    std::vector<CommandBuffer> cmds_;
    std::vector<Fence> fences_;
    std::vector<TimestampPool> queries_;
};

}  // namespace kiln::vk
