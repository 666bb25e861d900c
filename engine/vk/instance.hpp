#pragma once
// VkInstance, owned or adopted, with optional Khronos validation whose
// messages are counted and handed to a callback.
#include <vulkan/vulkan.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::vk {

struct InstanceCreateInfo {
    bool validation = false;
    std::function<void(const std::string&)> on_message;
};

class Instance {
public:
    /// Creates an instance (Vulkan 1.3); throws kiln::Error when no driver is
    /// installed or validation was asked for and the layer is missing.
    explicit Instance(const InstanceCreateInfo& info);
    /// Adopts an application's instance; destroys nothing of it.
    explicit Instance(VkInstance adopted);
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    VkInstance handle() const { return instance_; }
    std::vector<VkPhysicalDevice> physical_devices() const;

    uint64_t message_count() const { return message_count_.load(); }
    std::vector<std::string> messages() const;

private:
    static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(
        VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
        const VkDebugUtilsMessengerCallbackDataEXT*, void*);

    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    bool owned_ = false;
    std::function<void(const std::string&)> on_message_;
    std::atomic<uint64_t> message_count_{0};
    mutable std::mutex messages_mutex_;
    std::vector<std::string> messages_;
};

} // namespace kiln::vk
