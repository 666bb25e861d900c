#pragma once
// VkDevice and its compute queue, owned or adopted, with the capability
// summary kiln's ops check features against.
#include <vulkan/vulkan.h>

#include <functional>
#include <string>

#include "kiln/device.hpp"

namespace kiln::vk {

/// Capability summary of a physical device (index is its enumeration position).
DeviceInfo query_device(VkPhysicalDevice pd, uint32_t index);

/// Index of the queue family kiln uses: compute without graphics if one
/// exists, else any compute family. Throws if the device has no compute queue.
uint32_t pick_compute_family(VkPhysicalDevice pd);

/// Features and extensions in use on a device.
struct Enabled {
    bool float64 = false, int64 = false, int16 = false, int8 = false, float16 = false;
    bool storage8 = false, storage16 = false;
    bool push_descriptors = false, memory_budget = false, external_memory_host = false;
    bool host_query_reset = false;  ///< vkResetQueryPool from the host (Vulkan 1.2 hostQueryReset)
    /// Needed by kiln on every device (an adopted one is refused without them).
    bool synchronization2 = false, timeline_semaphore = false;
};

/// Hooks an application gives to serialise kiln's use of a queue it shares
/// with its own threads (ExternalDevice::lock_queue / unlock_queue).
struct QueueLock {
    std::function<void()> lock, unlock;
};

class Device {
public:
    /// Creates a logical device with every feature kiln can use that the device has.
    Device(VkPhysicalDevice pd, uint32_t index);
    /// Adopts an application's device and queue; destroys nothing of them.
    /// Throws Unsupported, naming the feature struct and member, when
    /// `enabled` lacks synchronization2 or timeline_semaphore (or the device
    /// is below Vulkan 1.3). `queue_lock` is called around every use of the queue.
    Device(VkPhysicalDevice pd, uint32_t index, VkDevice device, VkQueue queue, uint32_t family,
           const Enabled& enabled, QueueLock queue_lock = {});
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkPhysicalDevice physical() const { return physical_; }
    VkDevice handle() const { return device_; }
    VkQueue queue() const { return queue_; }
    /// vkQueueSubmit2 on the queue (inside the application's queue lock,
    /// if it gave one); throws VulkanError on failure. Every use of the
    /// queue goes through these two.
    void submit(const VkSubmitInfo2& info, VkFence fence) const;
    /// Runs `use` inside the queue lock, for a library that submits on the
    /// queue itself (VkFFT, setting up a plan).
    void use_queue(const std::function<void(VkQueue)>& use) const;
    /// vkQueueWaitIdle on the queue (inside the queue lock); returns its result.
    VkResult wait_idle() const;
    uint32_t queue_family() const { return family_; }
    const DeviceInfo& info() const { return info_; }
    /// Lowers maxStorageBufferRange as seen by kiln (ContextOptions::max_binding_range).
    void cap_binding_range(uint64_t bytes) {
        if (bytes && bytes < info_.max_storage_buffer_range) info_.max_storage_buffer_range = bytes;
    }
    const Enabled& enabled() const { return enabled_; }
    const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_; }
    uint32_t timestamp_valid_bits() const { return timestamp_bits_; }

    PFN_vkCmdPushDescriptorSetKHR push_descriptor_fn = nullptr;
    PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_properties_fn = nullptr;

private:
    void load_functions();

    VkPhysicalDevice physical_;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t family_ = 0;
    uint32_t timestamp_bits_ = 0;
    bool owned_ = false;
    DeviceInfo info_;
    Enabled enabled_;
    VkPhysicalDeviceMemoryProperties memory_{};
    QueueLock queue_lock_;
};

} // namespace kiln::vk
