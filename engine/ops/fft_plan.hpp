#pragma once
// FFT plans: VkFFT applications, one per transform geometry and context
// (making one compiles its shaders: slow, so never per call), each with its
// own work buffer (a kiln array placed for good) and VkFFT's own tables and
// temporary buffer (freed with the plan). VkFFT writes the buffers' handles into its
// descriptor sets on the first record of each direction (ops/vkfft_backend.c
// says why not when the plan is made); a plan that owns its buffers never
// rewrites a descriptor set that recorded work may still use. The ops copy
// their arrays in and out of the work buffer with kiln kernels (which also
// pad, crop and scale), and record the transform as an External node whose
// declared buffers are the plan's, so the executor orders it.
// Where no padding, cropping or scaling is needed, a plan transforms the
// arrays themselves (record_direct): one more VkFFT application per pair of
// allocator blocks the input and output lie in (their descriptors written
// once, the arrays' offsets pushed per record), a few kept per plan.
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "graph/op_services.hpp"
#include "kiln/array.hpp"

namespace kiln::ops {

/// What a plan transforms: VkFFT's order, sizes[0] the fastest axis (the
/// array's last); `dims` axes transformed, `batches` transforms of them one
/// after the other in memory.
struct FftGeometry {
    std::array<uint64_t, 3> sizes{1, 1, 1};
    uint32_t dims = 1;
    uint64_t batches = 1;
    bool real = false;  ///< R2C forward, C2R inverse, along sizes[0]
    bool f64 = false;
    std::string key() const;
    /// Complex elements along sizes[0] in the work buffer (n/2+1 for real transforms).
    uint64_t complex_row() const { return real ? sizes[0] / 2 + 1 : sizes[0]; }
    /// Complex elements of the work buffer.
    uint64_t complex_count() const { return complex_row() * sizes[1] * sizes[2] * batches; }
};

class FftPlan : public std::enable_shared_from_this<FftPlan> {
public:
    virtual ~FftPlan() = default;
    /// The work buffer, as an array of complex elements (complex_count()):
    /// in place, a real transform's real rows are 2 * complex_row() floats apart.
    virtual Array work(const Context& ctx) const = 0;
    /// Records the transform of the work buffer, in place.
    virtual void record(detail::OpServices& ctx, bool inverse) = 0;
    /// Records the transform of `in` into `out` in their own memory, no
    /// copies: complex either way, or a real forward transform (dense arrays
    /// of the plan's lengths; `normalize`: an inverse divided by the element
    /// count). False, and nothing recorded, where either array is not in a
    /// block of kiln's allocator (an application's buffer, a graph's arena).
    virtual bool record_direct(detail::OpServices& ctx, const Array& in, const Array& out, bool inverse,
                               bool normalize) = 0;
};

/// The context's plan for `g`, made on first use.
std::shared_ptr<FftPlan> fft_plan(const Context& ctx, const FftGeometry& g);

} // namespace kiln::ops
