#pragma once
// One VkFFT application (vkfft_backend.h) with the command pool and fence its
// set-up submits on and waits for by itself: Vulkan objects alone, no arrays
// (the ops' FFT plans, engine/ops/fft_plan.cpp, own one each).
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>

struct KilnVkfft;

namespace kiln::vk {

class Device;

/// What VkFFT transforms: sizes[0] the fastest axis, `dims` of them, over
/// `batches`, in place in `work` (a buffer range the caller keeps alive).
/// Direct: out of place from the whole buffer `in` (in_bytes) into the
/// whole buffer `work` (work_bytes), dense, the offsets given per append;
/// `normalize`: the inverse divided by the element count.
struct VkFftShape {
    std::array<uint64_t, 3> sizes{1, 1, 1};
    uint32_t dims = 1;
    uint64_t batches = 1;
    bool real = false, f64 = false;
    VkBuffer work = VK_NULL_HANDLE;
    uint64_t work_offset = 0, work_bytes = 0;
    bool direct = false, normalize = false;
    VkBuffer in = VK_NULL_HANDLE;
    uint64_t in_bytes = 0;
};

class VkFftApp {
public:
    /// Compiles VkFFT's kernels and uploads its tables on the device's queue
    /// (under its lock). Throws Unsupported naming VkFFT's result code when
    /// VkFFT cannot make the plan.
    VkFftApp(const Device& device, const VkFftShape& shape, const char* what);
    ~VkFftApp();
    VkFftApp(const VkFftApp&) = delete;
    VkFftApp& operator=(const VkFftApp&) = delete;

    /// Records the in-place transform into cmd; VkFFT's result code (0: done).
    int append(VkCommandBuffer cmd, bool inverse) const;
    /// A direct application's transform of `in` at in_offset into `work` at
    /// work_offset (bytes); VkFFT's result code.
    int append_direct(VkCommandBuffer cmd, bool inverse, uint64_t in_offset, uint64_t work_offset) const;

private:
    void destroy_set_up();

    VkDevice device_ = VK_NULL_HANDLE;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    KilnVkfft* app_ = nullptr;
};

}  // namespace kiln::vk
