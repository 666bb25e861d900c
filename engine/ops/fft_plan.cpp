// kiln's FFT plans over VkFFT (Debian's libvkfft-dev, its Vulkan backend,
// reached through ops/vkfft_backend.h).
#include "ops/fft_plan.hpp"

#include "ops/vkfft_backend.h"


#include "kiln/error.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/glsl_compiler.hpp"

namespace kiln::ops {

std::string FftGeometry::key() const {
    return "fft:" + std::to_string(sizes[0]) + "x" + std::to_string(sizes[1]) + "x" + std::to_string(sizes[2]) +
           ":" + std::to_string(dims) + ":" + std::to_string(batches) + (real ? ":r2c" : ":c2c") +
           (f64 ? ":f64" : ":f32");
}

namespace {

class VkFftPlan final : public FftPlan {
public:
    VkFftPlan(const Context& ctx, const FftGeometry& g) : g_(g), device_(ops::services(ctx).device()) {
        detail::OpServices& s = ops::services(ctx);
        const DType complex = g.f64 ? DType::complex128 : DType::complex64;
        Array work = Array::empty(ctx, Shape({size_t(g.complex_count())}), complex);
        s.place(work);
        work_ = work.storage();
        make_set_up_objects();

        KilnVkfftDesc d{};
        for (int i = 0; i < 3; ++i) d.sizes[i] = g.sizes[i];
        d.dims = g.dims;
        d.batches = g.batches;
        d.real = g.real;
        d.f64 = g.f64;
        d.physical = device_.physical();
        d.device = device_.handle();
        d.queue = device_.queue();
        d.pool = pool_;
        d.fence = fence_;
        d.work = work_->buffer;
        d.work_offset = work_->offset;
        d.work_bytes = work_->bytes;
        vk::ensure_glslang();  // VkFFT is told the compiler is initialized
        int r = 0;
        // VkFFT uploads its tables and Bluestein sequences on the queue.
        device_.use_queue([&](VkQueue) { r = kiln_vkfft_create(&d, &app_); });
        if (r != 0) {
            destroy_set_up_objects();
            throw Unsupported("VkFFT could not make a plan for " + g.key() + " (VkFFTResult " + std::to_string(r) +
                              ")");
        }
    }

    ~VkFftPlan() override {
        kiln_vkfft_destroy(app_);
        destroy_set_up_objects();
    }

    Array work(const Context& ctx) const override {
        return Array(ctx.shared_state(), work_, Shape({size_t(g_.complex_count())}),
                     g_.f64 ? DType::complex128 : DType::complex64);
    }

    void record(detail::OpServices& ctx, bool inverse) override {
        detail::External e;
        e.name = std::string(inverse ? "vkfft_inverse" : "vkfft_forward");
        // VkFFT's own buffers (tables, temporary, Bluestein sequences) are
        // the plan's alone, and the plan's work is ordered through work_.
        e.buffers = {{work_, VK_NULL_HANDLE, 0, 0, detail::Access::read_write}};
        // The node keeps the plan: a captured graph may record it again later.
        auto self = std::static_pointer_cast<VkFftPlan>(shared_from_this());
        e.record = [self, inverse](VkCommandBuffer cmd, std::span<const VkDescriptorBufferInfo>) {
            if (int r = kiln_vkfft_append(self->app_, cmd, inverse))
                throw Error("VkFFT could not record the transform " + self->g_.key() + " (VkFFTResult " +
                            std::to_string(r) + ")");
        };
        ctx.record(detail::Node{std::move(e)});
    }

private:
    // VkFFT's set-up submits on a command pool and waits on a fence of its own.
    void make_set_up_objects() {
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pci.queueFamilyIndex = device_.queue_family();
        vk::check(vkCreateCommandPool(device_.handle(), &pci, nullptr, &pool_), "vkCreateCommandPool");
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkResult r = vkCreateFence(device_.handle(), &fci, nullptr, &fence_);
        if (r != VK_SUCCESS) {
            vkDestroyCommandPool(device_.handle(), pool_, nullptr);
            vk::check(r, "vkCreateFence");
        }
    }
    void destroy_set_up_objects() {
        vkDestroyFence(device_.handle(), fence_, nullptr);
        vkDestroyCommandPool(device_.handle(), pool_, nullptr);
    }

    FftGeometry g_;
    const vk::Device& device_;
    std::shared_ptr<detail::Storage> work_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    KilnVkfft* app_ = nullptr;
};

} // namespace

std::shared_ptr<FftPlan> fft_plan(const Context& ctx, const FftGeometry& g) {
    detail::OpServices& s = services(ctx);
    auto lock = s.lock();
    return std::static_pointer_cast<FftPlan>(
        s.cached(g.key(), [&]() -> std::shared_ptr<void> { return std::make_shared<VkFftPlan>(ctx, g); }));
}

} // namespace kiln::ops
