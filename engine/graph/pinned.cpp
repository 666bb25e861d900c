#include "kiln/pinned.hpp"

#include "graph/context_impl.hpp"

namespace kiln {

struct PinnedBuffer::Impl {
    std::shared_ptr<detail::ContextImpl> ctx;  // outlives the memory
    vk::UniqueAllocation alloc;
};

PinnedBuffer::PinnedBuffer(const Context& ctx, size_t bytes) : impl_(std::make_unique<Impl>()) {
    if (bytes == 0) throw InvalidArgument("PinnedBuffer of 0 bytes; ask for at least one byte");
    impl_->ctx = ctx.shared_state();
    impl_->alloc = vk::UniqueAllocation(ctx.state().resources.allocator(), bytes, vk::MemoryUsage::host);
    data_ = impl_->alloc->mapped();
    size_ = bytes;
}

PinnedBuffer::PinnedBuffer() = default;

// Transfers from pinned memory are synchronous, so nothing still uses it:
// its memory is freed at once.
PinnedBuffer::~PinnedBuffer() = default;

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
