#pragma once
// Run-time GLSL compilation for user kernels (the base of kiln::Kernel, as
// CuPy's RawKernel is for CUDA): GLSL compute source to SPIR-V with the glslang
// library, then the module's interface read back from the SPIR-V words, so a
// launch can check the arrays and scalars it is given.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/error.hpp"

namespace kiln::vk {

/// Initializes glslang's process-wide tables once, on first use, never
/// finalized (another thread or context may still be compiling); everything
/// in kiln that compiles GLSL (user kernels, VkFFT's plans) calls it first.
void ensure_glslang();

/// GLSL that glslang rejected. what() holds the kernel name and glslang's log,
/// whose lines read "ERROR: <name>:<line>: ...".
class CompileError : public Error {
public:
    CompileError(const std::string& what, std::string log) : Error(what), log_(std::move(log)) {}
    /// glslang's info log alone.
    const std::string& log() const { return log_; }

private:
    std::string log_;
};

/// A storage buffer (GLSL `buffer` block) the kernel reads or writes.
struct BufferBinding {
    uint32_t set = 0, binding = 0;
    /// The block's instance name, or its block name when it has no instance name.
    std::string name;
    /// Declared readonly (NonWritable) or writeonly (NonReadable).
    bool readonly = false, writeonly = false;
};

/// An image of a built-in kernel (reflect_spirv with images allowed).
struct ImageBinding {
    uint32_t set = 0, binding = 0;
    /// A combined image sampler (sampler2D); otherwise a storage image (image2D).
    bool sampled = false;
};

/// Element type of a push-constant member; other for matrices, arrays,
/// structs, booleans and 16-bit floats.
enum class ScalarType {
    float32, float64, int32, uint32, int64, uint64, int16, uint16, int8, uint8, other
};

/// GLSL's spelling of the type ("float", "uint", "int64_t", ...; "other").
std::string_view scalar_type_name(ScalarType t);

/// One member of the push-constant block.
struct PushMember {
    std::string name;
    /// Byte offset in the block and size in bytes (arrays: length * stride).
    uint32_t offset = 0, size = 0;
    ScalarType type = ScalarType::other;
    /// 1 for scalars, N for vecN, 0 for anything else.
    uint32_t components = 0;
};

/// A specialization constant (layout(constant_id = N)); workgroup sizes given
/// with local_size_x_id appear here named "local_size_x" (y, z) unless named.
struct SpecConstant {
    uint32_t id = 0;
    std::string name;
};

/// SPIR-V of one compute entry point and its reflected interface.
struct CompiledShader {
    std::vector<uint32_t> spirv;
    /// Storage buffers sorted by (set, binding).
    std::vector<BufferBinding> buffers;
    /// Images sorted by (set, binding): only where reflect_spirv allowed them.
    std::vector<ImageBinding> images;
    /// Push-constant members in offset order; empty without a push block.
    std::vector<PushMember> push;
    /// Bytes of the push block up to its last member, rounded up to a
    /// multiple of 4 as vkCmdPushConstants needs.
    uint32_t push_size = 0;
    /// Workgroup size; for a specialization constant its default value.
    std::array<uint32_t, 3> local_size{1, 1, 1};
    std::array<bool, 3> local_size_is_spec{false, false, false};
    /// SpecId of each dimension given by a specialization constant.
    std::array<uint32_t, 3> local_size_spec_id{0, 0, 0};
    /// Specialization constants sorted by id.
    std::vector<SpecConstant> spec_constants;
    /// Name of the entry point in the SPIR-V (the one to create the pipeline with).
    std::string entry;
};

/// Compiles GLSL compute source (GLSL 450 unless the source says #version,
/// Vulkan 1.2, SPIR-V 1.5). entry names the function to run: "main", or any
/// other void function of the source, which then becomes the SPIR-V entry
/// point under its own name. defines are "NAME" or "NAME=VALUE", as -D.
/// name_for_errors labels the source in glslang's log.
/// Throws CompileError with glslang's log (and line numbers) for bad GLSL,
/// InvalidArgument when the entry point is not in the source or a define or
/// entry name is malformed, Unsupported for resources a kernel cannot take
/// (uniform blocks, images, samplers, arrays of buffers).
CompiledShader compile_glsl(std::string_view source, std::string_view entry = "main",
                            const std::vector<std::string>& defines = {},
                            const std::string& name_for_errors = "kernel");

/// compile_glsl with the SPIR-V cached on disk as cache_dir/<hash>.spv, the
/// hash covering source, entry, defines and the glslang version. A cached
/// module is reflected again on load; a corrupt or unreadable one is ignored
/// and replaced. Files are written through a temporary and a rename, so
/// concurrent users never see a partial file; a cache that cannot be written
/// only costs a recompile. An empty cache_dir disables the cache.
CompiledShader compile_glsl_cached(std::string_view source, std::string_view entry,
                                   const std::vector<std::string>& defines,
                                   const std::filesystem::path& cache_dir,
                                   const std::string& name_for_errors = "kernel");

/// The interface of a compute entry point of a SPIR-V module (entry empty:
/// the module's only compute entry point). Throws InvalidArgument for words
/// that are not a well-formed module or lack the entry point, Unsupported as
/// compile_glsl. `images`: images and combined image samplers are reflected
/// (built-in kernels) rather than refused (kernels written by users, which
/// take buffers alone).
CompiledShader reflect_spirv(std::vector<uint32_t> spirv, std::string_view entry = {}, bool images = false);

} // namespace kiln::vk
