// scipy.ndimage's minimum/maximum filters and grey morphology on the GPU:
// a box runs as a fused y-x pass (morph_box2d) behind a z pass (morph_line);
// any other footprint, or a non-flat structure, as morph_filter.
#include <algorithm>
#include <limits>
#include <string>

#include "kiln/elementwise.hpp"
#include "kiln/morphology.hpp"
#include "ops/convolve_pass.hpp"
#include "ops/kernel.hpp"
#include "ops/morphology_pass.hpp"

namespace kiln {

namespace ops::morph {

DeviceOffsets upload_offsets(const Context& ctx, const std::vector<std::array<int, 3>>& offsets,
                             const Shape& shape) {
    DeviceOffsets d;
    d.count = static_cast<uint32_t>(offsets.size());
    std::vector<int32_t> words;
    d.lo = d.hi = offsets.front();
    for (const auto& o : offsets) {
        for (size_t a = 0; a < 3; ++a) d.lo[a] = std::min(d.lo[a], o[a]), d.hi[a] = std::max(d.hi[a], o[a]);
        const int64_t step = (int64_t(o[0]) * int64_t(shape.y()) + o[1]) * int64_t(shape.x()) + o[2];
        words.insert(words.end(), {o[0], o[1], o[2], int32_t(step)});
    }
    // Inside a Graph capture pushes are refused: the offsets are written by
    // upload_weights' kernel (as float64, exact) and cast.
    if (!ops::services(ctx).capturing()) {
        d.offsets = Array::from(ctx, Shape{words.size()}, words);
    } else {
        const std::vector<double> w(words.begin(), words.end());
        d.offsets = cast(conv::upload_weights(ctx, w, DType::float64), DType::int32);
    }
    return d;
}

std::array<uint32_t, 3> zyx_local(const Shape& shape) {
    return shape.ndim() == 1 ? std::array<uint32_t, 3>{256, 1, 1} : std::array<uint32_t, 3>{64, 4, 1};
}

void record_zyx(Dispatcher& d, const Shape& shape) {
    const auto& l = d.local();
    auto groups = [](uint64_t n, uint32_t per) { return uint32_t(std::clamp<uint64_t>((n + per - 1) / per, 1, 65535)); };
    d.groups(groups(shape.x(), l[0]), groups(shape.y(), l[1]), groups(shape.z(), l[2])).record();
}

void check_size(const Array& a, const char* op) {
    if (a.size() >= (uint64_t(1) << 31))
        throw Unsupported(std::string(op) + ": an array of " + std::to_string(a.size()) +
                          " elements; up to 2^31 - 1 are supported");
}

}  // namespace ops::morph

namespace {

constexpr uint32_t shared_cap = 48 * 1024;
constexpr int max_fused_taps = 64;

struct FilterPush {
    uint32_t cval[2];
    uint32_t nz, ny, nx, count, mode;
    int32_t lz, ly, lx, hz, hy, hx;
};

struct LinePush {
    uint32_t cval[2];
    uint32_t outer, n, inner, k, mode;
    int32_t lo;
};

struct Box2dPush {
    uint32_t cval[2];
    uint32_t B, H, W, mode;
    int32_t loz, loy, lox;
};

void put_cval(uint32_t (&dst)[2], double cval, DType t) {
    const auto bits = ops::scalar_bits(cval, t);
    dst[0] = bits[0], dst[1] = bits[1];
}

// One axis of a box: out[m] = min_j in[m + lo + j], the axis of n elements
// with stride `inner` in blocks of `outer`.
Array line_pass(const Array& in, uint64_t outer, uint64_t n, uint64_t inner, int k, int lo, NdMode mode,
                double cval, bool minimum) {
    detail::OpServices& ctx = ops::services(in);
    Array out = Array::empty(in.context(), in.shape(), in.dtype());
    LinePush p{};
    put_cval(p.cval, cval, in.dtype());
    p.outer = uint32_t(outer), p.n = uint32_t(n), p.inner = uint32_t(inner), p.k = uint32_t(k);
    p.mode = uint32_t(ops::conv::ext_of(mode)), p.lo = lo;
    ops::Dispatcher d(ctx, ops::variant(ops::Shader::morph_line, in.dtype()), {256, 1, 1});
    d.read(in).write(out).spec(minimum).push(p).stride_grid(in.size()).record();
    return out;
}

// Rows of the fused pass per invocation that fit the shared memory and
// divide the workgroup's width (0: none fits, or the box is too long for the
// registers that hold an invocation's PY + K - 1 values).
uint32_t box2d_rows(detail::OpServices& ctx, std::array<uint32_t, 3> local, int ky, int kx, DType t) {
    if (ky > max_fused_taps || kx > max_fused_taps) return 0;
    const uint64_t w = t == DType::float64 ? 8 : 4, budget = std::min(ctx.info().max_shared_memory, shared_cap);
    for (uint32_t py = 8; py >= 1; py /= 2) {
        if (local[0] % py != 0) continue;
        const uint64_t th = uint64_t(local[1]) * py, aw = local[0] + uint64_t(kx) - 1;
        if (((th + ky - 1) * aw + th * aw) * w <= budget) return py;
    }
    return 0;
}

// A box over (B, H, W) in one pass: y and x, and z (the B axis) where
// k[0] > 1; null where the box does not fit the shared memory or registers.
Array box2d_pass(const Array& in, uint64_t B, uint64_t H, uint64_t W, std::array<int, 3> k,
                 std::array<int, 3> lo, NdMode mode, double cval, bool minimum) {
    detail::OpServices& ctx = ops::services(in);
    ops::Dispatcher d(ctx, ops::variant(ops::Shader::morph_box2d, in.dtype()), {64, 4, 1});
    const auto& l = d.local();
    const uint32_t py = k[0] > max_fused_taps ? 0 : box2d_rows(ctx, l, k[1], k[2], in.dtype());
    if (py == 0) return {};
    Array out = Array::empty(in.context(), in.shape(), in.dtype());
    Box2dPush p{};
    put_cval(p.cval, cval, in.dtype());
    p.B = uint32_t(B), p.H = uint32_t(H), p.W = uint32_t(W), p.mode = uint32_t(ops::conv::ext_of(mode));
    p.loz = lo[0], p.loy = lo[1], p.lox = lo[2];
    auto grid = [&](uint64_t tiles, int axis) {
        return uint32_t(std::clamp<uint64_t>(tiles, 1, std::min<uint64_t>(ctx.info().max_workgroup_count[axis], 65535)));
    };
    const uint64_t th = uint64_t(l[1]) * py;
    d.read(in).write(out).spec(minimum).spec(uint32_t(k[1])).spec(uint32_t(k[2])).spec(py).spec(uint32_t(k[0]));
    d.push(p);
    d.groups(grid((W + l[0] - 1) / l[0], 0), grid((H + th - 1) / th, 1), grid(B, 2)).record();
    return out;
}

Array box_filter(const Array& input, const Footprint& f, NdMode mode, double cval, bool minimum) {
    const size_t nd = input.ndim(), fd = f.ndim();
    std::array<int, 3> k{1, 1, 1}, lo{0, 0, 0};
    for (size_t a = 0; a < fd; ++a) {
        const int n = int(f.shape[a]), o = f.origin.empty() ? 0 : f.origin[a];
        k[3 - fd + a] = n, lo[3 - fd + a] = -(n / 2 + o);
    }
    const Shape& s = input.shape();
    const uint64_t nz = s.z(), ny = s.y(), nx = s.x();
    Array current = input;
    bool filtered = false;
    if (nd == 1) {
        if (k[2] > 1) current = line_pass(current, 1, nx, 1, k[2], lo[2], mode, cval, minimum), filtered = true;
        return filtered ? current : copy(input);
    }
    if (k[1] > 1 || k[2] > 1) {
        if (Array all = box2d_pass(current, nz, ny, nx, k, lo, mode, cval, minimum)) return all;
    }
    if (k[0] > 1) current = line_pass(current, 1, nz, ny * nx, k[0], lo[0], mode, cval, minimum), filtered = true;
    if (k[1] > 1 || k[2] > 1) {
        if (k[1] > 1) current = line_pass(current, nz, ny, nx, k[1], lo[1], mode, cval, minimum);
        if (k[2] > 1) current = line_pass(current, nz * ny, nx, 1, k[2], lo[2], mode, cval, minimum);
        return current;
    }
    return filtered ? current : copy(input);
}

Array footprint_filter(const Array& input, const Footprint& f, const std::vector<double>& heights,
                       NdMode mode, double cval, bool minimum) {
    detail::OpServices& ctx = ops::services(input);
    const auto offsets = f.offsets(input.ndim());
    const ops::morph::DeviceOffsets dev = ops::morph::upload_offsets(input.context(), offsets, input.shape());
    std::vector<double> h;
    for (size_t i = 0; i < f.mask.size() && !heights.empty(); ++i)
        if (f.mask[i]) h.push_back(minimum ? -heights[i] : heights[i]);
    const Array hd = h.empty() ? dev.offsets : ops::conv::upload_weights(input.context(), h, DType::float64);
    Array out = Array::empty(input.context(), input.shape(), input.dtype());
    FilterPush p{};
    put_cval(p.cval, cval, input.dtype());
    const Shape& s = input.shape();
    p.nz = uint32_t(s.z()), p.ny = uint32_t(s.y()), p.nx = uint32_t(s.x()), p.count = dev.count;
    p.mode = uint32_t(ops::conv::ext_of(mode));
    p.lz = dev.lo[0], p.ly = dev.lo[1], p.lx = dev.lo[2], p.hz = dev.hi[0], p.hy = dev.hi[1], p.hx = dev.hi[2];
    ops::Dispatcher d(ctx, ops::variant(ops::Shader::morph_filter, input.dtype()), ops::morph::zyx_local(s));
    d.read(input).read(dev.offsets).read(hd).write(out).spec(minimum).spec(!h.empty()).push(p);
    ops::morph::record_zyx(d, s);
    return out;
}

Array min_or_max(const char* op, const Array& input, const Footprint& f, const std::vector<double>& heights,
                 NdMode mode, double cval, bool minimum) {
    if (!input) throw InvalidArgument(std::string(op) + ": the input is a null Array");
    ops::morph::check_size(input, op);
    if (f.ndim() == 0)
        throw InvalidArgument(std::string(op) + ": the footprint has no axes; give a box (Footprint::box, "
                              "scipy's size=) or a footprint of 1 to 3 axes");
    f.offsets(input.ndim());  // checks the footprint and its origin
    if (!heights.empty() && heights.size() != f.mask.size())
        throw InvalidArgument(std::string(op) + ": " + std::to_string(heights.size()) +
                              " structure values for a footprint of " + std::to_string(f.mask.size()) +
                              " elements; give one per element");
    if (heights.empty() && f.is_box()) return box_filter(input, f, mode, cval, minimum);
    return footprint_filter(input, f, heights, mode, cval, minimum);
}

std::vector<double> reversed(const std::vector<double>& v) { return {v.rbegin(), v.rend()}; }

}  // namespace

Array minimum_filter(const Array& input, const Footprint& footprint, NdMode mode, double cval) {
    return min_or_max("minimum_filter", input, footprint, {}, mode, cval, true);
}

Array maximum_filter(const Array& input, const Footprint& footprint, NdMode mode, double cval) {
    return min_or_max("maximum_filter", input, footprint, {}, mode, cval, false);
}

Array grey_erosion(const Array& input, const Footprint& footprint, const std::vector<double>& structure,
                   NdMode mode, double cval) {
    return min_or_max("grey_erosion", input, footprint, structure, mode, cval, true);
}

Array grey_dilation(const Array& input, const Footprint& footprint, const std::vector<double>& structure,
                    NdMode mode, double cval) {
    if (footprint.ndim() > 0) footprint.offsets(footprint.ndim());  // the origin checked before reflecting
    return min_or_max("grey_dilation", input, footprint.reflected(), reversed(structure), mode, cval, false);
}

Array grey_opening(const Array& input, const Footprint& footprint, const std::vector<double>& structure,
                   NdMode mode, double cval) {
    return grey_dilation(grey_erosion(input, footprint, structure, mode, cval), footprint, structure, mode, cval);
}

Array grey_closing(const Array& input, const Footprint& footprint, const std::vector<double>& structure,
                   NdMode mode, double cval) {
    return grey_erosion(grey_dilation(input, footprint, structure, mode, cval), footprint, structure, mode, cval);
}

Array white_tophat(const Array& input, const Footprint& footprint, const std::vector<double>& structure,
                   NdMode mode, double cval) {
    return subtract(input, grey_opening(input, footprint, structure, mode, cval));
}

Array black_tophat(const Array& input, const Footprint& footprint, const std::vector<double>& structure,
                   NdMode mode, double cval) {
    return subtract(grey_closing(input, footprint, structure, mode, cval), input);
}

Array morphological_gradient(const Array& input, const Footprint& footprint,
                             const std::vector<double>& structure, NdMode mode, double cval) {
    return subtract(grey_dilation(input, footprint, structure, mode, cval),
                    grey_erosion(input, footprint, structure, mode, cval));
}

}  // namespace kiln
