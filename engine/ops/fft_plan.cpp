// kiln's FFT plans over VkFFT (Debian's libvkfft-dev, its Vulkan backend,
// reached through vk/vkfft.hpp, which owns its set-up objects).
#include "ops/fft_plan.hpp"

#include <memory>

#include "kiln/error.hpp"
#include "vk/vkfft.hpp"

namespace kiln::ops {

std::string FftGeometry::key() const {
    return "fft:" + std::to_string(sizes[0]) + "x" + std::to_string(sizes[1]) + "x" + std::to_string(sizes[2]) +
           ":" + std::to_string(dims) + ":" + std::to_string(batches) + (real ? ":r2c" : ":c2c") +
           (f64 ? ":f64" : ":f32");
}

namespace {

class VkFftPlan final : public FftPlan {
public:
    VkFftPlan(const Context& ctx, const FftGeometry& g) : g_(g) {
        detail::OpServices& s = ops::services(ctx);
        const DType complex = g.f64 ? DType::complex128 : DType::complex64;
        Array work = Array::empty(ctx, Shape({size_t(g.complex_count())}), complex);
        s.place(work);
        work_ = work.storage();
        vk::VkFftShape shape;
        for (int i = 0; i < 3; ++i) shape.sizes[i] = g.sizes[i];
        shape.dims = g.dims;
        shape.batches = g.batches;
        shape.real = g.real;
        shape.f64 = g.f64;
        shape.work = work_->buffer;
        shape.work_offset = work_->offset;
        shape.work_bytes = work_->bytes;
        app_ = std::make_unique<vk::VkFftApp>(s.device(), shape, g.key().c_str());
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
            if (int r = self->app_->append(cmd, inverse))
                throw Error("VkFFT could not record the transform " + self->g_.key() + " (VkFFTResult " +
                            std::to_string(r) + ")");
        };
        ctx.record(detail::Node{std::move(e)});
    }

private:
    FftGeometry g_;
    std::shared_ptr<detail::Storage> work_;
    std::unique_ptr<vk::VkFftApp> app_;
};

} // namespace

std::shared_ptr<FftPlan> fft_plan(const Context& ctx, const FftGeometry& g) {
    detail::OpServices& s = services(ctx);
    auto lock = s.lock();
    return std::static_pointer_cast<FftPlan>(
        s.cached(g.key(), [&]() -> std::shared_ptr<void> { return std::make_shared<VkFftPlan>(ctx, g); }));
}

} // namespace kiln::ops
