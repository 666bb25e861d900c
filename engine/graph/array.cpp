#include "kiln/array.hpp"

#include <algorithm>

#include "graph/context_impl.hpp"
#include "graph/transfer.hpp"

namespace kiln {

namespace {

void add_handle(const std::shared_ptr<detail::Storage>& s) {
    if (s) s->handles.fetch_add(1);
}
void drop_handle(const std::shared_ptr<detail::Storage>& s) {
    if (s) s->handles.fetch_sub(1);
}

} // namespace

Array::Array(std::shared_ptr<detail::ContextImpl> ctx, std::shared_ptr<detail::Storage> s, Shape shape,
             DType dtype)
    : ctx_(std::move(ctx)), storage_(std::move(s)), shape_(shape), dtype_(dtype) {
    add_handle(storage_);
}

Array::~Array() { drop_handle(storage_); }

Array::Array(const Array& o) : ctx_(o.ctx_), storage_(o.storage_), shape_(o.shape_), dtype_(o.dtype_) {
    add_handle(storage_);
}

Array& Array::operator=(const Array& o) {
    if (this != &o) {
        add_handle(o.storage_);
        drop_handle(storage_);
        ctx_ = o.ctx_;
        storage_ = o.storage_;
        shape_ = o.shape_;
        dtype_ = o.dtype_;
    }
    return *this;
}

Array::Array(Array&& o) noexcept
    : ctx_(std::move(o.ctx_)), storage_(std::move(o.storage_)), shape_(o.shape_), dtype_(o.dtype_) {}

Array& Array::operator=(Array&& o) noexcept {
    if (this != &o) {
        drop_handle(storage_);
        ctx_ = std::move(o.ctx_);
        storage_ = std::move(o.storage_);
        shape_ = o.shape_;
        dtype_ = o.dtype_;
    }
    return *this;
}

Array Array::empty(const Context& ctx, Shape shape, DType dtype) {
    if (shape.empty())
        throw InvalidArgument("Array::empty: the shape is empty; give 1 to 3 extents, each >= 1");
    detail::ContextImpl& st = ctx.state();
    const DeviceInfo& info = st.resources.info();
    const vk::Enabled& enabled = st.resources.device().enabled();
    if (dtype_real_part(dtype) == DType::float64 && !enabled.float64)
        throw Unsupported(std::string(dtype_name(dtype)) + " arrays need shaderFloat64, which device '" + info.name +
                          "' does not support; use float32 (complex64)");
    if ((dtype == DType::int64 || dtype == DType::uint64) && !enabled.int64)
        throw Unsupported(std::string(dtype_name(dtype)) + " arrays need shaderInt64, which device '" + info.name +
                          "' does not support; cast on the host to int32 (or float64 for values beyond 2^31)");
    if ((dtype == DType::int8 || dtype == DType::uint8) && !(enabled.storage8 && enabled.int8))
        throw Unsupported("8-bit arrays need storageBuffer8BitAccess and shaderInt8, which device '" + info.name +
                          "' does not support");
    if ((dtype == DType::int16 || dtype == DType::uint16) &&
        !(enabled.storage16 && enabled.int16))
        throw Unsupported("16-bit arrays need storageBuffer16BitAccess and shaderInt16, which device '" +
                          info.name + "' does not support");
    // What one allocation on this device can be: the largest heap, and no
    // more than maxMemoryAllocationSize. Refused now, not at the first use.
    const uint64_t bytes = byte_size(shape, dtype);
    uint64_t largest = 0;
    for (const HeapInfo& h : info.heaps) largest = std::max(largest, h.size);
    if (info.max_memory_allocation) largest = std::min<uint64_t>(largest, info.max_memory_allocation);
    if (largest && bytes > largest)
        throw OutOfMemory("a " + std::string(dtype_name(dtype)) + " array of shape " + shape.str() + " needs " +
                              std::to_string(bytes) + " bytes; device '" + info.name + "' can hold at most " +
                              std::to_string(largest) + " bytes in one array");
    auto s = std::make_shared<detail::Storage>(&st.retired, bytes);
    return Array(ctx.shared_state(), std::move(s), shape, dtype);
}

Array Array::from_host(const Context& ctx, Shape shape, DType dtype, const void* data, size_t bytes) {
    Array a = empty(ctx, shape, dtype);
    a.push(data, bytes);
    return a;
}

Array Array::from_host(const Context& ctx, const HostArray& host) {
    return from_host(ctx, host.shape, host.dtype, host.data(), host.nbytes());
}

void Array::require(const char* what) const {
    if (!storage_) throw InvalidArgument(std::string(what) + " on a null Array (default-constructed or moved from)");
}

void Array::check_dtype(DType t, const char* what) const {
    require(what);
    if (t != dtype_)
        throw InvalidArgument(std::string(what) + ": the array holds " + std::string(dtype_name(dtype_)) +
                              ", the host buffer is " + std::string(dtype_name(t)) + "; use matching types");
}

void Array::push(const void* data, size_t bytes) {
    require("push");
    if (bytes != nbytes())
        throw InvalidArgument("push: " + std::to_string(bytes) + " bytes given for an array of shape " +
                              shape_.str() + " " + std::string(dtype_name(dtype_)) + ", which needs exactly " +
                              std::to_string(nbytes()));
    detail::upload(ctx_->resources, ctx_->scheduler, storage_, data, bytes);
}

void Array::pull(void* dst, size_t bytes) const {
    require("pull");
    if (bytes != nbytes())
        throw InvalidArgument("pull: a buffer of " + std::to_string(bytes) + " bytes given for an array of shape " +
                              shape_.str() + " " + std::string(dtype_name(dtype_)) + ", which needs exactly " +
                              std::to_string(nbytes()));
    detail::download(ctx_->resources, ctx_->scheduler, storage_, dst, bytes);
}

HostArray Array::to_host() const {
    require("to_host");
    HostArray h(shape_, dtype_);
    pull(h.data(), h.nbytes());
    return h;
}

Context Array::context() const {
    require("context");
    return Context(ctx_);
}

detail::ContextImpl& Array::state() const {
    require("an operation");
    return *ctx_;
}

Array Array::reshape(Shape shape) const {
    require("reshape");
    if (shape.size() != shape_.size())
        throw InvalidArgument("reshape: cannot reshape an array of shape " + shape_.str() + " (" +
                              std::to_string(size()) + " elements) into " + shape.str() + " (" +
                              std::to_string(shape.size()) + " elements)");
    return Array(ctx_, storage_, shape, dtype_);
}

} // namespace kiln
