#pragma once
// kiln::Array: an n-d array (1-3 dims, (z, y, x)) in device memory.
#include <memory>
#include <span>
#include <vector>

#include "kiln/context.hpp"
#include "kiln/dtype.hpp"
#include "kiln/host_array.hpp"
#include "kiln/shape.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

namespace detail {
struct Storage;
struct ContextImpl;
}

/// A device array. Copies are handles to the same memory (as CuPy arrays);
/// the memory is freed when the last handle goes and the GPU is done with it.
/// Ops record lazily: work is submitted when a result is pulled, on sync(),
/// or when pending work grows large.
class Array {
public:
    Array() = default;  ///< a null handle
    ~Array();
    Array(const Array&);
    Array& operator=(const Array&);
    Array(Array&&) noexcept;
    Array& operator=(Array&&) noexcept;

    /// Uninitialised array (its memory is taken when first used). Throws
    /// OutOfMemory, naming both sizes, for more bytes than the device's
    /// largest heap or maxMemoryAllocationSize allows.
    static Array empty(const Context& ctx, Shape shape, DType dtype = DType::float32);
    static Array zeros(const Context& ctx, Shape shape, DType dtype = DType::float32);
    /// Every element set to value (converted to dtype as kiln::cast converts).
    static Array full(const Context& ctx, Shape shape, double value, DType dtype = DType::float32);
    /// A new array holding a copy of host data (`bytes` must be shape.size() * dtype size).
    static Array from_host(const Context& ctx, Shape shape, DType dtype, const void* data,
                           size_t bytes);
    static Array from_host(const Context& ctx, const HostArray& host);
    template <typename T>
    static Array from(const Context& ctx, Shape shape, std::span<const T> values) {
        return from_host(ctx, shape, dtype_of_v<T>, values.data(), values.size_bytes());
    }
    template <typename T>
    static Array from(const Context& ctx, Shape shape, const std::vector<T>& values) {
        return from(ctx, shape, std::span<const T>(values));
    }

    /// Replaces the contents with host data of exactly nbytes() bytes. The
    /// data is copied (or transferred) before push returns.
    void push(const void* data, size_t bytes);
    template <typename T> void push(std::span<const T> values) {
        check_dtype(dtype_of_v<T>, "push");
        push(values.data(), values.size_bytes());
    }

    /// Waits for the work that produces this array and copies it into the
    /// caller's memory (exactly nbytes() bytes), without an extra host copy
    /// where the device allows.
    void pull(void* dst, size_t bytes) const;
    template <typename T> void pull(std::span<T> dst) const {
        check_dtype(dtype_of_v<T>, "pull");
        pull(dst.data(), dst.size_bytes());
    }
    template <typename T> std::vector<T> to_vector() const {
        check_dtype(dtype_of_v<T>, "to_vector");
        std::vector<T> v(size());
        pull(v.data(), v.size() * sizeof(T));
        return v;
    }
    HostArray to_host() const;

    bool valid() const { return storage_ != nullptr; }
    explicit operator bool() const { return valid(); }
    const Shape& shape() const { return shape_; }
    DType dtype() const { return dtype_; }
    size_t size() const { return shape_.size(); }
    size_t ndim() const { return shape_.ndim(); }
    size_t nbytes() const { return shape_.size() * dtype_size(dtype_); }
    Context context() const;

    /// Same memory, new shape of the same size (as numpy's reshape of a C-contiguous array).
    Array reshape(Shape shape) const;

    /// Internals for ops.
    const std::shared_ptr<detail::Storage>& storage() const { return storage_; }
    detail::ContextImpl& state() const;
    Array(std::shared_ptr<detail::ContextImpl> ctx, std::shared_ptr<detail::Storage> s, Shape shape,
          DType dtype);

private:
    void check_dtype(DType t, const char* what) const;
    void require(const char* what) const;
    std::shared_ptr<detail::ContextImpl> ctx_;
    std::shared_ptr<detail::Storage> storage_;
    Shape shape_;
    DType dtype_ = DType::float32;
};

} // namespace kiln
#pragma GCC visibility pop
