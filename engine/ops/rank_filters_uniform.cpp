// scipy.ndimage.uniform_filter on the GPU. Floats: the box mean as a
// separable convolution with weights 1 / size (ops/convolve_pass: the y and x
// passes of each image fused in one tiled dispatch, each output a sum of
// `size` loads from shared memory; the z pass of a volume before them), each
// pass rounding to the dtype as SciPy's do. Integers: one exact pass per
// axis (shaders/uniform_line.comp), truncating as SciPy does.
#include <string>

#include "host/rank_rules.hpp"
#include "kiln/elementwise.hpp"
#include "kiln/manifest.hpp"
#include "kiln/rank_filters.hpp"
#include "ops/convolve_pass.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

struct LinePush {
    uint32_t outer, n, inner, size;
    int32_t lo;
    uint32_t mode;
    uint32_t cval[2];
};

// conv_sep's offset for a box along an axis: its window for output i is
// [i + o - (size - 1), i + o], SciPy's [i - size / 2 - origin, ...].
int sep_offset(const UniformPass& p) {
    return int(p.size - p.size / 2 - 1 - p.origin);
}

Array uniform_float(const Array& input, const std::vector<UniformPass>& passes, NdMode mode, double cval) {
    const Shape& shape = input.shape();
    const size_t nd = shape.ndim();
    const ops::conv::Ext ext = ops::conv::ext_of(mode);
    Array current = input;
    const UniformPass none{0, 1, 0};
    auto find = [&](size_t axis) {
        for (const UniformPass& p : passes)
            if (p.axis == axis) return p;
        return none;
    };
    auto taps = [](const UniformPass& p) {
        return p.size > 1 ? std::vector<double>(size_t(p.size), 1.0 / double(p.size)) : std::vector<double>{};
    };
    auto pass = [&](uint64_t b, uint64_t h, uint64_t w, const UniformPass& py, const UniformPass& px) {
        ops::conv::Separable s;
        s.in = current;
        s.out = Array::empty(input.context(), shape, input.dtype());
        s.B = uint32_t(b), s.H = s.OH = uint32_t(h), s.W = s.OW = uint32_t(w);
        s.oy = sep_offset(py), s.ox = sep_offset(px);
        s.y.host = taps(py);
        s.x.host = taps(px);
        s.mode_y = s.mode_x = ext;
        s.cval = cval;
        s.nd = true;
        ops::conv::record(s);
        current = s.out;
    };
    // The slowest axis first, as SciPy; y and x together.
    if (nd == 3 && find(0).size > 1) pass(1, shape[0], shape[1] * shape[2], find(0), none);
    if (nd >= 2 && (find(nd - 2).size > 1 || find(nd - 1).size > 1))
        pass(nd == 3 ? shape[0] : 1, shape[nd - 2], shape[nd - 1], find(nd - 2), find(nd - 1));
    if (nd == 1 && find(0).size > 1) pass(1, 1, shape[0], none, find(0));
    return current;
}

Array uniform_integer(const Array& input, const std::vector<UniformPass>& passes, NdMode mode, double cval) {
    const DType t = input.dtype();
    detail::OpServices& ctx = ops::services(input);
    if (dtype_size(t) == 4 && !ctx.info().int64)
        throw Unsupported("uniform_filter: " + std::string(dtype_name(t)) +
                          " input needs 64-bit integers in shaders, which this device lacks; "
                          "convert to float32 or float64 first");
    const Shape& shape = input.shape();
    Array current = input;
    for (const UniformPass& pass : passes) {
        // uniform_line.comp sums 8- and 16-bit integers in 32 bits.
        if (dtype_size(t) == 2 && pass.size > 32768)
            throw Unsupported("uniform_filter: size " + std::to_string(pass.size) + " for " +
                              std::string(dtype_name(t)) +
                              " input is not supported; up to 32768 (or convert to float32 first)");
        LinePush p{};
        p.outer = p.inner = 1;
        for (size_t a = 0; a < pass.axis; ++a) p.outer *= uint32_t(shape[a]);
        for (size_t a = pass.axis + 1; a < shape.ndim(); ++a) p.inner *= uint32_t(shape[a]);
        p.n = uint32_t(shape[pass.axis]);
        p.size = uint32_t(pass.size);
        p.lo = int32_t(-pass.size / 2 - pass.origin);
        p.mode = uint32_t(ops::conv::ext_of(mode));
        const auto bits = ops::scalar_bits(cval, t);
        p.cval[0] = bits[0], p.cval[1] = bits[1];
        Array out = Array::empty(input.context(), shape, t);
        ops::Dispatcher(ctx, ops::variant(ops::Shader::uniform_line, t), {256, 1, 1})
            .read(current)
            .write(out)
            .push(p)
            .stride_grid(shape.size())
            .record();
        current = out;
    }
    return current;
}

}  // namespace

Array uniform_filter(const Array& input, const std::vector<int64_t>& sizes, NdMode mode, double cval,
                     const std::vector<int64_t>& origins) {
    if (!input) throw InvalidArgument("uniform_filter: the input is a null Array");
    const auto passes = uniform_passes(input.shape(), sizes, origins, "uniform_filter");
    if (passes.empty()) return copy(input);
    return dtype_is_float(input.dtype()) ? uniform_float(input, passes, mode, cval)
                                         : uniform_integer(input, passes, mode, cval);
}

Array uniform_filter1d(const Array& input, int64_t size, int64_t axis, NdMode mode, double cval,
                       int64_t origin) {
    if (!input) throw InvalidArgument("uniform_filter1d: the input is a null Array");
    const size_t a = uniform_axis(input.shape(), axis, "uniform_filter1d");
    std::vector<int64_t> sizes(input.ndim(), 1), origins(input.ndim(), 0);
    sizes[a] = size, origins[a] = origin;
    return uniform_filter(input, sizes, mode, cval, origins);
}

}  // namespace kiln

// The manifest entries (kiln/manifest.hpp).
namespace kiln {
namespace {

const ArgSpec mode_arg{"mode", ArgKind::choice, "How the input extends beyond its edges (scipy.ndimage)", "reflect",
                       false, nd_mode_names()};
const ArgSpec cval_arg{"cval", ArgKind::number, "Value outside the input with --mode constant", "0"};

const OpFamily uniform_family("rank_filters", {
    {"uniform_filter",
     "Box mean as scipy.ndimage.uniform_filter; the input's dtype out (integers truncated, as SciPy)",
     {{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"},
      {"size", ArgKind::integers, "Box sizes, one per axis (z, y, x) or one for all, e.g. --size 5 5", "3", false,
       {}, 1, 1 << 20},
      mode_arg,
      cval_arg,
      {"origin", ArgKind::integers, "Shift of the box's centre, one per axis or one for all", "0", false, {},
       -(1 << 20), 1 << 20}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return uniform_filter(x.array("input"), x.integers("size"), parse_nd_mode(x.text("mode")),
                               x.number("cval"), x.integers("origin"));
     }},
    {"uniform_filter1d", "Box mean along one axis as scipy.ndimage.uniform_filter1d",
     {{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"},
      {"size", ArgKind::integer, "Box size along the axis", "", false, {}, 1, 1 << 20},
      {"axis", ArgKind::integer, "The axis (negative: from the last)", "-1", false, {}, -3, 2},
      mode_arg,
      cval_arg,
      {"origin", ArgKind::integer, "Shift of the box's centre", "0", false, {}, -(1 << 20), 1 << 20}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return uniform_filter1d(x.array("input"), x.integer("size"), x.integer("axis"),
                                 parse_nd_mode(x.text("mode")), x.number("cval"), x.integer("origin"));
     }},
});

}  // namespace
}  // namespace kiln
