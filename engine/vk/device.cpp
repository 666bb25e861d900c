#include "vk/device.hpp"

#include <cstring>
#include <utility>
#include <vector>

#include "vk/check.hpp"

namespace kiln::vk {

namespace {

std::vector<VkExtensionProperties> device_extensions(VkPhysicalDevice pd) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data());
    return exts;
}

bool has(const std::vector<VkExtensionProperties>& exts, const char* name) {
    for (auto& e : exts)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

std::string version_string(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
           "." + std::to_string(VK_API_VERSION_PATCH(v));
}

std::vector<VkQueueFamilyProperties> queue_families(VkPhysicalDevice pd) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    return families;
}

// The feature structs kiln reads of a physical device, chained and filled.
struct FeatureChain {
    explicit FeatureChain(VkPhysicalDevice pd) {
        f12.pNext = &f13;
        f11.pNext = &f12;
        features.pNext = &f11;
        vkGetPhysicalDeviceFeatures2(pd, &features);
    }
    FeatureChain(const FeatureChain&) = delete;
    FeatureChain& operator=(const FeatureChain&) = delete;

    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
};

// What kiln uses on every device, unconditionally: vkQueueSubmit2,
// vkCmdPipelineBarrier2 and vkCmdWriteTimestamp2 (synchronization2), the
// application's timeline semaphores (timelineSemaphore), Vulkan 1.3. An
// adopted device says what it enabled (ExternalDevice); one without a
// feature is refused, naming what to enable, or saying the device lacks it.
void check_adopted_features(VkPhysicalDevice pd, const DeviceInfo& info, const Enabled& enabled) {
    if (!info.vulkan13)
        throw Unsupported("Vulkan 1.3 is not supported by " + info.name + " (it offers Vulkan " + info.api_version +
                          "); kiln needs Vulkan 1.3");
    const FeatureChain supported(pd);
    struct Needed {
        bool enabled;
        VkBool32 supported;
        const char* member;  // struct::member
        const char* flag;    // ExternalDevice's
        const char* use;
    };
    const Needed needed[] = {
        {enabled.synchronization2, supported.f13.synchronization2, "VkPhysicalDeviceVulkan13Features::synchronization2",
         "synchronization2", "kiln records every barrier and submission with it"},
        {enabled.timeline_semaphore, supported.f12.timelineSemaphore,
         "VkPhysicalDeviceVulkan12Features::timelineSemaphore",
         "timeline_semaphore", "kiln orders its work against the application's with timeline semaphores"},
    };
    for (const Needed& n : needed) {
        if (!n.supported)
            throw Unsupported(std::string(n.member) + " is not supported by " + info.name + "; " + n.use +
                              ", so kiln cannot run on this device");
        if (!n.enabled)
            throw Unsupported(std::string(n.member) + " is not enabled on the adopted device; enable it in "
                              "VkDeviceCreateInfo and set ExternalDevice::" + n.flag + " (" + n.use + ")");
    }
}

} // namespace

uint32_t pick_compute_family(VkPhysicalDevice pd) {
    auto families = queue_families(pd);
    int any = -1;
    for (uint32_t i = 0; i < families.size(); ++i) {
        if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
        if (!(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) return i;
        if (any < 0) any = static_cast<int>(i);
    }
    if (any < 0) throw Unsupported("the device has no compute-capable queue family");
    return static_cast<uint32_t>(any);
}

DeviceInfo query_device(VkPhysicalDevice pd, uint32_t index) {
    VkPhysicalDeviceFloatControlsProperties floats{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    subgroup.pNext = &floats;
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    driver.pNext = &subgroup;
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &driver;
    vkGetPhysicalDeviceProperties2(pd, &props);

    const FeatureChain chain(pd);
    const VkPhysicalDeviceFeatures2& features = chain.features;
    const VkPhysicalDeviceVulkan12Features& f12 = chain.f12;
    const VkPhysicalDeviceVulkan11Features& f11 = chain.f11;

    const auto& p = props.properties;
    DeviceInfo info;
    info.index = index;
    info.name = p.deviceName;
    switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: info.type = "discrete"; break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: info.type = "integrated"; break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: info.type = "virtual"; break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: info.type = "cpu"; break;
    default: info.type = "other";
    }
    info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
    info.api_version = version_string(p.apiVersion);
    info.vulkan13 = p.apiVersion >= VK_API_VERSION_1_3;
    info.vendor_id = p.vendorID;
    info.device_id = p.deviceID;
    info.driver_version = p.driverVersion;
    info.max_storage_buffer_range = p.limits.maxStorageBufferRange;
    info.max_shared_memory = p.limits.maxComputeSharedMemorySize;
    info.max_workgroup_invocations = p.limits.maxComputeWorkGroupInvocations;
    for (int i = 0; i < 3; ++i) info.max_workgroup_count[i] = p.limits.maxComputeWorkGroupCount[i];
    info.min_storage_offset_alignment = static_cast<uint32_t>(p.limits.minStorageBufferOffsetAlignment);
    info.subgroup_size = subgroup.subgroupSize;
    info.timestamp_period_ns = p.limits.timestampPeriod;
    info.denorm_preserve32 = floats.shaderDenormPreserveFloat32;
    info.denorm_preserve64 = floats.shaderDenormPreserveFloat64;
    info.nan_preserve32 = floats.shaderSignedZeroInfNanPreserveFloat32;
    info.nan_preserve64 = floats.shaderSignedZeroInfNanPreserveFloat64;

    VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props2.pNext = &m3;
    vkGetPhysicalDeviceProperties2(pd, &props2);
    info.max_memory_allocation = m3.maxMemoryAllocationSize;

    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);
    for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
        info.heaps.push_back({mem.memoryHeaps[i].size,
                              (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0});

    auto families = queue_families(pd);
    uint32_t family = 0;
    try {
        family = pick_compute_family(pd);
        info.timestamps = families[family].timestampValidBits > 0 && p.limits.timestampPeriod > 0;
        info.dedicated_compute_queue = !(families[family].queueFlags & VK_QUEUE_GRAPHICS_BIT);
    } catch (const Error&) {
    }

    info.float64 = features.features.shaderFloat64;
    info.int64 = features.features.shaderInt64;
    info.int16 = features.features.shaderInt16;
    info.int8 = f12.shaderInt8;
    info.float16 = f12.shaderFloat16;
    info.storage8 = f12.storageBuffer8BitAccess;
    info.storage16 = f11.storageBuffer16BitAccess;
    info.host_query_reset = f12.hostQueryReset;

    auto exts = device_extensions(pd);
    info.push_descriptors = has(exts, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    info.memory_budget = has(exts, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    info.external_memory_host = has(exts, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    return info;
}

} // namespace kiln::vk

namespace kiln {

std::string DeviceInfo::summary() const {
    auto gib = [](uint64_t b) {
        char s[32];
        std::snprintf(s, sizeof s, "%.2f GiB", b / double(1ull << 30));
        return std::string(s);
    };
    auto yn = [](bool b) { return b ? "yes" : "no"; };
    std::string s;
    s += "[" + std::to_string(index) + "] " + name + " (" + type + ")\n";
    s += "    driver:                 " + driver + ", Vulkan " + api_version + "\n";
    for (size_t i = 0; i < heaps.size(); ++i)
        s += "    heap " + std::to_string(i) + ":                 " + gib(heaps[i].size) +
             (heaps[i].device_local ? " device-local" : " host") + "\n";
    s += "    maxStorageBufferRange:  " + std::to_string(max_storage_buffer_range) + " bytes (" +
         gib(max_storage_buffer_range) + ")\n";
    s += "    shared memory:          " + std::to_string(max_shared_memory / 1024) + " KiB per workgroup\n";
    s += "    subgroup size:          " + std::to_string(subgroup_size) + "\n";
    s += "    max invocations:        " + std::to_string(max_workgroup_invocations) + " per workgroup\n";
    s += "    timestamps:             " + std::string(yn(timestamps));
    if (timestamps) s += " (" + std::to_string(timestamp_period_ns) + " ns per tick)";
    s += "\n";
    s += "    float64 / int64 / float16: " + std::string(yn(float64)) + " / " + yn(int64) + " / " +
         yn(float16) + "\n";
    s += "    int8 / int16 / 8-bit / 16-bit storage: " + std::string(yn(int8)) + " / " + yn(int16) +
         " / " + yn(storage8) + " / " + yn(storage16) + "\n";
    s += "    push descriptors / memory budget / host memory import: " +
         std::string(yn(push_descriptors)) + " / " + yn(memory_budget) + " / " +
         yn(external_memory_host) + "\n";
    s += "    compute queue without graphics: " + std::string(yn(dedicated_compute_queue)) + "\n";
    s += "    denormals kept (float32 / float64): " + std::string(yn(denorm_preserve32)) + " / " +
         yn(denorm_preserve64) + "\n";
    s += "    NaN, inf and -0 kept (float32 / float64): " + std::string(yn(nan_preserve32)) + " / " +
         yn(nan_preserve64) + "\n";
    return s;
}

} // namespace kiln

namespace kiln::vk {

Device::Device(VkPhysicalDevice pd, uint32_t index) : physical_(pd), owned_(true) {
    info_ = query_device(pd, index);
    if (!info_.vulkan13)
        throw Unsupported("device '" + info_.name + "' supports Vulkan " + info_.api_version +
                          "; kiln needs Vulkan 1.3");
    family_ = pick_compute_family(pd);

    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f13.synchronization2 = VK_TRUE;
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    f12.pNext = &f13;
    f12.shaderInt8 = info_.int8;
    f12.shaderFloat16 = info_.float16;
    f12.storageBuffer8BitAccess = info_.storage8;
    f12.hostQueryReset = info_.host_query_reset;
    f12.timelineSemaphore = VK_TRUE;  // required of every Vulkan 1.2 device
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    f11.pNext = &f12;
    f11.storageBuffer16BitAccess = info_.storage16;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &f11;
    features.features.shaderFloat64 = info_.float64;
    features.features.shaderInt64 = info_.int64;
    features.features.shaderInt16 = info_.int16;

    std::vector<const char*> extensions;
    auto exts = device_extensions(pd);
    if (info_.push_descriptors) extensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    if (info_.memory_budget) extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    if (info_.external_memory_host) extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    if (has(exts, "VK_KHR_portability_subset")) extensions.push_back("VK_KHR_portability_subset");

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = family_;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;

    VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    ci.pNext = &features;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &queue;
    ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ci.ppEnabledExtensionNames = extensions.data();
    check(vkCreateDevice(pd, &ci, nullptr, &device_), "vkCreateDevice");
    vkGetDeviceQueue(device_, family_, 0, &queue_);

    enabled_ = {info_.float64, info_.int64, info_.int16, info_.int8, info_.float16,
                info_.storage8, info_.storage16, info_.push_descriptors, info_.memory_budget,
                info_.external_memory_host, info_.host_query_reset, true, true};
    load_functions();
}

Device::Device(VkPhysicalDevice pd, uint32_t index, VkDevice device, VkQueue queue, uint32_t family,
               const Enabled& enabled, QueueLock queue_lock)
    : physical_(pd), device_(device), queue_(queue), family_(family), owned_(false), enabled_(enabled),
      queue_lock_(std::move(queue_lock)) {
    info_ = query_device(pd, index);
    check_adopted_features(pd, info_, enabled);
    // An adopted device has only what the application enabled.
    enabled_.memory_budget = false;
    enabled_.external_memory_host = false;
    info_.float64 = enabled.float64;
    info_.int64 = enabled.int64;
    info_.int16 = enabled.int16;
    info_.int8 = enabled.int8;
    info_.float16 = enabled.float16;
    info_.storage8 = enabled.storage8;
    info_.storage16 = enabled.storage16;
    info_.push_descriptors = enabled.push_descriptors;
    info_.host_query_reset = enabled.host_query_reset;
    info_.memory_budget = false;
    info_.external_memory_host = false;
    load_functions();
}

void Device::load_functions() {
    vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
    auto families = queue_families(physical_);
    if (family_ >= families.size() || !(families[family_].queueFlags & VK_QUEUE_COMPUTE_BIT))
        throw InvalidArgument("queue family " + std::to_string(family_) + " of device '" + info_.name +
                              "' is not compute-capable");
    timestamp_bits_ = families[family_].timestampValidBits;
    info_.timestamps = timestamp_bits_ > 0 && info_.timestamp_period_ns > 0;
    if (enabled_.push_descriptors)
        push_descriptor_fn = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(
            vkGetDeviceProcAddr(device_, "vkCmdPushDescriptorSetKHR"));
    if (enabled_.external_memory_host)
        host_pointer_properties_fn = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
            vkGetDeviceProcAddr(device_, "vkGetMemoryHostPointerPropertiesEXT"));
    if (!push_descriptor_fn) enabled_.push_descriptors = false;
    if (!host_pointer_properties_fn) enabled_.external_memory_host = false;
}

namespace {

// The application's queue lock, held while kiln uses the queue.
class QueueGuard {
public:
    explicit QueueGuard(const QueueLock& l) : l_(l) {
        if (l_.lock) l_.lock();
    }
    ~QueueGuard() {
        if (l_.unlock) l_.unlock();
    }
    QueueGuard(const QueueGuard&) = delete;
    QueueGuard& operator=(const QueueGuard&) = delete;

private:
    const QueueLock& l_;
};

} // namespace

void Device::submit(const VkSubmitInfo2& info, VkFence fence) const {
    VkResult r;
    {
        QueueGuard guard(queue_lock_);
        r = vkQueueSubmit2(queue_, 1, &info, fence);
    }
    check(r, "vkQueueSubmit2");
}

void Device::use_queue(const std::function<void(VkQueue)>& use) const {
    QueueGuard guard(queue_lock_);
    use(queue_);
}

VkResult Device::wait_idle() const {
    QueueGuard guard(queue_lock_);
    return vkQueueWaitIdle(queue_);
}

Device::~Device() {
    if (owned_ && device_) {
        vkDeviceWaitIdle(device_);
        vkDestroyDevice(device_, nullptr);
    }
}

} // namespace kiln::vk
