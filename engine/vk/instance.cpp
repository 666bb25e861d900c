#include "vk/instance.hpp"

#include <cstdio>
#include <cstring>

#include "vk/check.hpp"

namespace kiln::vk {

namespace {

bool has_layer(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    for (auto& l : layers)
        if (std::strcmp(l.layerName, name) == 0) return true;
    return false;
}

bool has_extension(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateInstanceExtensionProperties(nullptr, &n, exts.data());
    for (auto& e : exts)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

constexpr const char* validation_layer = "VK_LAYER_KHRONOS_validation";

} // namespace

Instance::Instance(const InstanceCreateInfo& info) : owned_(true), on_message_(info.on_message) {
    uint32_t version = 0;
    if (vkEnumerateInstanceVersion(&version) != VK_SUCCESS || version < VK_API_VERSION_1_3)
        throw Error("the Vulkan loader supports API " + std::to_string(VK_API_VERSION_MAJOR(version)) +
                    "." + std::to_string(VK_API_VERSION_MINOR(version)) +
                    "; kiln needs Vulkan 1.3 (install a current libvulkan1)");

    std::vector<const char*> layers, extensions;
    if (info.validation) {
        if (!has_layer(validation_layer))
            throw Error("validation was requested but the layer VK_LAYER_KHRONOS_validation is "
                        "not installed (Debian: apt-get install vulkan-validationlayers), or "
                        "turn validation off");
        layers.push_back(validation_layer);
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
    VkInstanceCreateFlags flags = 0;
    if (has_extension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
        extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "kiln";
    app.pEngineName = "kiln";
    app.apiVersion = VK_API_VERSION_1_3;

    // Synchronization validation is what catches a missing barrier; the
    // default validation only checks API usage.
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;

    VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                     VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger_info.pfnUserCallback = &Instance::debug_callback;
    messenger_info.pUserData = this;
    if (info.validation) {
        features.pNext = &messenger_info;  // also reports instance creation itself
    }

    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pNext = info.validation ? &features : nullptr;
    ci.flags = flags;
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ci.ppEnabledLayerNames = layers.data();
    ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ci.ppEnabledExtensionNames = extensions.data();
    VkResult r = vkCreateInstance(&ci, nullptr, &instance_);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        throw VulkanError("no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER); "
                          "install a GPU driver or Mesa's lavapipe (apt-get install mesa-vulkan-drivers)",
                          r);
    check(r, "vkCreateInstance");

    if (info.validation) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
        if (!create) {
            vkDestroyInstance(instance_, nullptr);
            throw Error("VK_EXT_debug_utils is missing although validation was requested");
        }
        check(create(instance_, &messenger_info, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
    }
}

Instance::Instance(VkInstance adopted) : instance_(adopted), owned_(false) {}

Instance::~Instance() {
    if (!owned_) return;
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
    }
    vkDestroyInstance(instance_, nullptr);
}

std::vector<VkPhysicalDevice> Instance::physical_devices() const {
    uint32_t n = 0;
    check(vkEnumeratePhysicalDevices(instance_, &n, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> devices(n);
    check(vkEnumeratePhysicalDevices(instance_, &n, devices.data()), "vkEnumeratePhysicalDevices");
    devices.resize(n);
    return devices;
}

std::vector<std::string> Instance::messages() const {
    std::lock_guard lock(messages_mutex_);
    return messages_;
}

VkBool32 Instance::debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                  VkDebugUtilsMessageTypeFlagsEXT,
                                  const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* self = static_cast<Instance*>(user);
    std::string text = std::string(severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT
                                       ? "validation error: "
                                       : "validation warning: ") +
                       (data && data->pMessage ? data->pMessage : "");
    self->message_count_++;
    {
        std::lock_guard lock(self->messages_mutex_);
        if (self->messages_.size() < 100) self->messages_.push_back(text);
    }
    if (self->on_message_) self->on_message_(text);
    else std::fprintf(stderr, "kiln: %s\n", text.c_str());  // asked for validation: show it
    return VK_FALSE;
}

} // namespace kiln::vk
