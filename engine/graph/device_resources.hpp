#pragma once
// A context's configuration and device resources: the options as resolved
// (environment, emulate_discrete), the instance, device, sub-allocator,
// pipelines, staging ring and command pool, and how the host waits for the
// GPU (spin, timeout). Made once by the context; the objects inside lock
// themselves where they need to (allocator, pipelines), and the staging
// ring is used under the context's lock.
#include <cstdint>
#include <memory>

#include "graph/staging.hpp"
#include "kiln/context.hpp"
#include "vk/allocator.hpp"
#include "vk/device.hpp"
#include "vk/handle.hpp"
#include "vk/instance.hpp"
#include "vk/pipeline.hpp"

namespace kiln::detail {

class DeviceResources {
public:
    /// Opens the device (`external` adopted when given) and everything on it.
    DeviceResources(const ContextOptions& options, const ExternalDevice* external);
    DeviceResources(const DeviceResources&) = delete;
    DeviceResources& operator=(const DeviceResources&) = delete;

    /// The options, emulate_discrete resolved (and direct_host_access off with it).
    const ContextOptions& options() const { return options_; }
    vk::Instance& instance() { return *instance_; }
    vk::Device& device() { return *device_; }
    const vk::Device& device() const { return *device_; }
    const DeviceInfo& info() const { return device_->info(); }
    vk::Allocator& allocator() { return *allocator_; }
    vk::Pipelines& pipelines() { return *pipelines_; }
    StagingRing& staging() { return *staging_; }
    VkCommandPool command_pool() const { return commands_; }
    /// Whether pulls read arrays in place (mapped device memory and
    /// options().direct_host_access): then every submission ends with a
    /// barrier to host reads, not only those that copy.
    bool host_reads_in_place() const {
        return options_.direct_host_access && allocator_->device_memory_mappable();
    }
    /// How long the host polls a fence before it blocks, microseconds.
    uint32_t spin_us() const { return spin_us_; }
    /// How long it waits for one submission before a VulkanError names its kernels.
    uint64_t fence_timeout_ns() const { return fence_timeout_ns_; }
    MemoryStats memory_stats() const { return allocator_->stats(); }

private:
    ContextOptions options_;
    std::unique_ptr<vk::Instance> instance_;
    std::unique_ptr<vk::Device> device_;
    std::unique_ptr<vk::Allocator> allocator_;
    std::unique_ptr<vk::Pipelines> pipelines_;
    std::unique_ptr<StagingRing> staging_;
    vk::CommandPool commands_;  // its command buffers are freed before it goes
    uint32_t spin_us_ = 0;
    uint64_t fence_timeout_ns_ = UINT64_MAX;
};

} // namespace kiln::detail
