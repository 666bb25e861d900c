#include <vulkan/vulkan.h>

#include "support.hpp"

using namespace kiln;

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL collect(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                       const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    static_cast<std::vector<std::string>*>(user)->push_back(data->pMessage);
    return VK_FALSE;
}

} // namespace

// An application makes its own instance and device (with validation, so a
// kiln object left behind on its device is reported), hands them to kiln,
// and keeps using them after kiln is gone.
TEST_CASE("an application's own device is adopted and left intact", "[context][external]") {
    std::vector<std::string> messages;
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    mi.pfnUserCallback = collect;
    mi.pUserData = &messages;
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pNext = &mi;
    ici.pApplicationInfo = &app;
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = &layer;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = &ext;
    VkInstance instance;
    REQUIRE(vkCreateInstance(&ici, nullptr, &instance) == VK_SUCCESS);
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    VkDebugUtilsMessengerEXT messenger;
    REQUIRE(create_messenger(instance, &mi, nullptr, &messenger) == VK_SUCCESS);

    uint32_t n = 1;
    VkPhysicalDevice pd;
    vkEnumeratePhysicalDevices(instance, &n, &pd);
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, nullptr);
    std::vector<VkQueueFamilyProperties> families(nf);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, families.data());
    uint32_t family = 0;
    while (!(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
    float prio = 1;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f13.synchronization2 = VK_TRUE;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &f13;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    VkDevice device;
    REQUIRE(vkCreateDevice(pd, &dci, nullptr, &device) == VK_SUCCESS);
    VkQueue queue;
    vkGetDeviceQueue(device, family, 0, &queue);

    {
        ExternalDevice ed{instance, pd, device, queue, family};
        Context ctx(ed);
        CHECK(ctx.device().float64 == false);  // not enabled by the application
        std::vector<int32_t> v{1, -2, 3, 40000};
        Array a = Array::from(ctx, Shape{4}, v);
        CHECK(add(a, a).to_vector<int32_t>() == std::vector<int32_t>{2, -4, 6, 80000});
        CHECK_THROWS_WITH(Array::zeros(ctx, Shape{2}, DType::float64), Catch::Contains("shaderFloat64"));
    }
    // kiln is gone; the device is the application's and still works.
    CHECK(vkDeviceWaitIdle(device) == VK_SUCCESS);
    vkDestroyDevice(device, nullptr);  // validation reports any kiln object left on it
    destroy_messenger(instance, messenger, nullptr);
    vkDestroyInstance(instance, nullptr);
    INFO((messages.empty() ? std::string() : messages.front()));
    CHECK(messages.empty());
}
