#include "kiln/pinned.hpp"

#include "graph/context_state.hpp"

namespace kiln {

struct PinnedBuffer::Impl {
    std::shared_ptr<detail::ContextState> ctx;
    vk::Allocation alloc;
};

PinnedBuffer::PinnedBuffer(const Context& ctx, size_t bytes) : impl_(std::make_unique<Impl>()) {
    if (bytes == 0) throw InvalidArgument("PinnedBuffer of 0 bytes; ask for at least one byte");
    impl_->ctx = ctx.shared_state();
    impl_->alloc = ctx.state().allocator().allocate(bytes, vk::MemoryUsage::host);
    data_ = impl_->alloc.mapped();
    size_ = bytes;
}

PinnedBuffer::PinnedBuffer() = default;

PinnedBuffer::~PinnedBuffer() {
    // Transfers from pinned memory are synchronous, so nothing still uses it.
    if (impl_ && impl_->alloc) impl_->ctx->retire(impl_->alloc, impl_->ctx->completed_serial());
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& o) noexcept
    : impl_(std::move(o.impl_)), data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
        PinnedBuffer tmp(std::move(*this));
        impl_ = std::move(o.impl_);
        data_ = o.data_;
        size_ = o.size_;
        o.data_ = nullptr;
        o.size_ = 0;
    }
    return *this;
}

} // namespace kiln
