#include "ops/convolve_pass.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "ops/kernel.hpp"

namespace kiln::ops::conv {

namespace {

// Tap counts up to these run in the unrolled shared-memory kernels; longer
// ones in the direct kernel, whose loops are not unrolled.
constexpr size_t max_sep_taps = 64;
constexpr uint32_t max_tiled_kh = 32, max_tiled_kw = 64;
// Shared memory one workgroup takes at most: what the H200 exposes per
// workgroup (lavapipe's 32 KiB caps it further).
constexpr uint32_t shared_cap = 48 * 1024;
constexpr size_t push_weight_words = 20;

struct SepPush {
    uint32_t cval[2], cval_mid[2];
    uint32_t B, H, W, OH, OW;
    int32_t oy, ox;
    uint32_t modes;
    uint32_t w[push_weight_words];
};
static_assert(sizeof(SepPush) == 128,
              "conv_sep's push constants must stay within the 128 bytes every device has");

struct GeneralPush {
    uint32_t B, H, W, OH, OW;
    int32_t oy, ox;
    uint32_t kh, kw, modes;
    uint32_t cval[2];
};

struct WeightsPush {
    uint32_t offset, count;
    uint32_t w[30];
};

uint32_t shared_budget(detail::OpServices& ctx) {
    return std::min(ctx.info().max_shared_memory, shared_cap);
}

// Workgroups along one grid axis: every tile, up to the device's limit
// (the shaders loop over the rest).
uint32_t grid(uint64_t tiles, detail::OpServices& ctx, int axis) {
    uint64_t limit = std::min<uint64_t>(ctx.info().max_workgroup_count[axis], 65535);
    return static_cast<uint32_t>(std::clamp<uint64_t>(tiles, 1, limit));
}

uint64_t ceil_div(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}

// The modes as the shaders take them (push constants, so that a new mode
// costs no pipeline).
uint32_t modes(Ext y, Ext x) {
    return static_cast<uint32_t>(y) | static_cast<uint32_t>(x) << 4;
}

// 1: w[i] = w[K-1-i]; 2: w[i] = -w[K-1-i] (odd derivatives: their weights
// fit the push constants as well); 0: neither, or a single weight.
uint32_t symmetry(const std::vector<double>& w) {
    if (w.size() <= 1) return 0;
    bool sym = true, anti = true;
    for (size_t i = 0; i < (w.size() + 1) / 2; ++i) {
        sym = sym && w[i] == w[w.size() - 1 - i];
        anti = anti && w[i] == -w[w.size() - 1 - i];
    }
    return sym ? 1 : anti ? 2 : 0;
}

void put_scalar(uint32_t (&dst)[2], double v, DType t) {
    auto bits = scalar_bits(v, t);
    dst[0] = bits[0];
    dst[1] = bits[1];
}

void put_weight(uint32_t* words, size_t index, double v, DType t) {
    if (t == DType::float64) {
        std::memcpy(words + 2 * index, &v, 8);
    } else {
        float f = static_cast<float>(v);
        std::memcpy(words + index, &f, 4);
    }
}

// A single host tap scales the other axis' host taps instead of costing a pass.
Separable fold_single_taps(Separable s) {
    auto fold = [](Taps& single, Taps& other) {
        if (single.device || single.host.size() != 1 || other.device || other.host.empty()) return;
        for (double& w : other.host) w *= single.host[0];
        single.host.clear();
    };
    fold(s.x, s.y);
    fold(s.y, s.x);
    return s;
}

// One axis of a separable pass through the direct kernel.
void record_direct_axis(const Separable& s, bool along_y) {
    const Taps& taps = along_y ? s.y : s.x;
    General g;
    g.in = s.in;
    g.out = s.out;
    g.kernel = taps.device ? taps.device : upload_weights(s.in.context(), taps.host, s.in.dtype());
    g.B = s.B, g.H = s.H, g.W = s.W, g.OH = s.OH, g.OW = s.OW;
    g.KH = along_y ? static_cast<uint32_t>(taps.size()) : 1;
    g.KW = along_y ? 1 : static_cast<uint32_t>(taps.size());
    g.oy = s.oy, g.ox = s.ox;
    g.mode_y = s.mode_y, g.mode_x = s.mode_x;
    g.cval = s.cval;
    record(g);
}

void record_sep_kernel(const Separable& s) {
    detail::OpServices& ctx = ops::services(s.in);
    const DType t = s.in.dtype();
    const uint32_t ky = static_cast<uint32_t>(s.y.size()), kx = static_cast<uint32_t>(s.x.size());
    // Sizes measured on the H200 (kiln-bench W1, W3-W5): the x pass alone
    // went best in workgroups of 64 or 128.
    const std::array<uint32_t, 3> local = kx == 1   ? std::array<uint32_t, 3>{64, 4, 1}
                                          : ky == 1 ? std::array<uint32_t, 3>{64, 1, 1}
                                                    : std::array<uint32_t, 3>{32, 4, 1};
    Dispatcher d(ctx, ops::variant(ops::Shader::conv_sep, t), local);
    const auto& l = d.local();
    // The x pass alone takes two vectors per invocation.
    const uint32_t vw = t == DType::float64 ? 2 : 4, nv = ky == 1 ? 2 : 1, px = nv * vw;
    // Two-axis tiles: 4 rows per invocation up to 2048^2-sized outputs (W1
    // 0.038 against 0.041 ms with 8), 8 for larger ones (W5, 8192^2: 0.247
    // against 0.260 ms with 4).
    const bool large = uint64_t(s.B) * s.OH * s.OW >= (uint64_t(1) << 24);
    uint32_t py = ky == 1 ? 1 : kx == 1 ? 8 : large ? 8 : 4;
    // As conv_sep.comp lays out its shared intermediate (every pass along x).
    auto mid_bytes = [&](uint32_t rows) {
        const uint64_t s0 = ceil_div(uint64_t(l[0]) * px + kx - 1, px),
                       s_words = s0 + (40 - s0 % 32) % 32;
        return kx == 1 ? 0 : uint64_t(l[1]) * rows * px * s_words * dtype_size(t);
    };
    while (py > 1 && mid_bytes(py) > shared_budget(ctx)) py /= 2;
    if (mid_bytes(py) > shared_budget(ctx))
        throw Unsupported("conv_sep: workgroup size " + std::to_string(l[0]) + "x" +
                          std::to_string(l[1]) + " needs more shared memory than the device's " +
                          std::to_string(ctx.info().max_shared_memory) +
                          " bytes; tune a smaller one");

    SepPush p{};
    p.B = s.B, p.H = s.H, p.W = s.W, p.OH = s.OH, p.OW = s.OW, p.oy = s.oy, p.ox = s.ox;
    put_scalar(p.cval, s.cval, t);
    double mid_cval = s.cval;
    if (!s.nd && !s.y.host.empty())
        mid_cval = s.cval * std::accumulate(s.y.host.begin(), s.y.host.end(), 0.0);
    put_scalar(p.cval_mid, mid_cval, t);

    // Weights: push constants when they fit (a symmetric set stores half),
    // else one device array.
    const uint32_t sym_y = s.y.device ? 0 : symmetry(s.y.host), sym_x = s.x.device ? 0 : symmetry(s.x.host);
    auto stored = [](const Taps& tp, uint32_t sym) {
        return sym ? std::vector<double>(tp.host.begin(),
                                         tp.host.begin() + (tp.host.size() + 1) / 2)
                   : tp.host;
    };
    const std::vector<double> wy = stored(s.y, sym_y), wx = stored(s.x, sym_x);
    const size_t words = dtype_size(t) / 4;
    uint32_t src_y = s.y.device   ? 1
                     : wy.empty() ? 2
                                  : 0,
             src_x = s.x.device   ? 1
                     : wx.empty() ? 2
                                  : 0;
    // Where both axes' weights share a place, x's follow y's (as the shader
    // expects).
    Array buffer = s.y.device ? s.y.device : s.x.device;
    if ((wy.size() + wx.size()) * words <= push_weight_words) {
        for (size_t i = 0; i < wy.size(); ++i) put_weight(p.w, i, wy[i], t);
        for (size_t i = 0; i < wx.size(); ++i)
            put_weight(p.w, (src_y == src_x ? wy.size() : 0) + i, wx[i], t);
    } else if (!buffer) {
        std::vector<double> all(wy);
        all.insert(all.end(), wx.begin(), wx.end());
        buffer = upload_weights(s.in.context(), all, t);
        if (src_y == 0) src_y = 1;
        if (src_x == 0) src_x = 1;
    } else {
        throw Error("conv_sep: host weights beside device weights must fit the push constants");
    }

    d.read(s.in).write(s.out).read(buffer ? buffer : s.in);
    p.modes = modes(s.mode_y, s.mode_x);
    for (uint32_t v : {ky, kx, py, nv, src_y, src_x, sym_y, sym_x}) d.spec(v);
    d.push(p);
    const uint64_t tw = uint64_t(l[0]) * px, th = uint64_t(l[1]) * py;
    d.groups(grid(ceil_div(s.OW, tw), ctx, 0), grid(ceil_div(s.OH, th), ctx, 1), grid(s.B, ctx, 2))
        .record();
}

}  // namespace

Ext ext_of(NdMode m) {
    switch (m) {
        case NdMode::reflect:
            return Ext::reflect;
        case NdMode::constant:
            return Ext::constant;
        case NdMode::nearest:
            return Ext::nearest;
        case NdMode::mirror:
            return Ext::mirror;
        case NdMode::wrap:
            return Ext::wrap;
    }
    return Ext::constant;
}

Ext ext_of(Boundary b) {
    switch (b) {
        case Boundary::fill:
            return Ext::constant;
        case Boundary::wrap:
            return Ext::wrap;
        case Boundary::symm:
            return Ext::reflect;
    }
    return Ext::constant;
}

void record(const Separable& original) {
    const Separable s = fold_single_taps(original);
    const size_t ky = s.y.size(), kx = s.x.size();
    if (ky <= max_sep_taps && kx <= max_sep_taps) return record_sep_kernel(s);
    if (ky > 1 && kx > 1) {
        // Two passes through an intermediate of OH x W; what a constant
        // column of it holds follows the same rule as the fused kernel's.
        Array mid = Array::empty(s.in.context(), Shape{uint64_t(s.B) * s.OH * s.W}, s.in.dtype());
        Separable a = s, b = s;
        a.out = mid, a.OW = s.W, a.ox = 0, a.x = Taps{};
        b.in = mid, b.H = s.OH, b.oy = 0, b.y = Taps{};
        if (!s.nd && !s.y.host.empty())
            b.cval = s.cval * std::accumulate(s.y.host.begin(), s.y.host.end(), 0.0);
        b.nd = true;
        record(a);
        record(b);
        return;
    }
    if (ky > max_sep_taps) return record_direct_axis(s, true);
    record_direct_axis(s, false);
}

void record(const General& g) {
    detail::OpServices& ctx = ops::services(g.in);
    const DType t = g.in.dtype();
    const size_t esz = dtype_size(t);
    const std::array<uint32_t, 3> tiled_local{32, 8, 1};
    const uint32_t px = t == DType::float64 ? 1 : 2;
    uint32_t py = 0;
    // The tile follows the workgroup size, which may be tuned per device.
    const auto l = Dispatcher(ctx, ops::variant(ops::Shader::conv_2d, t), tiled_local).local();
    if (g.KH <= max_tiled_kh && g.KW <= max_tiled_kw) {
        auto bytes = [&](uint32_t rows) {
            return (uint64_t(l[1]) * rows + g.KH - 1) * (uint64_t(l[0]) * px + g.KW - 1) * esz +
                   uint64_t(g.KH) * g.KW * esz;
        };
        for (uint32_t c : {8u, 4u, 2u, 1u})
            if (bytes(c) <= shared_budget(ctx)) {
                py = c;
                break;
            }
    }
    const bool tiled = py > 0;
    Dispatcher d(ctx, ops::variant(ops::Shader::conv_2d, t),
                 tiled ? tiled_local : std::array<uint32_t, 3>{256, 1, 1});
    GeneralPush p{};
    p.B = g.B, p.H = g.H, p.W = g.W, p.OH = g.OH, p.OW = g.OW;
    p.oy = g.oy, p.ox = g.ox, p.kh = g.KH, p.kw = g.KW;
    p.modes = modes(g.mode_y, g.mode_x);
    put_scalar(p.cval, g.cval, t);
    d.read(g.in).read(g.kernel).write(g.out);
    for (uint32_t v :
         {tiled ? g.KH : 1u, tiled ? g.KW : 1u, tiled ? py : 1u, tiled ? px : 1u, uint32_t(tiled)})
        d.spec(v);
    d.push(p);
    if (tiled) {
        const auto& l = d.local();
        d.groups(grid(ceil_div(g.OW, uint64_t(l[0]) * px), ctx, 0),
                 grid(ceil_div(g.OH, uint64_t(l[1]) * py), ctx, 1), grid(g.B, ctx, 2));
    } else {
        d.stride_grid(uint64_t(g.B) * g.OH * g.OW);
    }
    d.record();
}

Array upload_weights(const Context& ctx, std::span<const double> w, DType t) {
    const size_t words = dtype_size(t) / 4;
    std::vector<uint32_t> bits(w.size() * words);
    for (size_t i = 0; i < w.size(); ++i) put_weight(bits.data(), i, w[i], t);
    if (!ops::services(ctx).capturing())
        return Array::from_host(ctx, Shape{w.size()}, t, bits.data(), bits.size() * 4);
    Array a = Array::empty(ctx, Shape{w.size()}, t);
    Array as_words(ctx.shared_state(), a.storage(), Shape{bits.size()}, DType::uint32);
    for (size_t off = 0; off < bits.size(); off += 30) {
        WeightsPush p{};
        p.offset = static_cast<uint32_t>(off);
        p.count = static_cast<uint32_t>(std::min<size_t>(30, bits.size() - off));
        std::memcpy(p.w, bits.data() + off, p.count * 4);
        Dispatcher(ops::services(ctx), ops::KernelId::conv_weights, {32, 1, 1})
            .write(as_words)
            .push(p)
            .cover(p.count)
            .record();
    }
    return a;
}

}  // namespace kiln::ops::conv
