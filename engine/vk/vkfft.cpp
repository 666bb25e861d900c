#include "vk/vkfft.hpp"

#include <string>

#include "kiln/error.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/glsl_compiler.hpp"
#include "vk/vkfft_backend.h"

namespace kiln::vk {

VkFftApp::VkFftApp(const Device& device, const VkFftShape& shape, const char* what) : device_(device.handle()) {
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = device.queue_family();
    check(vkCreateCommandPool(device_, &pci, nullptr, &pool_), "vkCreateCommandPool");
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (VkResult r = vkCreateFence(device_, &fci, nullptr, &fence_); r != VK_SUCCESS) {
        destroy_set_up();
        check(r, "vkCreateFence");
    }
    KilnVkfftDesc d{};
    for (int i = 0; i < 3; ++i) d.sizes[i] = shape.sizes[i];
    d.dims = shape.dims;
    d.batches = shape.batches;
    d.real = shape.real;
    d.f64 = shape.f64;
    d.physical = device.physical();
    d.device = device_;
    d.queue = device.queue();
    d.pool = pool_;
    d.fence = fence_;
    d.work = shape.work;
    d.work_offset = shape.work_offset;
    d.work_bytes = shape.work_bytes;
    d.direct = shape.direct;
    d.normalize = shape.normalize;
    d.in = shape.in;
    d.in_bytes = shape.in_bytes;
    ensure_glslang();  // VkFFT is told the compiler is initialized
    int r = 0;
    // VkFFT uploads its tables and Bluestein sequences on the queue.
    device.use_queue([&](VkQueue) { r = kiln_vkfft_create(&d, &app_); });
    if (r != 0) {
        destroy_set_up();
        throw Unsupported(std::string("VkFFT could not make a plan for ") + what + " (VkFFTResult " +
                          std::to_string(r) + ")");
    }
}

VkFftApp::~VkFftApp() {
    kiln_vkfft_destroy(app_);
    destroy_set_up();
}

int VkFftApp::append(VkCommandBuffer cmd, bool inverse) const { return kiln_vkfft_append(app_, cmd, inverse); }

int VkFftApp::append_direct(VkCommandBuffer cmd, bool inverse, uint64_t in_offset, uint64_t work_offset) const {
    return kiln_vkfft_append_direct(app_, cmd, inverse, in_offset, work_offset);
}

void VkFftApp::destroy_set_up() {
    if (fence_) vkDestroyFence(device_, fence_, nullptr);
    if (pool_) vkDestroyCommandPool(device_, pool_, nullptr);
    fence_ = VK_NULL_HANDLE;
    pool_ = VK_NULL_HANDLE;
}

}  // namespace kiln::vk
