#include "app_vulkan.hpp"

#include <kiln/error.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void* app) {
    ++static_cast<AppVulkan*>(app)->validation_messages;
    std::fprintf(stderr, "embed: validation: %s\n", data->pMessage);
    return VK_FALSE;
}

template <typename F> F instance_function(VkInstance instance, const char* name) {
    return reinterpret_cast<F>(vkGetInstanceProcAddr(instance, name));
}

}  // namespace

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw kiln::VulkanError(std::string(what) + " failed: VkResult " + std::to_string(r), r);
}

AppVulkan::AppVulkan(uint32_t image_size) : size(image_size) {
    const char* env = std::getenv("KILN_VALIDATION");
    validation = env && std::strcmp(env, "1") == 0;
    VkApplicationInfo ai{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "kiln-embed", 1, nullptr, 0, VK_API_VERSION_1_3};
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = on_message;
    mi.pUserData = this;
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, &mi, 1, &sync};
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    const uint32_t n = validation ? 1 : 0;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, n ? &features : nullptr, 0, &ai, n, &layer, n,
                             &extension};
    check(vkCreateInstance(&ici, nullptr, &instance), "vkCreateInstance");
    if (validation)
        check(instance_function<PFN_vkCreateDebugUtilsMessengerEXT>(instance, "vkCreateDebugUtilsMessengerEXT")(
                  instance, &mi, nullptr, &messenger),
              "vkCreateDebugUtilsMessengerEXT");

    uint32_t count = 0;
    check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> devices(count);
    check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
    for (VkPhysicalDevice pd : devices) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pd, &p);
        uint32_t nf = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, nullptr);
        std::vector<VkQueueFamilyProperties> families(nf);
        vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, families.data());
        for (uint32_t f = 0; f < nf && !physical && p.apiVersion >= VK_API_VERSION_1_3; ++f)
            if (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) physical = pd, family = f;
    }
    if (!physical) throw kiln::Unsupported("no Vulkan 1.3 device with a compute queue");

    // The two features kiln requires of a device it adopts.
    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f13.synchronization2 = VK_TRUE;
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13};
    f12.timelineSemaphore = VK_TRUE;
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, family, 1, &priority};
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f12, 0, 1, &qci};
    check(vkCreateDevice(physical, &dci, nullptr, &device), "vkCreateDevice");
    vkGetDeviceQueue(device, family, 0, &queue);

    VkSemaphoreTypeCreateInfo tci{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, nullptr, VK_SEMAPHORE_TYPE_TIMELINE, 0};
    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &tci};
    check(vkCreateSemaphore(device, &sci, nullptr, &timeline), "vkCreateSemaphore");
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr,
                                VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family};
    check(vkCreateCommandPool(device, &pci, nullptr, &pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool,
                                    VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    check(vkAllocateCommandBuffers(device, &cai, &cmd), "vkAllocateCommandBuffers");

    VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = VK_FORMAT_R32_SFLOAT;
    ii.extent = {size, size, 1};
    ii.mipLevels = ii.arrayLayers = 1;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    check(vkCreateImage(device, &ii, nullptr, &image), "vkCreateImage");
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, image, &req);
    image_memory = allocate(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    check(vkBindImageMemory(device, image, image_memory, 0), "vkBindImageMemory");
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, VkDeviceSize(size) * size * sizeof(float),
                           VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    check(vkCreateBuffer(device, &bci, nullptr, &readback), "vkCreateBuffer");
    vkGetBufferMemoryRequirements(device, readback, &req);
    readback_memory = allocate(req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    check(vkBindBufferMemory(device, readback, readback_memory, 0), "vkBindBufferMemory");
    void* mapped = nullptr;
    check(vkMapMemory(device, readback_memory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");
    pixels = static_cast<const float*>(mapped);
}

AppVulkan::~AppVulkan() {
    if (device) {
        vkDeviceWaitIdle(device);
        vkDestroyBuffer(device, readback, nullptr);
        vkDestroyImage(device, image, nullptr);
        vkFreeMemory(device, readback_memory, nullptr);
        vkFreeMemory(device, image_memory, nullptr);
        vkDestroyCommandPool(device, pool, nullptr);
        vkDestroySemaphore(device, timeline, nullptr);
        vkDestroyDevice(device, nullptr);
    }
    if (messenger)
        instance_function<PFN_vkDestroyDebugUtilsMessengerEXT>(instance, "vkDestroyDebugUtilsMessengerEXT")(
            instance, messenger, nullptr);
    if (instance) vkDestroyInstance(instance, nullptr);
}

void AppVulkan::host_wait(uint64_t value) const {
    VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, nullptr, 0, 1, &timeline, &value};
    check(vkWaitSemaphores(device, &wi, 60'000'000'000ull), "vkWaitSemaphores");
}

VkDeviceMemory AppVulkan::allocate(const VkMemoryRequirements& req, VkMemoryPropertyFlags want) const {
    VkPhysicalDeviceMemoryProperties m;
    vkGetPhysicalDeviceMemoryProperties(physical, &m);
    for (uint32_t type = 0; type < m.memoryTypeCount; ++type)
        if ((req.memoryTypeBits >> type & 1) && (m.memoryTypes[type].propertyFlags & want) == want) {
            VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size, type};
            VkDeviceMemory memory = VK_NULL_HANDLE;
            check(vkAllocateMemory(device, &ai, nullptr, &memory), "vkAllocateMemory");
            return memory;
        }
    throw kiln::Unsupported("no Vulkan memory type with the properties kiln-embed needs");
}
