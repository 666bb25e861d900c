#include "ops/kernel.hpp"
#include "ops/shader_registry.hpp"

#include "kiln/elementwise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace kiln::shaders {

static_assert(static_cast<int>(DType::float32) == 0 && static_cast<int>(DType::uint64) == 9 &&
                  dtype_none == 10,
              "kernel_ids.hpp's variant table indexes dtypes in kiln::DType's order");

std::span<const uint32_t> spirv(KernelId k) { return registry[static_cast<uint16_t>(k)].code; }

namespace {
constexpr int none = dtype_none;
KernelId lookup(Shader s, int t, int u) {
    const auto& table = variants[static_cast<uint16_t>(s)];
    const int16_t k = table[t][u];
    if (k >= 0) return static_cast<KernelId>(k);
    std::string what = std::string("kiln has no built-in kernel ") + shader_names[static_cast<uint16_t>(s)];
    if (t != none) what += std::string(" for ") + std::string(dtype_name(static_cast<DType>(t)));
    if (u != none) what += std::string(" and ") + std::string(dtype_name(static_cast<DType>(u)));
    // A dtype the shader lacks is the caller's input (int64 to an op that
    // takes 32-bit types, say): name what it takes, so the message says
    // what to cast to.
    std::string takes;
    if (t != none)
        for (int i = 0; i < none; ++i)
            if (table[i][u] >= 0) takes += (takes.empty() ? "" : ", ") + std::string(dtype_name(static_cast<DType>(i)));
    if (takes.empty()) throw Error(what);
    throw Unsupported(what + "; it takes " + takes + ": cast the array first (kiln::cast)");
}

// The variant table has columns for the real dtypes only (dtype_none after them).
void check_real(Shader s, DType t) {
    if (dtype_is_complex(t))
        throw Unsupported(std::string(shader_names[static_cast<uint16_t>(s)]) + " does not take " +
                          std::string(dtype_name(t)) +
                          " arrays; complex arrays are taken by the FFTs and real, imag and abs");
}
}  // namespace

KernelId variant(Shader s, DType t) {
    check_real(s, t);
    return lookup(s, static_cast<int>(t), none);
}
KernelId variant(Shader s, DType t, DType u) {
    check_real(s, t);
    check_real(s, u);
    return lookup(s, static_cast<int>(t), static_cast<int>(u));
}
KernelId only(Shader s) { return lookup(s, none, none); }

} // namespace kiln::shaders

namespace kiln::ops {

bool is_builtin_kernel(std::string_view name) {
    for (size_t i = 0; i < shaders::registry_size; ++i)
        if (shaders::registry[i].name == name) return true;
    return false;
}

void check_same_context(const Array& a, const Array& b, const char* op) {
    if (&services(a) != &services(b))
        throw InvalidArgument(std::string(op) +
                              ": the arrays belong to different contexts; copy one over with "
                              "Array::from_host(ctx, other.to_host()) first");
}

void check_same_shape(const Array& a, const Array& b, const char* op, bool dtype_too) {
    check_same_context(a, b, op);
    if (a.shape() != b.shape())
        throw InvalidArgument(std::string(op) + ": shapes " + a.shape().str() + " and " + b.shape().str() +
                              " differ; the arrays must have the same shape (kiln does not broadcast)");
    if (dtype_too && a.dtype() != b.dtype())
        throw InvalidArgument(std::string(op) + ": dtypes " + std::string(dtype_name(a.dtype())) + " and " +
                              std::string(dtype_name(b.dtype())) +
                              " differ; cast one with kiln::cast(array, dtype) first");
}

Dispatcher::Dispatcher(detail::OpServices& ctx, KernelId kernel, std::array<uint32_t, 3> default_local)
    : ctx_(ctx), builtin_(&shaders::info(kernel)) {
    node_.spirv = shaders::spirv(kernel);
    std::string name = builtin_->name;
    local_ = ctx.workgroup_size(name).value_or(default_local);
    // A tuned size may be set under the family name ("binary") for all dtypes.
    if (!ctx.workgroup_size(name)) {
        auto us = name.find('_');
        if (us != std::string::npos)
            if (auto fam = ctx.workgroup_size(name.substr(0, us))) local_ = *fam;
    }
    node_.name = std::move(name);
    node_.spec = {local_[0], local_[1], local_[2]};
}

void Dispatcher::check_push_size(size_t bytes, size_t align) const {
    if (!builtin_) return;
    const size_t block = builtin_->push_size;
    const size_t padded = (block + align - 1) / align * align;
    if (bytes != block && bytes != padded)
        throw Error(std::string("internal error: the push constants of kernel ") + builtin_->name + " are a " +
                    std::to_string(bytes) + "-byte C++ struct, but the shader's block takes " +
                    std::to_string(block) + " bytes: the op and its shader disagree");
}

Dispatcher::Dispatcher(detail::OpServices& ctx, std::string kernel, std::span<const uint32_t> spirv,
                       std::shared_ptr<const void> owner, std::string entry, std::array<uint32_t, 3> local)
    : ctx_(ctx), local_(ctx.workgroup_size(kernel).value_or(local)) {
    node_.spirv = spirv;
    node_.code_owner = std::move(owner);
    node_.entry = std::move(entry);
    node_.name = std::move(kernel);
    node_.spec = {local_[0], local_[1], local_[2]};
}

Dispatcher& Dispatcher::bind(const Array& a, VkDeviceSize offset, VkDeviceSize range, detail::Access access) {
    if (&services(a) != &ctx_)
        throw InvalidArgument(node_.name + ": an array from another context was passed; arrays must belong "
                                           "to the context the operation runs on");
    VkDeviceSize bytes = range ? range : a.nbytes() - offset;
    if (bytes > ctx_.info().max_storage_buffer_range)
        throw Unsupported(node_.name + ": an array of " + std::to_string(bytes) + " bytes exceeds the device's " +
                          "maxStorageBufferRange of " + std::to_string(ctx_.info().max_storage_buffer_range) +
                          " bytes and this operation cannot split it; use smaller arrays on '" +
                          ctx_.info().name + "'");
    node_.buffers.push_back({a.storage(), VK_NULL_HANDLE, offset, range, access});
    return *this;
}

Dispatcher& Dispatcher::read(const Array& a, VkDeviceSize o, VkDeviceSize r) { return bind(a, o, r, detail::Access::read); }
Dispatcher& Dispatcher::write(const Array& a, VkDeviceSize o, VkDeviceSize r) { return bind(a, o, r, detail::Access::write); }
Dispatcher& Dispatcher::read_write(const Array& a, VkDeviceSize o, VkDeviceSize r) {
    return bind(a, o, r, detail::Access::read_write);
}

Dispatcher& Dispatcher::store(std::shared_ptr<const vk::Image> image) {
    node_.images.push_back({std::move(image), detail::Access::write, false});
    return *this;
}

Dispatcher& Dispatcher::sample(std::shared_ptr<const vk::Image> image) {
    node_.images.push_back({std::move(image), detail::Access::read, true});
    return *this;
}

Dispatcher& Dispatcher::whole_subgroups() {
    const uint64_t local = uint64_t(local_[0]) * local_[1] * local_[2];
    const uint32_t sg = std::max<uint32_t>(1, ctx_.info().subgroup_size);
    if (local % sg != 0)
        throw Unsupported(node_.name + ": workgroup size " + std::to_string(local_[0]) + "x" +
                          std::to_string(local_[1]) + "x" + std::to_string(local_[2]) +
                          " is not a whole number of subgroups; this kernel needs a multiple of " +
                          std::to_string(sg) + " invocations on '" + ctx_.info().name + "'");
    return *this;
}

Dispatcher& Dispatcher::spec(uint32_t value) {
    node_.spec.push_back(value);
    return *this;
}

Dispatcher& Dispatcher::groups(uint32_t x, uint32_t y, uint32_t z) {
    const auto& m = ctx_.info().max_workgroup_count;
    if (x == 0 || y == 0 || z == 0 || x > m[0] || y > m[1] || z > m[2])
        throw Unsupported(node_.name + ": grid " + std::to_string(x) + "x" + std::to_string(y) + "x" +
                          std::to_string(z) + " is outside the device's limits " + std::to_string(m[0]) + "x" +
                          std::to_string(m[1]) + "x" + std::to_string(m[2]));
    node_.groups = {x, y, z};
    return *this;
}

Dispatcher& Dispatcher::cover(uint64_t nx, uint64_t ny, uint64_t nz) {
    auto g = [](uint64_t n, uint32_t l) { return static_cast<uint32_t>(std::max<uint64_t>(1, (n + l - 1) / l)); };
    return groups(g(nx, local_[0]), g(ny, local_[1]), g(nz, local_[2]));
}

Dispatcher& Dispatcher::stride_grid(uint64_t n) {
    uint64_t per_group = uint64_t(local_[0]) * local_[1] * local_[2];
    uint64_t g = std::max<uint64_t>(1, (n + per_group - 1) / per_group);
    // Enough groups to fill any GPU; the kernel loops over the rest.
    g = std::min<uint64_t>(g, std::min<uint64_t>(ctx_.info().max_workgroup_count[0], 65535));
    node_.groups = {static_cast<uint32_t>(g), 1, 1};
    return *this;
}

void Dispatcher::record() {
    // A binding that one pass of a multi-pass kernel only reads may be
    // declared writable in the shader for another pass (a specialization
    // constant picks the pass). Synchronization validation, like any tool
    // that reads the SPIR-V, takes every such binding as written, so the
    // graph does too: the node is ordered after earlier readers and before
    // later ones. Without this, a pull recorded beside such a pass was a
    // read-after-write hazard to the validation layer on every GPU.
    if (builtin_) {
        for (size_t i = 0; i < node_.buffers.size() && i < 64; ++i)
            if (node_.buffers[i].access == detail::Access::read && (builtin_->writable >> i & 1))
                node_.buffers[i].access = detail::Access::read_write;
        std::string images;
        for (auto& i : node_.images) images += i.sampled ? 't' : 's';
        if (images != builtin_->images || (!images.empty() && node_.buffers.size() != builtin_->bindings))
            throw Error("internal error: kernel " + node_.name + " takes images '" + builtin_->images +
                        "' after " + std::to_string(builtin_->bindings) + " buffers; the op bound '" + images +
                        "' after " + std::to_string(node_.buffers.size()));
    }
    ctx_.record(detail::Node{std::move(node_)});
}

std::array<uint32_t, 2> scalar_bits(double v, DType t) {
    std::array<uint32_t, 2> bits{0, 0};
    auto to_int = [&](double lo, double hi) -> int64_t {
        if (std::isnan(v)) return 0;
        double tv = std::trunc(v);
        return static_cast<int64_t>(std::clamp(tv, lo, hi));
    };
    switch (t) {
    case DType::float32: {
        float f = static_cast<float>(v);
        std::memcpy(&bits[0], &f, 4);
        break;
    }
    case DType::float64: std::memcpy(bits.data(), &v, 8); break;
    case DType::int8: bits[0] = static_cast<uint32_t>(to_int(-128, 127)); break;
    case DType::uint8: bits[0] = static_cast<uint32_t>(to_int(0, 255)); break;
    case DType::int16: bits[0] = static_cast<uint32_t>(to_int(-32768, 32767)); break;
    case DType::uint16: bits[0] = static_cast<uint32_t>(to_int(0, 65535)); break;
    case DType::int32: bits[0] = static_cast<uint32_t>(to_int(-2147483648.0, 2147483647.0)); break;
    case DType::uint32: bits[0] = static_cast<uint32_t>(to_int(0, 4294967295.0)); break;
    case DType::int64:
    case DType::uint64: {
        // 2^63 and 2^64 are exact doubles; the largest doubles below them convert.
        const bool sign = t == DType::int64;
        const double hi = sign ? 9223372036854775808.0 : 18446744073709551616.0;
        const double tv = std::isnan(v) ? 0 : std::trunc(v);
        uint64_t w = 0;
        if (tv >= hi) w = sign ? uint64_t(std::numeric_limits<int64_t>::max()) : ~uint64_t(0);
        else if (sign && tv < -hi) w = uint64_t(std::numeric_limits<int64_t>::min());
        else if (sign) w = uint64_t(static_cast<int64_t>(tv));
        else if (tv > 0) w = static_cast<uint64_t>(tv);
        bits[0] = static_cast<uint32_t>(w);
        bits[1] = static_cast<uint32_t>(w >> 32);
        break;
    }
    case DType::complex64:
    case DType::complex128: visit_dtype(t, [](auto) {}); break;  // throws Unsupported
    }
    return bits;
}

std::array<uint32_t, 2> accumulator_bits(double v, bool f64) {
    std::array<uint32_t, 2> bits{};
    if (f64) {
        std::memcpy(bits.data(), &v, 8);
    } else {
        const float hi = static_cast<float>(v);
        const float lo = static_cast<float>(v - static_cast<double>(hi));
        std::memcpy(&bits[0], &hi, 4);
        std::memcpy(&bits[1], &lo, 4);
    }
    return bits;
}

uint64_t max_elements_per_binding(const detail::OpServices& ctx, size_t elem_size) {
    return ctx.info().max_storage_buffer_range / elem_size;
}

Array kept_zeros(const Context& c, const std::string& key, uint64_t words) {
    detail::OpServices& ctx = services(c);
    detail::OpServices::Kept& kept = ctx.kept(key, words * 4);
    Array a(c.shared_state(), kept.storage, Shape{kept.storage->bytes / 4}, DType::uint32);
    if (!kept.ready || ctx.capturing()) {
        fill(a, 0);
        if (!ctx.capturing()) kept.ready = true;
    }
    return a;
}

} // namespace kiln::ops
