#pragma once
// Compute pipelines, created lazily and cached in memory by kernel name and
// specialization constants, and in a VkPipelineCache persisted on disk per
// device and driver version.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace kiln::vk {

class Device;

/// What a pipeline needs: SPIR-V, number of storage-buffer bindings (0..n-1
/// in set 0), push-constant bytes and specialization constants (ids 0..n-1;
/// 0-2 are the workgroup size by kiln's convention).
struct PipelineKey {
    std::string name;
    std::span<const uint32_t> spirv;
    uint32_t bindings = 0;
    uint32_t push_size = 0;
    std::vector<uint32_t> spec;
    std::string entry = "main";
    /// The image bindings after the buffers, one letter each: 's' a storage
    /// image, 't' a combined image sampler.
    std::string images;
};

struct Pipeline {
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    uint32_t bindings = 0;
};

class Pipelines {
public:
    /// cache_file empty: no disk cache.
    Pipelines(const Device& device, std::filesystem::path cache_file);
    ~Pipelines();
    Pipelines(const Pipelines&) = delete;
    Pipelines& operator=(const Pipelines&) = delete;

    const Pipeline& get(const PipelineKey& key);
    /// Writes the pipeline cache to disk (atomically); also done on destruction.
    void save();
    size_t size() const { return pipelines_.size(); }
    const std::filesystem::path& cache_file() const { return cache_file_; }

private:
    struct Layout {
        VkDescriptorSetLayout set = VK_NULL_HANDLE;
        VkPipelineLayout pipeline = VK_NULL_HANDLE;
    };
    const Layout& layout(uint32_t bindings, const std::string& images, uint32_t push_size);

    const Device& device_;
    std::filesystem::path cache_file_;
    VkPipelineCache cache_ = VK_NULL_HANDLE;
    std::mutex mutex_;
    std::map<std::tuple<uint32_t, std::string, uint32_t>, Layout> layouts_;
    std::map<std::pair<std::string, std::vector<uint32_t>>, Pipeline> pipelines_;
    std::map<std::string, VkShaderModule> modules_;
};

} // namespace kiln::vk
