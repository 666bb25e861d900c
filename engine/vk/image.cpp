#include "vk/image.hpp"

#include <string>

#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/handle.hpp"

namespace kiln::vk {

namespace {
constexpr VkImageUsageFlags kUsage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
constexpr VkFormatFeatureFlags kFeatures =
    VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
}  // namespace

bool Image::supported(const Device& device, VkFormat format, uint32_t width, uint32_t height) {
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(device.physical(), format, &fp);
    if ((fp.optimalTilingFeatures & kFeatures) != kFeatures) return false;
    VkImageFormatProperties ip;
    if (vkGetPhysicalDeviceImageFormatProperties(device.physical(), format, VK_IMAGE_TYPE_2D,
                                                 VK_IMAGE_TILING_OPTIMAL, kUsage, 0, &ip) != VK_SUCCESS)
        return false;
    return width >= 1 && height >= 1 && width <= ip.maxExtent.width && height <= ip.maxExtent.height;
}

Image::Image(const Device& device, VkFormat format, uint32_t width, uint32_t height)
    : device_(device), format_(format), width_(width), height_(height) {
    VkDevice dev = device_.handle();
    try {
        VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
        ci.imageType = VK_IMAGE_TYPE_2D;
        ci.format = format;
        ci.extent = {width, height, 1};
        ci.mipLevels = ci.arrayLayers = 1;
        ci.samples = VK_SAMPLE_COUNT_1_BIT;
        ci.tiling = VK_IMAGE_TILING_OPTIMAL;
        ci.usage = kUsage;
        ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        check(vkCreateImage(dev, &ci, nullptr, &image_), "vkCreateImage");
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(dev, image_, &req);
        const auto& mp = device_.memory_properties();
        uint32_t type = UINT32_MAX;
        for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; ++i)
            if ((req.memoryTypeBits >> i & 1) &&
                (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
                type = i;
        for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; ++i)
            if (req.memoryTypeBits >> i & 1) type = i;
        if (type == UINT32_MAX) throw Unsupported("no memory type of device '" + device_.info().name + "' takes images");
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = type;
        VkResult r = vkAllocateMemory(dev, &ai, nullptr, &memory_);
        if (r != VK_SUCCESS)
            throw VulkanError("out of device memory: could not take " + std::to_string(req.size >> 20) +
                                  " MiB for a " + std::to_string(width) + "x" + std::to_string(height) +
                                  " image on '" + device_.info().name + "': " + result_name(r),
                              r);
        check(vkBindImageMemory(dev, image_, memory_, 0), "vkBindImageMemory");
        VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vi.image = image_;
        vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vi.format = format;
        vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        check(vkCreateImageView(dev, &vi, nullptr, &view_), "vkCreateImageView");
        VkSamplerCreateInfo si{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
        si.magFilter = si.minFilter = VK_FILTER_NEAREST;
        si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
        si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        si.maxLod = 0;
        check(vkCreateSampler(dev, &si, nullptr, &sampler_), "vkCreateSampler");
        to_general();
    } catch (...) {
        destroy();
        throw;
    }
}

void Image::to_general() {
    VkDevice dev = device_.handle();
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pi.queueFamilyIndex = device_.queue_family();
    CommandPool pool;
    check(vkCreateCommandPool(dev, &pi, nullptr, pool.put(dev)), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    check(vkAllocateCommandBuffers(dev, &ai, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    // Later work on the queue (compute) comes after the transition: the
    // barrier's second scope holds every command after it in submission order.
    VkImageMemoryBarrier2 b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    b.srcStageMask = VK_PIPELINE_STAGE_2_NONE;
    b.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    b.dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                      VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image_;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = 1;
    dep.pImageMemoryBarriers = &b;
    vkCmdPipelineBarrier2(cmd, &dep);
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    Fence fence;
    check(vkCreateFence(dev, &fi, nullptr, fence.put(dev)), "vkCreateFence");
    VkCommandBufferSubmitInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cbi.commandBuffer = cmd;
    VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    si.commandBufferInfoCount = 1;
    si.pCommandBufferInfos = &cbi;
    device_.submit(si, fence);
    check(vkWaitForFences(dev, 1, fence.address(), VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

void Image::destroy() {
    VkDevice dev = device_.handle();
    if (sampler_) vkDestroySampler(dev, sampler_, nullptr);
    if (view_) vkDestroyImageView(dev, view_, nullptr);
    if (image_) vkDestroyImage(dev, image_, nullptr);
    if (memory_) vkFreeMemory(dev, memory_, nullptr);
    sampler_ = VK_NULL_HANDLE;
    view_ = VK_NULL_HANDLE;
    image_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
}

// Owners keep the image until the submissions that use it have finished
// (graph nodes hold it; see graph/node.hpp).
Image::~Image() { destroy(); }

} // namespace kiln::vk
