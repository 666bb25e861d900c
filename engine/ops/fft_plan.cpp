// kiln's FFT plans over VkFFT (Debian's libvkfft-dev, its Vulkan backend,
// reached through vk/vkfft.hpp, which owns its set-up objects).
#include "ops/fft_plan.hpp"

#include <algorithm>
#include <memory>
#include <tuple>
#include <vector>


#include "kiln/error.hpp"
#include "vk/vkfft.hpp"

namespace kiln::ops {

std::string FftGeometry::key() const {
    return "fft:" + std::to_string(sizes[0]) + "x" + std::to_string(sizes[1]) + "x" + std::to_string(sizes[2]) +
           ":" + std::to_string(dims) + ":" + std::to_string(batches) + (real ? ":r2c" : ":c2c") +
           (f64 ? ":f64" : ":f32");
}

namespace {

// VkFFT's description of g, without buffers.
vk::VkFftShape vkfft_shape(const FftGeometry& g) {
    vk::VkFftShape shape;
    for (int i = 0; i < 3; ++i) shape.sizes[i] = g.sizes[i];
    shape.dims = g.dims;
    shape.batches = g.batches;
    shape.real = g.real;
    shape.f64 = g.f64;
    return shape;
}

class VkFftPlan final : public FftPlan {
public:
    VkFftPlan(const Context& ctx, const FftGeometry& g) : g_(g) {
        detail::OpServices& s = ops::services(ctx);
        const DType complex = g.f64 ? DType::complex128 : DType::complex64;
        Array work = Array::empty(ctx, Shape({size_t(g.complex_count())}), complex);
        s.place(work);
        work_ = work.storage();
        vk::VkFftShape shape = vkfft_shape(g);
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

    bool record_direct(detail::OpServices& ctx, const Array& in, const Array& out, bool inverse,
                       bool normalize) override {
        const auto bi = ctx.block_of(in), bo = ctx.block_of(out);
        // VkFFT binds each block whole: a block of its own past what a
        // descriptor may bind stays on the copy path (which refuses it).
        const uint64_t most = ctx.info().max_storage_buffer_range;
        if (!bi || !bo || bi->block_bytes > most || bo->block_bytes > most) return false;
        const std::shared_ptr<vk::VkFftApp> app = direct_app(ctx, *bi, *bo, normalize);
        detail::External e;
        e.name = std::string(inverse ? "vkfft_inverse" : "vkfft_forward");
        // work_ orders the plan's uses: its applications share VkFFT's
        // temporary buffer and tables.
        e.buffers = {{in.storage(), VK_NULL_HANDLE, 0, 0, detail::Access::read},
                     {out.storage(), VK_NULL_HANDLE, 0, 0, detail::Access::write},
                     {work_, VK_NULL_HANDLE, 0, 0, detail::Access::read_write}};
        auto self = std::static_pointer_cast<VkFftPlan>(shared_from_this());
        const VkBuffer in_buffer = bi->buffer, out_buffer = bo->buffer;
        e.record = [self, app, inverse, in_buffer, out_buffer](VkCommandBuffer cmd,
                                                               std::span<const VkDescriptorBufferInfo> b) {
            if (b[0].buffer != in_buffer || b[1].buffer != out_buffer)
                throw Error("VkFFT: the arrays of " + self->g_.key() + " moved after their plan was chosen");
            if (int r = app->append_direct(cmd, inverse, b[0].offset, b[1].offset))
                throw Error("VkFFT could not record the transform " + self->g_.key() + " (VkFFTResult " +
                            std::to_string(r) + ")");
        };
        ctx.record(detail::Node{std::move(e)});
        return true;
    }

private:
    using Place = detail::OpServices::BlockPlace;
    // The application for this pair of blocks, made on first use; the most
    // recently used first, at most kept_direct of them.
    std::shared_ptr<vk::VkFftApp> direct_app(detail::OpServices& s, const Place& in, const Place& out,
                                             bool normalize) {
        const auto same = [&](const Direct& d) {
            return d.in == in.block_key && d.out == out.block_key && d.normalize == normalize;
        };
        auto it = std::find_if(direct_.begin(), direct_.end(), same);
        if (it != direct_.end()) {
            std::rotate(direct_.begin(), it, it + 1);
            return direct_.front().app;
        }
        vk::VkFftShape shape = vkfft_shape(g_);
        shape.direct = true;
        shape.normalize = normalize;
        std::tie(shape.work, shape.work_bytes, shape.in, shape.in_bytes) =
            std::tuple(out.buffer, out.block_bytes, in.buffer, in.block_bytes);
        auto app = std::make_shared<vk::VkFftApp>(s.device(), shape, g_.key().c_str());
        direct_.insert(direct_.begin(), Direct{in.block_key, out.block_key, normalize, app});
        if (direct_.size() > kept_direct) direct_.pop_back();
        return app;
    }

    struct Direct {
        uint64_t in, out;  // the blocks' keys
        bool normalize;
        std::shared_ptr<vk::VkFftApp> app;
    };
    static constexpr size_t kept_direct = 4;

    FftGeometry g_;
    std::shared_ptr<detail::Storage> work_;
    std::unique_ptr<vk::VkFftApp> app_;
    std::vector<Direct> direct_;
};

} // namespace

std::shared_ptr<FftPlan> fft_plan(const Context& ctx, const FftGeometry& g) {
    detail::OpServices& s = services(ctx);
    auto lock = s.lock();
    return std::static_pointer_cast<FftPlan>(
        s.cached(g.key(), [&]() -> std::shared_ptr<void> { return std::make_shared<VkFftPlan>(ctx, g); }));
}

} // namespace kiln::ops
