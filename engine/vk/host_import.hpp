#pragma once
// The caller's own memory made visible to the GPU (VK_EXT_external_memory_host),
// so a transfer is one DMA straight to or from it, with no staging copy.
#include <vulkan/vulkan.h>

#include <cstddef>

namespace kiln::vk {

class Device;

class HostImport {
public:
    /// Imports the pages spanning [ptr, ptr + bytes). Throws kiln::Error if the
    /// driver refuses (read-only pages, unsupported memory); callers fall back.
    HostImport(const Device& device, const void* ptr, size_t bytes);
    ~HostImport();
    HostImport(const HostImport&) = delete;
    HostImport& operator=(const HostImport&) = delete;

    VkBuffer buffer() const { return buffer_; }
    /// Offset of ptr inside buffer().
    VkDeviceSize offset() const { return offset_; }

private:
    const Device& device_;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceSize offset_ = 0;
};

} // namespace kiln::vk
