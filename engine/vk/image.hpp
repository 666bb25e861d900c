#pragma once
// A 2-D image of optimal tiling that kernels write as a storage image and
// sample (texture gathers): kept in VK_IMAGE_LAYOUT_GENERAL for its whole
// life, so that the graph's global memory barriers order its accesses as
// they order buffers' and no layout transition is ever recorded.
#include <vulkan/vulkan.h>

#include <cstdint>

namespace kiln::vk {

class Device;

class Image {
public:
    /// Whether `device` takes a `width` x `height` image of `format` as a
    /// storage image and a sampled one (optimal tiling).
    static bool supported(const Device& device, VkFormat format, uint32_t width, uint32_t height);
    /// Makes the image in memory of its own, its view and a nearest,
    /// clamp-to-edge sampler of normalized coordinates, and moves it into
    /// GENERAL layout with a submission of its own, waited for here.
    Image(const Device& device, VkFormat format, uint32_t width, uint32_t height);
    ~Image();
    Image(const Image&) = delete;
    Image& operator=(const Image&) = delete;

    uint32_t width() const { return width_; }
    uint32_t height() const { return height_; }
    VkFormat format() const { return format_; }
    VkImageView view() const { return view_; }
    VkSampler sampler() const { return sampler_; }

private:
    void destroy();
    void to_general();

    const Device& device_;
    VkFormat format_;
    uint32_t width_, height_;
    VkImage image_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkImageView view_ = VK_NULL_HANDLE;
    VkSampler sampler_ = VK_NULL_HANDLE;
};

} // namespace kiln::vk
