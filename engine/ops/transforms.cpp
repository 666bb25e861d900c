// scipy.ndimage's geometric transforms on the GPU. With order 3 and
// prefilter the input becomes B-spline coefficients first: SciPy's recursive
// filter (a causal and an anticausal pass per line, started from the
// mode's exact boundary values) equals convolving the mode-extended line
// with the symmetric kernel h[k] = -6 z^(|k|+1) / (1 - z^2), z = sqrt(3) - 2,
// which falls below float32's (float64's) resolution after 13 (30) taps. So
// the prefilter is the separable convolution pass (ops/convolve_pass), tiled
// in shared memory with coalesced rows, instead of one sequential
// invocation per line. Then one interp_map dispatch: one output per
// invocation, coordinates in double, the taps gathered from the coefficients.
#include "kiln/transforms.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "host/transform_plan.hpp"
#include "kiln/elementwise.hpp"
#include "ops/convolve_pass.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using namespace kiln::transform;

struct PadPush {
    int32_t n[4], pad[4];
    uint32_t cval[2];
    uint32_t edge, count;
};
static_assert(sizeof(PadPush) == 48, "interp_pad's push constants");

struct InterpPush {
    double prm[8];
    int32_t n[4];
    uint32_t on[4];
    uint32_t cval[2];
    uint32_t flags, count;
};
static_assert(sizeof(InterpPush) == 112, "interp_map's push constants");

constexpr uint32_t flag_shift = 16, flag_zoom = 32, flag_grid = 64, padded_shift = 12, flag_prm_buffer = 1u << 18;
// interp_map adds SciPy's 12 to the coordinates of a padded axis.
constexpr int shader_prepad = 12;

DType result_dtype(DType t) {
    return t == DType::float64 ? DType::float64 : DType::float32;
}

void check_input(const Array& input, const char* op) {
    if (!input) throw InvalidArgument(std::string(op) + ": the input is a null Array");
    if (input.size() > std::numeric_limits<uint32_t>::max())
        throw Unsupported(std::string(op) + ": an input of " + std::to_string(input.size()) +
                          " elements; up to 2^32 - 1 are supported");
}

// The prefilter's kernel for coefficients of dtype t.
std::vector<double> prefilter_taps(DType t) {
    const int half = t == DType::float64 ? 30 : 13;
    const double z = cubic_pole, gain = (1.0 - z) * (1.0 - 1.0 / z);
    std::vector<double> h(2 * half + 1);
    for (int k = -half; k <= half; ++k)
        h[k + half] = -gain * std::pow(z, std::abs(k) + 1) / (1.0 - z * z);
    return h;
}

// The extension SciPy's initial values stand for (apply_filter in
// ni_splines.c).
ops::conv::Ext prefilter_ext(int code) {
    if (code == grid_wrap) return ops::conv::Ext::wrap;
    if (code == nearest || code == reflect) return ops::conv::Ext::reflect;
    return ops::conv::Ext::mirror;
}

// `in` converted to R and padded by pad[a] on both sides of axis a.
Array pad_to_float(const Array& in, const std::array<int, 3>& pad, bool edge, double cval) {
    const size_t nd = in.ndim();
    std::vector<size_t> dims(nd);
    PadPush p{};
    for (int s = 0; s < 3; ++s) p.n[s] = 1;
    for (size_t a = 0; a < nd; ++a) {
        dims[a] = in.shape()[a] + 2 * size_t(pad[a]);
        p.n[3 - nd + a] = static_cast<int32_t>(in.shape()[a]);
        p.pad[3 - nd + a] = pad[a];
    }
    Array out = Array::empty(in.context(), Shape::of(nd, dims.data()), result_dtype(in.dtype()));
    if (out.size() > std::numeric_limits<uint32_t>::max())
        throw Unsupported("spline prefilter: the padded input exceeds 2^32 - 1 elements");
    const auto bits = ops::scalar_bits(cval, DType::float64);
    p.cval[0] = bits[0], p.cval[1] = bits[1];
    p.edge = edge ? 1 : 0;
    p.count = static_cast<uint32_t>(out.size());
    ops::Dispatcher(ops::services(in), ops::variant(ops::Shader::interp_pad, in.dtype()), {256, 1, 1})
        .read(in)
        .write(out)
        .push(p)
        .stride_grid(out.size())
        .record();
    return out;
}

// The spline filter along the axes flagged in `along`, of a float array.
Array filter_axes(Array a, const std::array<bool, 3>& along, ops::conv::Ext ext) {
    const size_t nd = a.ndim();
    const Shape& sh = a.shape();
    const std::vector<double> h = prefilter_taps(a.dtype());
    auto pass = [&](size_t b, size_t rows, size_t cols, bool y, bool x) {
        if (!y && !x) return;
        ops::conv::Separable s;
        s.in = a;
        s.out = Array::empty(a.context(), sh, a.dtype());
        s.B = uint32_t(b), s.H = s.OH = uint32_t(rows), s.W = s.OW = uint32_t(cols);
        if (y) s.y.host = h, s.oy = int(h.size() / 2);
        if (x) s.x.host = h, s.ox = int(h.size() / 2);
        s.mode_y = s.mode_x = ext;
        s.nd = true;
        ops::conv::record(s);
        a = s.out;
    };
    if (nd == 1) pass(1, 1, sh[0], false, along[0]);
    if (nd == 2) pass(1, sh[0], sh[1], along[0], along[1]);
    if (nd == 3) {
        pass(1, sh[0], sh[1] * sh[2], along[0], false);
        pass(sh[0], sh[1], sh[2], along[1], along[2]);
    }
    return a;
}

// What interp_map reads: the input itself, or its spline coefficients
// (padded first for nearest and grid-constant), and each axis' padding.
struct Coefficients {
    Array a;
    std::array<int, 3> npad{};
};

Coefficients coefficients(const Array& input, const Interp& ip, const std::array<bool, 3>& along) {
    if (!(ip.prefilter && ip.order > 1)) return {input, {}};
    const int code = code_of(ip.mode);
    Coefficients c;
    for (size_t a = 0; a < input.ndim(); ++a) c.npad[a] = along[a] ? prepad(code) : 0;
    const bool padded = c.npad != std::array<int, 3>{};
    c.a = padded || !dtype_is_float(input.dtype()) ? pad_to_float(input, c.npad, code == nearest, ip.cval) : input;
    c.a = filter_axes(c.a, along, prefilter_ext(code));
    return c;
}

// A 2-D float32 input that a coordinates array samples at order 1, as an
// image for interp_texture's gathers (written here by image_fill), where
// the device takes one of its extents and the points are at least an eighth
// of its elements (the copy into the image reads the whole input: 0.015 ms
// for 2048^2 on an H200, against 0.08 ms saved on 4M points); else null.
std::shared_ptr<const vk::Image> gather_image(detail::OpServices& svc, const Array& a, const Interp& ip, int source,
                                              uint32_t flags, uint64_t points) {
    if (source < 2 || a.ndim() != 2 || ip.order != 1 || a.dtype() != DType::float32 || (flags & 7u) != 0 ||
        points * 8 < a.size())
        return nullptr;
    const uint32_t h = static_cast<uint32_t>(a.shape()[0]), w = static_cast<uint32_t>(a.shape()[1]);
    auto img = svc.kept_image("interp_texture", VK_FORMAT_R32_SFLOAT, w, h);
    if (!img) return nullptr;
    struct {
        uint32_t h, w;
    } fp{h, w};
    ops::Dispatcher f(svc, ops::KernelId::image_fill, {64, 4, 1});
    f.read(a).store(img).push(fp).cover(w, (h + 3) / 4).record();  // four rows per invocation
    return img;
}

// One interp_map dispatch: a plan's mapping (coords null) or coordinates.
Array interpolate(const Array& input, const Plan& plan, const Interp& ip, const Array& coords) {
    detail::OpServices& svc = ops::services(input);
    if (!svc.enabled().float64)
        throw Unsupported("geometric transforms (shift, zoom, rotate, affine_transform, map_coordinates) need "
                          "shaderFloat64 on the device (coordinates are computed in float64, as SciPy's), which '" +
                          svc.info().name + "' does not have enabled");
    const Coefficients c = coefficients(input, ip, plan.interpolated);
    const size_t nd = input.ndim();
    const Shape out_shape = plan.out;
    if (out_shape.size() > std::numeric_limits<uint32_t>::max())
        throw Unsupported("interpolation: an output of " + std::to_string(out_shape.size()) +
                          " elements; up to 2^32 - 1 are supported");
    Array out = Array::empty(input.context(), out_shape, result_dtype(input.dtype()));

    // The mapping's doubles, dense: zoom[nd] and shift at 3, or the
    // matrix's nd^2 and the offset's nd.
    std::vector<double> prm(12, 0.0);
    InterpPush p{};
    for (size_t a = 0; a < nd; ++a) {
        p.n[a] = static_cast<int32_t>(c.a.shape()[a]);
        p.on[a] = static_cast<uint32_t>(out_shape.ndim() == nd ? out_shape[a] : 1);
        if (c.npad[a] != 0) {
            if (c.npad[a] != shader_prepad) throw Error("interpolation: a prepadding interp_map does not know");
            p.flags |= 1u << (padded_shift + a);
        }
        if (!plan.interpolated[a]) p.flags |= 1u << a;
        if (plan.matrix) {
            for (size_t l = 0; l < nd; ++l) prm[nd * a + l] = plan.m[a * nd + l];
            prm[nd * nd + a] = plan.offset[a];
        } else {
            prm[a] = plan.zoom[a], prm[3 + a] = plan.shift[a];
        }
    }
    if (plan.has_shift) p.flags |= flag_shift;
    if (plan.has_zoom) p.flags |= flag_zoom;
    if (plan.grid_mode) p.flags |= flag_grid;
    // Up to 8 doubles ride in the push constants (no upload); a volume's
    // matrix and offset (12) go in a buffer.
    const bool in_buffer = plan.matrix && nd == 3;
    for (size_t k = 0; k < 8; ++k) p.prm[k] = prm[k];
    const auto bits = ops::scalar_bits(ip.cval, DType::float64);
    p.cval[0] = bits[0], p.cval[1] = bits[1];
    p.count = static_cast<uint32_t>(out.size());

    int source = plan.matrix ? 1 : 0;
    Array co = coords;
    if (co) {
        if (co.dtype() != DType::float32 && co.dtype() != DType::float64) co = cast(co, DType::float64);
        source = co.dtype() == DType::float32 ? 2 : 3;
    }
    const Array params = in_buffer ? ops::conv::upload_weights(input.context(), prm, DType::float64) : c.a;
    // The kept image is the context's: no other thread's fill may come
    // between this call's fill and gather.
    const auto lock = svc.lock();
    const auto tex = gather_image(svc, c.a, ip, source, p.flags, out.size());
    ops::Dispatcher d(svc,
                      ops::variant(tex ? ops::Shader::interp_texture : ops::Shader::interp_map, c.a.dtype()),
                      {256, 1, 1});
    d.read(c.a).read(params).read(co ? co : c.a).write(out);
    if (tex) d.sample(tex);
    p.flags |= in_buffer ? flag_prm_buffer : 0;
    for (int v : {ip.order, int(nd), source, code_of(ip.mode)}) d.spec(static_cast<uint32_t>(v));
    d.push(p);
    if (source < 2) {
        // Rows of the last axis: workgroups y, then z past 65535 rows.
        const uint64_t last = out_shape[out_shape.ndim() - 1], rows = out.size() / last;
        const uint64_t wx = d.local()[0];
        const uint64_t gx = std::min<uint64_t>(
            {(last + wx - 1) / wx, svc.info().max_workgroup_count[0], 65535});
        d.groups(static_cast<uint32_t>(gx), static_cast<uint32_t>(std::min<uint64_t>(rows, 65535)),
                 static_cast<uint32_t>((rows + 65534) / 65535));
    } else {
        d.stride_grid(out.size());
    }
    d.record();
    return out;
}

}  // namespace

Array spline_filter(const Array& input, InterpMode mode) {
    check_input(input, "spline_filter");
    const Array a = dtype_is_float(input.dtype()) ? input : pad_to_float(input, {}, false, 0);
    return filter_axes(a, {true, true, true}, prefilter_ext(code_of(mode)));
}

Array shift(const Array& input, const std::vector<double>& s, const Interp& ip) {
    check_input(input, "shift");
    check_interp(ip, "shift");
    return interpolate(input, shift_plan(input.shape(), s), ip, {});
}

Array zoom(const Array& input, const std::vector<double>& z, const Interp& ip, bool grid_mode) {
    check_input(input, "zoom");
    check_interp(ip, "zoom");
    return interpolate(input, zoom_plan(input.shape(), z, grid_mode), ip, {});
}

Array rotate(const Array& input, double angle, std::array<int, 2> axes, bool reshape, const Interp& ip) {
    check_input(input, "rotate");
    check_interp(ip, "rotate");
    return interpolate(input, rotate_plan(input.shape(), angle, axes, reshape), ip, {});
}

Array affine_transform(const Array& input, const std::vector<double>& matrix, const std::vector<double>& offset,
                       const std::vector<size_t>& output_shape, const Interp& ip) {
    check_input(input, "affine_transform");
    check_interp(ip, "affine_transform");
    return interpolate(input, affine_plan(input.shape(), matrix, offset, output_shape), ip, {});
}

Array map_coordinates(const Array& input, const Array& coordinates, const Interp& ip) {
    check_input(input, "map_coordinates");
    check_interp(ip, "map_coordinates");
    if (!coordinates) throw InvalidArgument("map_coordinates: the coordinates are a null Array");
    ops::check_same_context(input, coordinates, "map_coordinates");
    Plan plan;
    plan.in = input.shape();
    plan.out = coordinates_output(input.shape(), coordinates.shape());
    return interpolate(input, plan, ip, coordinates);
}

}  // namespace kiln
