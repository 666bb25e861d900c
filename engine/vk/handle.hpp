#pragma once
// Move-only owners of Vulkan objects: each destroys its object with its
// device when it goes, so a submission's command buffer, fence, query pool
// and descriptor pool are released on every path (recycled through a
// vk::SubmissionPool, or destroyed when its lists are full or the context
// goes).
#include <vulkan/vulkan.h>

#include <utility>

namespace kiln::vk {

template <typename T, void (*Destroy)(VkDevice, T, const VkAllocationCallbacks*)>
class Unique {
public:
    Unique() = default;
    Unique(VkDevice device, T handle) : device_(device), handle_(handle) {}
    ~Unique() { reset(); }
    Unique(Unique&& o) noexcept : device_(o.device_), handle_(std::exchange(o.handle_, T(VK_NULL_HANDLE))) {}
    Unique& operator=(Unique&& o) noexcept {
        if (this != &o) {
            reset();
            device_ = o.device_;
            handle_ = std::exchange(o.handle_, T(VK_NULL_HANDLE));
        }
        return *this;
    }
    Unique(const Unique&) = delete;
    Unique& operator=(const Unique&) = delete;

    T get() const { return handle_; }
    operator T() const { return handle_; }  // passes as the raw handle to Vulkan calls
    explicit operator bool() const { return handle_ != T(VK_NULL_HANDLE); }
    /// Where vkCreate* writes a new object owned by this (any old one destroyed first).
    T* put(VkDevice device) {
        reset();
        device_ = device;
        return &handle_;
    }
    /// The handle's address, for calls taking an array of one (vkWaitForFences).
    const T* address() const { return &handle_; }
    void reset() {
        if (handle_ != T(VK_NULL_HANDLE)) Destroy(device_, handle_, nullptr);
        handle_ = T(VK_NULL_HANDLE);
    }

private:
    VkDevice device_ = VK_NULL_HANDLE;
    T handle_ = T(VK_NULL_HANDLE);
};

using Fence = Unique<VkFence, vkDestroyFence>;
using QueryPool = Unique<VkQueryPool, vkDestroyQueryPool>;
using DescriptorPool = Unique<VkDescriptorPool, vkDestroyDescriptorPool>;
using CommandPool = Unique<VkCommandPool, vkDestroyCommandPool>;

/// A primary command buffer, freed to its pool when it goes (the pool must
/// outlive it, and be used by one thread at a time).
class CommandBuffer {
public:
    CommandBuffer() = default;
    /// Owns `handle`, allocated from `pool`.
    CommandBuffer(VkDevice device, VkCommandPool pool, VkCommandBuffer handle)
        : device_(device), pool_(pool), handle_(handle) {}
    ~CommandBuffer() { reset(); }
    CommandBuffer(CommandBuffer&& o) noexcept
        : device_(o.device_), pool_(o.pool_), handle_(std::exchange(o.handle_, VK_NULL_HANDLE)) {}
    CommandBuffer& operator=(CommandBuffer&& o) noexcept {
        if (this != &o) {
            reset();
            device_ = o.device_;
            pool_ = o.pool_;
            handle_ = std::exchange(o.handle_, VK_NULL_HANDLE);
        }
        return *this;
    }
    CommandBuffer(const CommandBuffer&) = delete;
    CommandBuffer& operator=(const CommandBuffer&) = delete;

    operator VkCommandBuffer() const { return handle_; }  // passes as the raw handle to Vulkan calls
    explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }
    void reset() {
        if (handle_) vkFreeCommandBuffers(device_, pool_, 1, &handle_);
        handle_ = VK_NULL_HANDLE;
    }

private:
    VkDevice device_ = VK_NULL_HANDLE;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer handle_ = VK_NULL_HANDLE;
};

}  // namespace kiln::vk
