#pragma once
// User kernels: GLSL compute source compiled at run time (what CuPy's
// RawKernel is for CUDA). The storage buffers and the push-constant block are
// read back from the compiled module, so a launch checks what it is given;
// launches go into the same graph as built-in ops (barriers, timestamps, the
// profile under the kernel's name).
//
//   kiln::Kernel vadd(ctx, R"(#version 450
//       layout(local_size_x = 256) in;
//       layout(binding = 0) readonly buffer A { float a[]; };
//       layout(binding = 1) readonly buffer B { float b[]; };
//       layout(binding = 2) writeonly buffer C { float c[]; };
//       layout(push_constant) uniform P { uint n; float alpha; } p;
//       void main() {
//           uint i = gl_GlobalInvocationID.x;
//           if (i < p.n) c[i] = p.alpha * a[i] + b[i];
//       })");
//   vadd(a, b, c).push("n", n).push("alpha", 2.0f).grid(n);
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// GLSL that glslang rejected: what() holds the kernel name and glslang's log,
/// whose lines read "ERROR: <kernel name>:<line>: <message>".
class CompileError : public Error {
public:
    CompileError(const std::string& what, std::string log) : Error(what), log_(std::move(log)) {}
    /// glslang's info log alone.
    const std::string& log() const { return log_; }

private:
    std::string log_;
};

/// A push-constant value. Its C++ type decides which GLSL members it may set:
/// integers set integer members (int, uint, int64_t, ...) whose range holds
/// the value; float and double set float and double members, a double only
/// when the value is exactly a float for a float member (pass 0.1f, not 0.1).
/// Anything else is an error naming the member and its type.
class Scalar {
public:
    enum class Kind { signed_integer, unsigned_integer, float32, float64 };

    template <typename T>
        requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    Scalar(T v) {
        if constexpr (std::is_same_v<T, float>) kind_ = Kind::float32, f_ = v;
        else if constexpr (std::is_floating_point_v<T>) kind_ = Kind::float64, f_ = static_cast<double>(v);
        else if constexpr (std::is_signed_v<T>) kind_ = Kind::signed_integer, i_ = v;
        else kind_ = Kind::unsigned_integer, u_ = v;
    }

    /// What C++ type the value came as.
    Kind kind() const { return kind_; }
    bool is_integer() const { return kind_ == Kind::signed_integer || kind_ == Kind::unsigned_integer; }
    /// The value, for the kind it has (signed, unsigned, float or double).
    int64_t signed_value() const { return i_; }
    uint64_t unsigned_value() const { return u_; }
    double float_value() const { return f_; }
    /// The value and its C++ type, for messages: "-3 (signed integer)".
    std::string str() const;

private:
    Kind kind_ = Kind::signed_integer;
    int64_t i_ = 0;
    uint64_t u_ = 0;
    double f_ = 0;
};

/// One storage buffer of a kernel, as declared in its source.
struct KernelBinding {
    uint32_t binding = 0;
    std::string name;        ///< the block's instance name, else its block name
    bool readonly = false;   ///< declared readonly: the array is only read
    bool writeonly = false;  ///< declared writeonly: only written
};

/// One member of a kernel's push-constant block.
struct KernelParam {
    std::string name;
    std::string type;  ///< GLSL spelling: "uint", "float", "vec2", ... ("other" for structs, arrays)
    uint32_t offset = 0, size = 0;
    bool scalar = false;  ///< settable from a Scalar (else with push_bytes)
};

/// A compiled user kernel. Copies share the compiled module.
class Kernel {
public:
    /// Compiles GLSL compute source (GLSL 450 unless it says #version) with
    /// the glslang library; `entry` names the function to run ("main" or
    /// another void function of the source). The SPIR-V is cached on disk by
    /// source hash under cache_directory(ctx)/kernels.
    /// Throws CompileError with glslang's log for bad GLSL, InvalidArgument
    /// when the entry point is missing, Unsupported for what a kernel cannot
    /// take here: uniform blocks, images, samplers, descriptor sets other than
    /// 0, push blocks over 128 bytes, constant_id 0-2 used for anything but
    /// the workgroup size.
    Kernel(const Context& ctx, std::string_view source, std::string_view entry = "main");
    /// As above with preprocessor defines ("NAME" or "NAME=VALUE", as -D) and a
    /// name for the profile, tuning and messages (default: the entry point, or
    /// "kernel" for main). A name must not be a built-in kernel's.
    Kernel(const Context& ctx, std::string_view source, std::string_view entry,
           const std::vector<std::string>& defines, std::string name = {});
    /// The source read from a file; the name defaults to the file's stem.
    /// Throws IoError when the file cannot be read.
    static Kernel from_file(const Context& ctx, const std::string& path, std::string_view entry = "main",
                            const std::vector<std::string>& defines = {}, std::string name = {});

    /// The name given (what ctx.set_workgroup_size takes for this kernel).
    const std::string& name() const;
    /// The name its dispatches carry in the profile: name(), with "#2", "#3"...
    /// added when other code of the same name was compiled in this process.
    const std::string& profile_name() const;
    /// Storage buffers in binding order: the arrays of a launch, in this order.
    const std::vector<KernelBinding>& bindings() const;
    /// Members of the push-constant block in offset order.
    const std::vector<KernelParam>& params() const;
    /// Workgroup size a launch uses now: the source's, or for dimensions given
    /// by specialization constants 0-2 (local_size_x_id = 0, ...) the size set
    /// with ctx.set_workgroup_size(name(), ...).
    std::array<uint32_t, 3> local_size() const;
    /// Whether the workgroup size comes from specialization constants 0-2, so
    /// that ctx.set_workgroup_size (and kiln::tune) can change it.
    bool tunable() const;
    /// A readable summary of the interface: bindings, push members, workgroup size.
    std::string signature() const;

    /// A launch in preparation. Set every push-constant member, then grid() or
    /// groups() records the dispatch (nothing is recorded before).
    class Launch {
    public:
        /// Sets a push-constant member by name.
        Launch& push(std::string_view member, Scalar value);
        /// Sets the next member in declaration order not yet set.
        Launch& push(Scalar value);
        /// Sets any member (vectors, structs, arrays) from raw bytes of its size.
        Launch& push_bytes(std::string_view member, const void* data, size_t bytes);
        /// Records the dispatch over a global size of x * y * z invocations:
        /// ceil(x / local x) x ... workgroups; the kernel checks its bounds.
        /// Throws InvalidArgument for a zero extent or members not set.
        void grid(uint64_t x, uint64_t y = 1, uint64_t z = 1);
        /// Records the dispatch with this many workgroups.
        void groups(uint32_t x, uint32_t y = 1, uint32_t z = 1);

    private:
        friend class Kernel;
        struct State;
        explicit Launch(std::shared_ptr<State> s) : s_(std::move(s)) {}
        std::shared_ptr<State> s_;
    };

    /// Starts a launch with one array per storage buffer, in binding order
    /// (see bindings()). readonly buffers are recorded as reads, writeonly as
    /// writes, others as both, so barriers follow. Throws InvalidArgument when
    /// the count differs from the kernel's bindings, naming them.
    [[nodiscard]] Launch operator()(const std::vector<Array>& arrays) const;
    template <typename... More>
    [[nodiscard]] Launch operator()(const Array& first, const More&... more) const {
        return (*this)(std::vector<Array>{first, more...});
    }
    /// One call: arrays in binding order, scalars in push-member order, and
    /// the global size.
    void launch(const std::vector<Array>& arrays, const std::vector<Scalar>& scalars,
                std::array<uint64_t, 3> global) const;

private:
    struct Impl;
    std::shared_ptr<const Impl> impl_;
};

/// Where kiln keeps its caches for this context (the pipeline cache, compiled
/// user kernels, tuned workgroup sizes): ContextOptions::cache_dir, else
/// $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln; empty when
/// none of those is set.
std::string cache_directory(const Context& ctx);

} // namespace kiln
#pragma GCC visibility pop
