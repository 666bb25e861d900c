#include "vk/pipeline.hpp"

#include <fstream>
#include <iterator>

#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/float_controls.hpp"

namespace kiln::vk {

Pipelines::Pipelines(const Device& device, std::filesystem::path cache_file)
    : device_(device), cache_file_(std::move(cache_file)) {
    std::vector<char> data;
    if (!cache_file_.empty()) {
        std::ifstream in(cache_file_, std::ios::binary);
        if (in) data.assign(std::istreambuf_iterator<char>(in), {});
    }
    VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    // The driver validates the header (vendor, device, UUID) and ignores a
    // cache from another driver, so a stale file is harmless.
    ci.initialDataSize = data.size();
    ci.pInitialData = data.empty() ? nullptr : data.data();
    if (vkCreatePipelineCache(device_.handle(), &ci, nullptr, &cache_) != VK_SUCCESS) {
        ci.initialDataSize = 0;
        ci.pInitialData = nullptr;
        check(vkCreatePipelineCache(device_.handle(), &ci, nullptr, &cache_), "vkCreatePipelineCache");
    }
}

Pipelines::~Pipelines() {
    try {
        save();
    } catch (...) {
        // A cache that cannot be written only costs compile time next run.
    }
    VkDevice dev = device_.handle();
    for (auto& [k, p] : pipelines_) vkDestroyPipeline(dev, p.pipeline, nullptr);
    for (auto& [k, l] : layouts_) {
        vkDestroyPipelineLayout(dev, l.pipeline, nullptr);
        vkDestroyDescriptorSetLayout(dev, l.set, nullptr);
    }
    for (auto& [k, m] : modules_) vkDestroyShaderModule(dev, m, nullptr);
    vkDestroyPipelineCache(dev, cache_, nullptr);
}

void Pipelines::save() {
    if (cache_file_.empty() || pipelines_.empty()) return;
    size_t n = 0;
    check(vkGetPipelineCacheData(device_.handle(), cache_, &n, nullptr), "vkGetPipelineCacheData");
    std::vector<char> data(n);
    check(vkGetPipelineCacheData(device_.handle(), cache_, &n, data.data()), "vkGetPipelineCacheData");
    std::filesystem::create_directories(cache_file_.parent_path());
    auto tmp = cache_file_;
    tmp += ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(this));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(data.data(), static_cast<std::streamsize>(n));
        if (!out) throw IoError("could not write pipeline cache " + tmp.string());
    }
    std::filesystem::rename(tmp, cache_file_);
}

const Pipelines::Layout& Pipelines::layout(uint32_t bindings, const std::string& images, uint32_t push_size) {
    auto key = std::make_tuple(bindings, images, push_size);
    auto it = layouts_.find(key);
    if (it != layouts_.end()) return it->second;
    const uint32_t total = bindings + static_cast<uint32_t>(images.size());
    std::vector<VkDescriptorSetLayoutBinding> b(total);
    for (uint32_t i = 0; i < total; ++i) {
        VkDescriptorType t = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        if (i >= bindings)
            t = images[i - bindings] == 't' ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                            : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
        b[i] = {i, t, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo sci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    if (device_.enabled().push_descriptors)
        sci.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    sci.bindingCount = total;
    sci.pBindings = b.data();
    Layout l;
    check(vkCreateDescriptorSetLayout(device_.handle(), &sci, nullptr, &l.set), "vkCreateDescriptorSetLayout");
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
    VkPipelineLayoutCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pci.setLayoutCount = 1;
    pci.pSetLayouts = &l.set;
    pci.pushConstantRangeCount = push_size ? 1 : 0;
    pci.pPushConstantRanges = &range;
    VkResult r = vkCreatePipelineLayout(device_.handle(), &pci, nullptr, &l.pipeline);
    if (r != VK_SUCCESS) {
        vkDestroyDescriptorSetLayout(device_.handle(), l.set, nullptr);
        check(r, "vkCreatePipelineLayout");
    }
    return layouts_.emplace(key, l).first->second;
}

const Pipeline& Pipelines::get(const PipelineKey& key) {
    std::lock_guard lock(mutex_);
    auto id = std::make_pair(key.name, key.spec);
    auto it = pipelines_.find(id);
    if (it != pipelines_.end()) return it->second;

    VkDevice dev = device_.handle();
    VkShaderModule& module = modules_[key.name];
    if (!module) {
        // Denormals and NaN kept wherever the device can (float_controls.hpp).
        const DeviceInfo& i = device_.info();
        const FloatControls fc{i.denorm_preserve32, i.denorm_preserve64, i.nan_preserve32, i.nan_preserve64};
        std::vector<uint32_t> patched;
        std::span<const uint32_t> code = key.spirv;
        if (fc.any()) code = patched = with_float_controls(key.spirv, fc);
        VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        mci.codeSize = code.size_bytes();
        mci.pCode = code.data();
        VkResult r = vkCreateShaderModule(dev, &mci, nullptr, &module);
        if (r != VK_SUCCESS) {
            modules_.erase(key.name);
            check(r, ("vkCreateShaderModule for kernel " + key.name).c_str());
        }
    }
    const Layout& l = layout(key.bindings, key.images, key.push_size);

    std::vector<VkSpecializationMapEntry> entries(key.spec.size());
    for (uint32_t i = 0; i < key.spec.size(); ++i)
        entries[i] = {i, static_cast<uint32_t>(i * sizeof(uint32_t)), sizeof(uint32_t)};
    VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(),
                              key.spec.size() * sizeof(uint32_t), key.spec.data()};
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = module;
    ci.stage.pName = key.entry.c_str();
    ci.stage.pSpecializationInfo = key.spec.empty() ? nullptr : &spec;
    ci.layout = l.pipeline;
    Pipeline p;
    check(vkCreateComputePipelines(dev, cache_, 1, &ci, nullptr, &p.pipeline),
          ("vkCreateComputePipelines for kernel " + key.name).c_str());
    p.layout = l.pipeline;
    p.set_layout = l.set;
    p.bindings = key.bindings;
    return pipelines_.emplace(id, p).first->second;
}

} // namespace kiln::vk
