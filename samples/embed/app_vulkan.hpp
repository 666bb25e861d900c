#pragma once
// The application's own Vulkan in kiln-embed (main.cpp), none of it kiln's: a
// Vulkan 1.3 instance, the first device with a compute queue, created with
// synchronization2 and timeline semaphores (what kiln requires of a device it
// adopts), one queue, one timeline semaphore, one command buffer, and the
// image the application wants kiln's result in, with a host-visible buffer to
// read it back. KILN_VALIDATION=1: the Khronos validation layer, with
// synchronization validation, on the instance; messages are printed and
// counted.
#include <vulkan/vulkan.h>

#include <cstdint>

/// Throws kiln::VulkanError naming `what` unless r is VK_SUCCESS.
void check(VkResult r, const char* what);

struct AppVulkan {
    /// Everything below; `size` x `size` float32 texels for the image.
    explicit AppVulkan(uint32_t size);
    /// Waits for the device to be idle, then destroys it all.
    ~AppVulkan();
    AppVulkan(const AppVulkan&) = delete;
    AppVulkan& operator=(const AppVulkan&) = delete;

    /// Waits on the host until `timeline` reaches `value` (a minute at most).
    void host_wait(uint64_t value) const;

    bool validation = false;
    int validation_messages = 0;
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkSemaphore timeline = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    uint32_t size = 0;
    VkImage image = VK_NULL_HANDLE;  ///< R32_SFLOAT, size x size, TRANSFER_SRC and TRANSFER_DST
    VkBuffer readback = VK_NULL_HANDLE;
    VkDeviceMemory image_memory = VK_NULL_HANDLE, readback_memory = VK_NULL_HANDLE;
    const float* pixels = nullptr;  ///< readback, mapped (host-coherent)

private:
    VkDeviceMemory allocate(const VkMemoryRequirements& req, VkMemoryPropertyFlags want) const;
};
