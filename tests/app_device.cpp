#include "app_device.hpp"

#include <catch2/catch.hpp>

namespace kiln::test {

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL collect(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                       const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    static_cast<std::vector<std::string>*>(user)->push_back(data->pMessage);
    return VK_FALSE;
}

} // namespace

void with_app_device(const std::function<void(AppDevice&)>& body, AppFeatures features) {
    std::vector<std::string> messages;
    {
        AppDevice app(messages, features);
        body(app);
    }
    INFO((messages.empty() ? std::string()
                           : std::to_string(messages.size()) + " message(s), first: " + messages.front()));
    CHECK(messages.empty());
}

AppDevice::AppDevice(std::vector<std::string>& sink, AppFeatures f) : features_(f) {
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    mi.pfnUserCallback = collect;
    mi.pUserData = &sink;
    // Synchronization validation sees the application's submissions and
    // kiln's on the one queue.
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT vf{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, &mi, 1, &sync};
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pNext = &vf;
    ici.pApplicationInfo = &app;
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = &layer;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = &ext;
    REQUIRE(vkCreateInstance(&ici, nullptr, &instance) == VK_SUCCESS);
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    REQUIRE(create_messenger(instance, &mi, nullptr, &messenger_) == VK_SUCCESS);

    uint32_t n = 1;
    vkEnumeratePhysicalDevices(instance, &n, &physical);
    REQUIRE(n == 1);
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nf, nullptr);
    std::vector<VkQueueFamilyProperties> families(nf);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nf, families.data());
    while (!(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
    const float priority = 1;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, family, 1, &priority};
    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f13.synchronization2 = f.synchronization2;
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13};
    f12.timelineSemaphore = f.timeline_semaphore;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f12};
    VkPhysicalDeviceFeatures core{};
    core.shaderFloat64 = f.float64;
    dci.pEnabledFeatures = &core;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    REQUIRE(vkCreateDevice(physical, &dci, nullptr, &device) == VK_SUCCESS);
    vkGetDeviceQueue(device, family, 0, &queue);
    vkGetPhysicalDeviceMemoryProperties(physical, &memory_);
}

AppDevice::~AppDevice() {
    vkDestroyDevice(device, nullptr);
    auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    destroy_messenger(instance, messenger_, nullptr);
    vkDestroyInstance(instance, nullptr);
}

ExternalDevice AppDevice::external() const {
    ExternalDevice e{instance, physical, device, queue, family};
    e.synchronization2 = features_.synchronization2;
    e.timeline_semaphore = features_.timeline_semaphore;
    e.float64 = features_.float64;
    return e;
}

uint32_t AppDevice::memory_type(uint32_t bits, VkMemoryPropertyFlags want) const {
    for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & want) == want) return i;
    FAIL("no memory type with the properties asked for");
    return 0;
}

AppBuffer::AppBuffer(const AppDevice& app, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags props)
    : device(app.device) {
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = size;
    bci.usage = usage;
    REQUIRE(vkCreateBuffer(device, &bci, nullptr, &buffer) == VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buffer, &req);
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size,
                             app.memory_type(req.memoryTypeBits, props)};
    REQUIRE(vkAllocateMemory(device, &mai, nullptr, &memory) == VK_SUCCESS);
    REQUIRE(vkBindBufferMemory(device, buffer, memory, 0) == VK_SUCCESS);
    if (props & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        REQUIRE(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped) == VK_SUCCESS);
}

AppBuffer::~AppBuffer() {
    vkDestroyBuffer(device, buffer, nullptr);
    vkFreeMemory(device, memory, nullptr);
}

Timeline::Timeline(const AppDevice& app) : device(app.device) {
    VkSemaphoreTypeCreateInfo tci{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, nullptr, VK_SEMAPHORE_TYPE_TIMELINE, 0};
    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &tci};
    REQUIRE(vkCreateSemaphore(device, &sci, nullptr, &semaphore) == VK_SUCCESS);
}

Timeline::~Timeline() { vkDestroySemaphore(device, semaphore, nullptr); }

uint64_t Timeline::value() const {
    uint64_t v = 0;
    REQUIRE(vkGetSemaphoreCounterValue(device, semaphore, &v) == VK_SUCCESS);
    return v;
}

void Timeline::signal(uint64_t v) const {
    VkSemaphoreSignalInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, nullptr, semaphore, v};
    REQUIRE(vkSignalSemaphore(device, &si) == VK_SUCCESS);
}

VkResult Timeline::host_wait(uint64_t v, uint64_t timeout_ns) const {
    VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, nullptr, 0, 1, &semaphore, &v};
    return vkWaitSemaphores(device, &wi, timeout_ns);
}

AppCommands::AppCommands(const AppDevice& app) : app_(app) {
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr, 0, app.family};
    REQUIRE(vkCreateCommandPool(app.device, &pci, nullptr, &pool_) == VK_SUCCESS);
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool_,
                                   VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    REQUIRE(vkAllocateCommandBuffers(app.device, &ai, &cmd_) == VK_SUCCESS);
}

AppCommands::~AppCommands() { vkDestroyCommandPool(app_.device, pool_, nullptr); }

void AppCommands::submit(const std::function<void(VkCommandBuffer)>& record, const Timeline& t, uint64_t wait,
                         VkPipelineStageFlags2 wait_stage, uint64_t signal) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, nullptr,
                                VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    REQUIRE(vkBeginCommandBuffer(cmd_, &bi) == VK_SUCCESS);
    record(cmd_);
    REQUIRE(vkEndCommandBuffer(cmd_) == VK_SUCCESS);
    VkSemaphoreSubmitInfo w{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, nullptr, t.semaphore, wait, wait_stage};
    VkSemaphoreSubmitInfo s{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, nullptr, t.semaphore, signal,
                            VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkCommandBufferSubmitInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, nullptr, cmd_};
    VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2, nullptr, 0, 1, &w, 1, &cbi, 1, &s};
    REQUIRE(vkQueueSubmit2(app_.queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS);
}

} // namespace kiln::test
