#pragma once
// Move-only owners of Vulkan objects: each destroys its object with its
// device when it goes, so a submission's fence, query pool and descriptor
// pool are released on every path (recycled through the context's free
// lists, or destroyed when a list is full or the context goes).
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

}  // namespace kiln::vk
