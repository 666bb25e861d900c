#include "device_setup.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <vector>

#include "kiln/error.hpp"
#include "vk_util.hpp"

namespace viewer {

VkInstance create_instance(bool validation, VkDebugUtilsMessengerEXT& messenger) {
    messenger = VK_NULL_HANDLE;
    uint32_t version = 0;
    if (vkEnumerateInstanceVersion(&version) != VK_SUCCESS || version < VK_API_VERSION_1_3)
        throw kiln::Error("the Vulkan loader supports API " + std::to_string(VK_API_VERSION_MAJOR(version)) + "." +
                          std::to_string(VK_API_VERSION_MINOR(version)) + "; the viewer needs Vulkan 1.3");
    uint32_t n = 0;
    const char** required = glfwGetRequiredInstanceExtensions(&n);
    if (!required)
        throw kiln::Error("no Vulkan surface support: the Vulkan loader offers none of the window-system surface "
                          "extensions GLFW needs (is a Vulkan driver installed? e.g. mesa-vulkan-drivers)");
    std::vector<const char*> extensions(required, required + n);
    std::vector<const char*> layers;
    const char* validation_layer = "VK_LAYER_KHRONOS_validation";
    if (validation) {
        if (!has_layer(validation_layer))
            throw kiln::Error("validation was asked for (KILN_VALIDATION=1 or --validation) but the layer "
                              "VK_LAYER_KHRONOS_validation is not installed (Debian: apt-get install "
                              "vulkan-validationlayers)");
        layers.push_back(validation_layer);
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "kiln viewer";
    app.pEngineName = "kiln";
    app.apiVersion = VK_API_VERSION_1_3;

    // As kiln's own instance: synchronization validation too, and the
    // messenger from instance creation on.
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = &on_validation_message;
    features.pNext = &mi;

    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pNext = validation ? &features : nullptr;
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ci.ppEnabledLayerNames = layers.data();
    ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ci.ppEnabledExtensionNames = extensions.data();
    VkInstance instance = VK_NULL_HANDLE;
    VkResult r = vkCreateInstance(&ci, nullptr, &instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        throw kiln::VulkanError("no Vulkan driver found (install a GPU driver or Mesa's lavapipe: apt-get install "
                                "mesa-vulkan-drivers)",
                                r);
    if (r == VK_ERROR_EXTENSION_NOT_PRESENT)
        throw kiln::VulkanError("no Vulkan surface support: the driver lacks an instance extension the window "
                                "needs (VK_ERROR_EXTENSION_NOT_PRESENT)",
                                r);
    check(r, "vkCreateInstance");
    if (validation) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        if (!create) throw kiln::Error("VK_EXT_debug_utils is missing although validation was asked for");
        check(create(instance, &mi, nullptr, &messenger), "vkCreateDebugUtilsMessengerEXT");
    }
    return instance;
}

void destroy_instance(VkInstance instance, VkDebugUtilsMessengerEXT messenger) {
    if (messenger) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance, messenger, nullptr);
    }
    if (instance) vkDestroyInstance(instance, nullptr);
}

PickedDevice pick_device(VkInstance instance, VkSurfaceKHR surface, const std::string& wanted) {
    uint32_t n = 0;
    check(vkEnumeratePhysicalDevices(instance, &n, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> pds(n);
    check(vkEnumeratePhysicalDevices(instance, &n, pds.data()), "vkEnumeratePhysicalDevices");
    if (pds.empty()) throw kiln::Error("no Vulkan device found");

    PickedDevice picked;
    std::string reasons;
    int best_score = -1;
    for (uint32_t i = 0; i < pds.size(); ++i) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pds[i], &p);
        const std::string name = p.deviceName;
        if (!wanted.empty()) {
            const bool by_index = wanted.find_first_not_of("0123456789") == std::string::npos;
            if (by_index ? std::to_string(i) != wanted
                         : lower(name).find(lower(wanted)) == std::string::npos)
                continue;
        }
        auto refuse = [&](const std::string& why) { reasons += "\n  " + std::to_string(i) + " " + name + ": " + why; };
        if (p.apiVersion < VK_API_VERSION_1_3) {
            refuse("Vulkan 1.2 or older");
            continue;
        }
        VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
        VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        f12.pNext = &f13;
        VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        f.pNext = &f12;
        vkGetPhysicalDeviceFeatures2(pds[i], &f);
        if (!f13.synchronization2 || !f12.timelineSemaphore) {
            refuse("no synchronization2 or timeline semaphores");
            continue;
        }
        if (!f.features.shaderFloat64) {
            refuse("no float64 in shaders (kiln's kappa-sigma clipping needs it)");
            continue;
        }
        if (!contains(device_extensions(pds[i]), VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
            refuse("no VK_KHR_swapchain");
            continue;
        }
        uint32_t nf = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &nf, nullptr);
        std::vector<VkQueueFamilyProperties> families(nf);
        vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &nf, families.data());
        int family = -1;
        for (uint32_t q = 0; q < nf && family < 0; ++q) {
            VkBool32 present = VK_FALSE;
            vkGetPhysicalDeviceSurfaceSupportKHR(pds[i], q, surface, &present);
            const VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
            if (present && (families[q].queueFlags & need) == need) family = static_cast<int>(q);
        }
        if (family < 0) {
            refuse("no queue family with graphics, compute and presentation to this window");
            continue;
        }
        const int score = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU     ? 3
                          : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 2
                                                                                   : 1;
        if (score > best_score) {
            best_score = score;
            picked.physical = pds[i];
            picked.family = static_cast<uint32_t>(family);
        }
    }
    if (!picked.physical) {
        if (reasons.empty())
            throw kiln::Error("no Vulkan device matches --device " + wanted + " (`kiln devices` lists them)");
        throw kiln::Error("no Vulkan device can run the viewer:" + reasons);
    }
    return picked;
}

kiln::ExternalDevice create_device(VkInstance instance, VkPhysicalDevice physical, uint32_t family) {
    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    f12.pNext = &f13;
    f11.pNext = &f12;
    VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    have.pNext = &f11;
    vkGetPhysicalDeviceFeatures2(physical, &have);

    // What kiln's own device enables, where this one has it, and what the
    // adoption needs (synchronization2, timeline semaphores).
    VkPhysicalDeviceVulkan13Features e13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    e13.synchronization2 = VK_TRUE;
    VkPhysicalDeviceVulkan12Features e12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    e12.pNext = &e13;
    e12.timelineSemaphore = VK_TRUE;
    e12.shaderInt8 = f12.shaderInt8;
    e12.shaderFloat16 = f12.shaderFloat16;
    e12.storageBuffer8BitAccess = f12.storageBuffer8BitAccess;
    e12.hostQueryReset = f12.hostQueryReset;
    VkPhysicalDeviceVulkan11Features e11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    e11.pNext = &e12;
    e11.storageBuffer16BitAccess = f11.storageBuffer16BitAccess;
    VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    enable.pNext = &e11;
    enable.features.shaderFloat64 = have.features.shaderFloat64;
    enable.features.shaderInt64 = have.features.shaderInt64;
    enable.features.shaderInt16 = have.features.shaderInt16;

    const auto exts = device_extensions(physical);
    std::vector<const char*> extensions{VK_KHR_SWAPCHAIN_EXTENSION_NAME};
    const bool push = contains(exts, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    if (push) extensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    if (contains(exts, "VK_KHR_portability_subset")) extensions.push_back("VK_KHR_portability_subset");

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    ci.pNext = &enable;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qi;
    ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ci.ppEnabledExtensionNames = extensions.data();
    kiln::ExternalDevice e;
    check(vkCreateDevice(physical, &ci, nullptr, &e.device), "vkCreateDevice");
    vkGetDeviceQueue(e.device, family, 0, &e.queue);
    e.instance = instance;
    e.physical_device = physical;
    e.queue_family = family;

    e.float64 = enable.features.shaderFloat64;
    e.int64 = enable.features.shaderInt64;
    e.int16 = enable.features.shaderInt16;
    e.int8 = e12.shaderInt8;
    e.float16 = e12.shaderFloat16;
    e.storage8 = e12.storageBuffer8BitAccess;
    e.storage16 = e11.storageBuffer16BitAccess;
    e.push_descriptors = push;
    e.host_query_reset = e12.hostQueryReset;
    e.synchronization2 = true;
    e.timeline_semaphore = true;
    return e;  // one thread submits: no queue lock needed
}

std::string device_name(VkPhysicalDevice physical) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(physical, &p);
    return p.deviceName;
}

uint32_t memory_type(VkPhysicalDevice physical, uint32_t bits, VkMemoryPropertyFlags want) {
    VkPhysicalDeviceMemoryProperties m;
    vkGetPhysicalDeviceMemoryProperties(physical, &m);
    for (uint32_t i = 0; i < m.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (m.memoryTypes[i].propertyFlags & want) == want) return i;
    throw kiln::Error("no Vulkan memory type with the properties the viewer needs");
}

}  // namespace viewer
