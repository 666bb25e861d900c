#include "graph/device_resources.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "kiln/error.hpp"
#include "vk/check.hpp"

namespace kiln::detail {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::string device_list(const std::vector<DeviceInfo>& infos) {
    std::string s;
    for (auto& i : infos) s += "\n  [" + std::to_string(i.index) + "] " + i.name + " (" + i.type + ")";
    return s.empty() ? " (none)" : s;
}

uint32_t choose_device(const std::vector<DeviceInfo>& infos, const ContextOptions& o) {
    if (infos.empty())
        throw Error("no Vulkan device found; install a GPU driver or Mesa's lavapipe "
                    "(apt-get install mesa-vulkan-drivers)");
    auto by_index = [&](uint64_t i, const std::string& from) {
        if (i >= infos.size())
            throw InvalidArgument(from + " asks for device " + std::to_string(i) + " but there are " +
                                  std::to_string(infos.size()) + ":" + device_list(infos));
        return static_cast<uint32_t>(i);
    };
    auto by_name = [&](const std::string& name, const std::string& from) {
        for (auto& i : infos)
            if (lower(i.name).find(lower(name)) != std::string::npos) return i.index;
        throw InvalidArgument(from + " '" + name + "' matches no device name; devices:" + device_list(infos));
    };
    if (o.device_index) return by_index(*o.device_index, "device_index");
    if (!o.device_name.empty()) return by_name(o.device_name, "device_name");
    if (const char* env = std::getenv("KILN_DEVICE"); env && *env) {
        std::string v = env;
        if (std::all_of(v.begin(), v.end(), ::isdigit)) return by_index(std::stoull(v), "KILN_DEVICE");
        return by_name(v, "KILN_DEVICE");
    }
    const char* preference[] = {"discrete", "integrated", "virtual", "cpu", "other"};
    for (const char* type : preference)
        for (auto& i : infos)
            if (i.type == type && i.vulkan13) return i.index;
    return 0;
}

bool env_flag(const char* name, bool fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    std::string s = lower(v);
    return !(s == "0" || s == "off" || s == "false" || s == "no");
}

std::filesystem::path default_cache_dir() {
    if (const char* d = std::getenv("KILN_CACHE_DIR"); d && *d) return d;
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::filesystem::path(d) / "kiln";
    if (const char* d = std::getenv("HOME"); d && *d) return std::filesystem::path(d) / ".cache" / "kiln";
    return {};
}

char hex_digit(unsigned v) { return "0123456789abcdef"[v & 15]; }

std::string hex(uint32_t v) {
    std::string s(8, '0');
    for (int i = 7; i >= 0; --i, v >>= 4) s[i] = hex_digit(v);
    return s;
}

} // namespace

DeviceResources::DeviceResources(const ContextOptions& options, const ExternalDevice* external)
    : options_(options) {
    bool validation = options.validation.value_or(env_flag("KILN_VALIDATION", false));
    const bool discrete = options.emulate_discrete.value_or(env_flag("KILN_EMULATE_DISCRETE", false));
    options_.emulate_discrete = discrete;
    if (discrete) options_.direct_host_access = false;
    if (external) {
        if (!external->instance || !external->physical_device || !external->device || !external->queue)
            throw InvalidArgument("ExternalDevice needs instance, physical_device, device and queue handles");
        if (static_cast<bool>(external->lock_queue) != static_cast<bool>(external->unlock_queue))
            throw InvalidArgument(std::string("ExternalDevice has ") +
                                  (external->lock_queue ? "lock_queue but no unlock_queue" : "unlock_queue but no lock_queue") +
                                  "; give both hooks (kiln calls lock_queue before and unlock_queue after each use "
                                  "of the queue) or neither");
        instance_ = std::make_unique<vk::Instance>(external->instance);
        auto pds = instance_->physical_devices();
        auto it = std::find(pds.begin(), pds.end(), external->physical_device);
        uint32_t index = it == pds.end() ? 0 : static_cast<uint32_t>(it - pds.begin());
        vk::Enabled en;
        en.float64 = external->float64;
        en.int64 = external->int64;
        en.int16 = external->int16;
        en.int8 = external->int8;
        en.float16 = external->float16;
        en.storage8 = external->storage8;
        en.storage16 = external->storage16;
        en.push_descriptors = external->push_descriptors;
        en.host_query_reset = external->host_query_reset;
        en.synchronization2 = external->synchronization2;
        en.timeline_semaphore = external->timeline_semaphore;
        device_ = std::make_unique<vk::Device>(external->physical_device, index, external->device,
                                               external->queue, external->queue_family, en,
                                               vk::QueueLock{external->lock_queue, external->unlock_queue});
    } else {
        instance_ = std::make_unique<vk::Instance>(vk::InstanceCreateInfo{validation, options.on_validation_message});
        auto pds = instance_->physical_devices();
        std::vector<DeviceInfo> infos;
        for (uint32_t i = 0; i < pds.size(); ++i) infos.push_back(vk::query_device(pds[i], i));
        uint32_t index = choose_device(infos, options);
        device_ = std::make_unique<vk::Device>(pds[index], index);
    }
    device_->cap_binding_range(options.max_binding_range);
    allocator_ = std::make_unique<vk::Allocator>(*device_, options.block_size, !discrete);

    std::filesystem::path cache_file;
    if (options.pipeline_cache.value_or(env_flag("KILN_PIPELINE_CACHE", true))) {
        std::filesystem::path dir = options.cache_dir.empty() ? default_cache_dir() : std::filesystem::path(options.cache_dir);
        const auto& i = device_->info();
        if (!dir.empty())
            cache_file = dir / ("pipelines-" + hex(i.vendor_id) + "-" + hex(i.device_id) + "-" +
                                hex(i.driver_version) + ".bin");
    }
    pipelines_ = std::make_unique<vk::Pipelines>(*device_, cache_file);
    staging_ = std::make_unique<StagingRing>(*allocator_, options.staging_size);

    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = device_->queue_family();
    vk::check(vkCreateCommandPool(device_->handle(), &pci, nullptr, commands_.put(device_->handle())),
              "vkCreateCommandPool");
    // A CPU device (lavapipe) runs the work on the host's cores: no polling there.
    spin_us_ = device_->info().type == "cpu" ? 0 : 1000;
    if (const char* v = std::getenv("KILN_SPIN_US"); v && *v) spin_us_ = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    if (options.spin_wait_us) spin_us_ = *options.spin_wait_us;
    uint64_t timeout_ms = options.fence_timeout_ms.value_or(120000);
    if (!options.fence_timeout_ms)
        if (const char* v = std::getenv("KILN_FENCE_TIMEOUT_MS"); v && *v) timeout_ms = std::strtoull(v, nullptr, 10);
    fence_timeout_ns_ = timeout_ms == 0 || timeout_ms > UINT64_MAX / 1000000 ? UINT64_MAX : timeout_ms * 1000000;
}

} // namespace kiln::detail
