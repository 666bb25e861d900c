#pragma once
// The C++ half of an op: look up a built-in kernel, declare its bindings,
// push constants, specialization constants and grid, record it.
#include <array>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "graph/op_services.hpp"
#include "kiln/array.hpp"
#include "ops/kernel_table.hpp"

namespace kiln::ops {

using shaders::KernelId;
using shaders::Shader;
using shaders::variant;

/// Whether a built-in kernel has this name (user kernels may not take one).
bool is_builtin_kernel(std::string_view name);

/// Throws kiln::InvalidArgument unless a and b live in the same context.
void check_same_context(const Array& a, const Array& b, const char* op);
/// Throws unless shapes (and, when asked, dtypes) match.
void check_same_shape(const Array& a, const Array& b, const char* op, bool dtype_too = true);

/// Records one dispatch of a built-in kernel.
class Dispatcher {
public:
    /// default_local: the kernel's workgroup size unless the context has a
    /// tuned one for this kernel (or its shader's) name.
    Dispatcher(detail::OpServices& ctx, KernelId kernel, std::array<uint32_t, 3> default_local);
    /// A kernel compiled at run time: `owner` keeps `spirv` alive while the
    /// graph holds the node; `entry` is its entry point.
    Dispatcher(detail::OpServices& ctx, std::string kernel, std::span<const uint32_t> spirv,
               std::shared_ptr<const void> owner, std::string entry, std::array<uint32_t, 3> local);

    Dispatcher& read(const Array& a, VkDeviceSize offset = 0, VkDeviceSize range = 0);
    Dispatcher& write(const Array& a, VkDeviceSize offset = 0, VkDeviceSize range = 0);
    Dispatcher& read_write(const Array& a, VkDeviceSize offset = 0, VkDeviceSize range = 0);
    /// The next image binding (after the buffers): written as a storage
    /// image, or sampled. The node keeps the image until the work is done.
    Dispatcher& store(std::shared_ptr<const vk::Image> image);
    Dispatcher& sample(std::shared_ptr<const vk::Image> image);
    /// The push constants, as a C++ struct mirroring the shader's block: a
    /// built-in kernel's block size (kernel table) must be the struct's size,
    /// give or take the struct's trailing padding, else this throws (a test
    /// of every op then fails: the struct and the shader disagree).
    template <typename T> Dispatcher& push(const T& value) {
        static_assert(std::is_trivially_copyable_v<T>);
        check_push_size(sizeof(T), alignof(T));
        return push_raw(&value, sizeof(T));
    }
    Dispatcher& push_raw(const void* data, size_t bytes) {
        node_.push.resize(bytes);
        std::memcpy(node_.push.data(), data, bytes);
        return *this;
    }
    /// Specialization constant 3, 4, ... in call order.
    Dispatcher& spec(uint32_t value);
    Dispatcher& groups(uint32_t x, uint32_t y = 1, uint32_t z = 1);
    /// Enough workgroups to cover nx * ny * nz invocations.
    Dispatcher& cover(uint64_t nx, uint64_t ny = 1, uint64_t nz = 1);
    /// A grid-stride grid for n elements (capped to the device's limit).
    Dispatcher& stride_grid(uint64_t n);
    const std::array<uint32_t, 3>& local() const { return local_; }
    /// Throws kiln::Unsupported unless the workgroup (a tuned size too) is a
    /// whole number of subgroups: for kernels whose subgroups each take a
    /// full share of the work, where a partial subgroup would skip elements.
    Dispatcher& whole_subgroups();
    void record();

private:
    Dispatcher& bind(const Array& a, VkDeviceSize offset, VkDeviceSize range, detail::Access access);
    void check_push_size(size_t bytes, size_t align) const;
    detail::OpServices& ctx_;
    const shaders::KernelInfo* builtin_ = nullptr;  // null for run-time compiled kernels
    detail::Dispatch node_;
    std::array<uint32_t, 3> local_;
};

/// The 64 raw bits of a scalar converted to dtype t (as cast converts),
/// for kernels that take a scalar of their element type.
std::array<uint32_t, 2> scalar_bits(double v, DType t);

/// A sum's value as reduction kernels take it in push constants: the bits of
/// a double (f64), or a float pair hi + lo (compensated float32).
std::array<uint32_t, 2> accumulator_bits(double v, bool f64);

/// A uint32 scratch of at least `words` that the context keeps under `key`
/// between calls, zero on return: cleared here when it is new or grown, and
/// in every run of a Graph being captured (which may run before or after
/// other calls). Its users must leave every word they touch zero again,
/// so that the next call needs no clearing pass.
Array kept_zeros(const Context& c, const std::string& key, uint64_t words);

/// Largest number of elements of `elem_size` one binding may cover on this device.
uint64_t max_elements_per_binding(const detail::OpServices& ctx, size_t elem_size);

} // namespace kiln::ops
