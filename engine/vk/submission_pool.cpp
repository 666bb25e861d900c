#include "vk/submission_pool.hpp"

#include <algorithm>
#include <bit>

#include "vk/check.hpp"

namespace kiln::vk {

CommandBuffer SubmissionPool::command_buffer() {
    if (!cmds_.empty()) {
        CommandBuffer cmd = std::move(cmds_.back());
        cmds_.pop_back();
        return cmd;
    }
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = commands_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    check(vkAllocateCommandBuffers(device_, &ai, &cmd), "vkAllocateCommandBuffers");
    return CommandBuffer(device_, commands_, cmd);
}

Fence SubmissionPool::fence() {
    if (!fences_.empty()) {
        Fence f = std::move(fences_.back());
        fences_.pop_back();
        return f;
    }
    Fence f;
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vkCreateFence(device_, &fci, nullptr, f.put(device_)), "vkCreateFence");
    return f;
}

TimestampPool SubmissionPool::timestamps(uint32_t count) {
    auto best = queries_.end();
    for (auto it = queries_.begin(); it != queries_.end(); ++it)
        if (it->capacity >= count && (best == queries_.end() || it->capacity < best->capacity)) best = it;
    if (best != queries_.end()) {
        TimestampPool q = std::move(*best);
        queries_.erase(best);
        return q;
    }
    TimestampPool q;
    VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qci.queryCount = std::max<uint32_t>(std::bit_ceil(count), 16);
    check(vkCreateQueryPool(device_, &qci, nullptr, q.pool.put(device_)), "vkCreateQueryPool");
    q.capacity = qci.queryCount;
    return q;
}

void SubmissionPool::recycle(CommandBuffer cmd, Fence fence, TimestampPool queries) {
    if (cmd && cmds_.size() < keep) cmds_.push_back(std::move(cmd));
    if (fence && fences_.size() < keep && vkResetFences(device_, 1, fence.address()) == VK_SUCCESS)
        fences_.push_back(std::move(fence));
    if (queries && queries_.size() < keep) queries_.push_back(std::move(queries));
}

}  // namespace kiln::vk
