#include "ops/fft_copy.hpp"

#include <algorithm>

#include "ops/kernel.hpp"

namespace kiln::ops {

namespace {

struct CopyPush {
    uint32_t dst[3];  // x, y, z
    uint32_t dst_pitch;
    uint32_t src[3];
    uint32_t src_pitch;
    uint32_t origin[3];
    uint32_t flags;
    uint32_t scale[2];
};

uint32_t u32(uint64_t v, const char* what) {
    if (v > UINT32_MAX)
        throw Unsupported(std::string("FFT: ") + what + " of " + std::to_string(v) +
                          " elements is past what the copy kernels index (2^32 - 1)");
    return static_cast<uint32_t>(v);
}

} // namespace

FftBox box_of(const Array& a) {
    FftBox b;
    const size_t nd = a.ndim();
    for (size_t i = 0; i < nd; ++i) b.extent[3 - nd + i] = a.shape()[i];
    b.complex = dtype_is_complex(a.dtype());
    return b;
}

void complex_copy(const Array& src, const FftBox& sbox, const Array& dst, const FftBox& dbox, double scale,
                  std::array<uint64_t, 3> origin, PartOf part) {
    const DType t = dtype_real_part(src.dtype());
    detail::OpServices& ctx = services(src);
    CopyPush p{};
    for (int i = 0; i < 3; ++i) {
        p.dst[i] = u32(dbox.extent[2 - i], "an extent");
        p.src[i] = u32(sbox.extent[2 - i], "an extent");
        p.origin[i] = u32(origin[2 - i], "an origin");
    }
    p.dst_pitch = u32(dbox.pitch ? dbox.pitch : dbox.extent[2], "a row pitch");
    p.src_pitch = u32(sbox.pitch ? sbox.pitch : sbox.extent[2], "a row pitch");
    u32(uint64_t(2) * p.src_pitch * sbox.extent[0] * sbox.extent[1], "a buffer");
    u32(uint64_t(2) * p.dst_pitch * dbox.extent[0] * dbox.extent[1], "a buffer");
    p.flags = (sbox.complex ? 1u : 0u) | (dbox.complex ? 2u : 0u) | (part == PartOf::imag ? 4u : 0u) |
              (part == PartOf::abs ? 8u : 0u);
    const auto bits = scalar_bits(scale, t);
    p.scale[0] = bits[0];
    p.scale[1] = bits[1];
    Dispatcher d(ctx, variant(Shader::complex_copy, t), {64, 4, 1});
    const uint64_t rows = dbox.extent[0] * dbox.extent[1];
    const uint64_t gx = (dbox.extent[2] + d.local()[0] - 1) / d.local()[0];
    const uint64_t gy = (rows + d.local()[1] - 1) / d.local()[1];
    const uint64_t most = ctx.info().max_workgroup_count[0];
    d.read(src).write(dst).push(p);
    d.groups(uint32_t(std::min(gx, most)), uint32_t(std::min<uint64_t>(gy, ctx.info().max_workgroup_count[1])));
    d.record();
}

} // namespace kiln::ops
