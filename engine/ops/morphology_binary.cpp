// scipy.ndimage's binary morphology on the GPU: each application one
// morph_binary dispatch, all recorded before any result is read back;
// until-stable iterations read a changed flag back only every few applications.
// binary_fill_holes labels the background (kiln::label_async) for the
// standard structures, and runs SciPy's own until-stable dilation for others.
#include <string>

#include "kiln/elementwise.hpp"
#include "kiln/label.hpp"
#include "kiln/morphology.hpp"
#include "ops/kernel.hpp"
#include "ops/morphology_pass.hpp"
#include "ops/read_back.hpp"

namespace kiln {

namespace {

struct BinaryPush {
    uint32_t nz, ny, nx, count, border;
    int32_t lz, ly, lx, hz, hy, hx;
};

struct HolesPush {
    uint32_t nz, ny, nx, ndim;
};

// Until-stable iterations: applications recorded per check, at first and at
// most (doubling between), so a long propagation costs few read-backs and a short
// one few wasted applications (extra ones past stability change nothing).
constexpr int first_batch = 4, max_batch = 64;

class BinaryStep {
public:
    BinaryStep(const char* op, const Array& input, const Footprint& structure, const BinaryOptions& o,
               bool dilate)
        : input_(input), dilate_(dilate), border_(o.border_value) {
        if (!input) throw InvalidArgument(std::string(op) + ": the input is a null Array");
        ops::morph::check_size(input, op);
        const Footprint s = structure.ndim() == 0 ? Footprint::binary_structure(input.ndim(), 1) : structure;
        auto offsets = s.offsets(input.ndim());
        if (dilate)
            for (auto& d : offsets) d = {-d[0], -d[1], -d[2]};
        dev_ = ops::morph::upload_offsets(input.context(), offsets, input.shape());
        if (o.mask) {
            ops::check_same_context(input, o.mask, op);
            if (!(o.mask.shape() == input.shape()))
                throw InvalidArgument(std::string(op) + ": mask " + o.mask.shape().str() + " for input " +
                                      input.shape().str() + "; give a mask of the input's shape");
            mask_ = o.mask.dtype() == DType::uint8 ? o.mask : compare(CompareOp::not_equal, o.mask, 0.0);
        }
    }

    // One application to `in` (the input, or an earlier uint8 result).
    Array apply(const Array& in, const Array& flag = {}) const {
        detail::OpServices& ctx = ops::services(in);
        Array out = Array::empty(in.context(), in.shape(), DType::uint8);
        BinaryPush p{};
        const Shape& s = in.shape();
        p.nz = uint32_t(s.z()), p.ny = uint32_t(s.y()), p.nx = uint32_t(s.x()), p.count = dev_.count;
        p.border = border_;
        p.lz = dev_.lo[0], p.ly = dev_.lo[1], p.lx = dev_.lo[2], p.hz = dev_.hi[0], p.hy = dev_.hi[1],
        p.hx = dev_.hi[2];
        ops::Dispatcher d(ctx, ops::variant(ops::Shader::morph_binary, in.dtype()), ops::morph::zyx_local(s));
        d.read(in).read(dev_.offsets).read(mask_ ? mask_ : dev_.offsets).write(out);
        if (flag) d.read_write(flag); else d.read(dev_.offsets);
        d.spec(dilate_).spec(bool(mask_)).spec(bool(flag)).push(p);
        ops::morph::record_zyx(d, s);
        return out;
    }

    Array run(int iterations) const {
        Array current = apply(input_);
        for (int i = 1; i < iterations; ++i) current = apply(current);
        if (iterations >= 1) return current;
        // The first application may already have changed nothing: batches
        // end with a checked one.
        for (int batch = first_batch;; batch = std::min(2 * batch, max_batch)) {
            for (int i = 1; i < batch; ++i) current = apply(current);
            Array flag = Array::zeros(input_.context(), Shape{1}, DType::uint32);
            current = apply(current, flag);
            uint32_t changed = 0;
            ops::read_back(flag, &changed, sizeof changed);
            if (!changed) return current;
        }
    }

private:
    Array input_, mask_;
    ops::morph::DeviceOffsets dev_;
    bool dilate_;
    uint32_t border_;
};

// The label connectivity a structure stands for: SciPy's
// generate_binary_structure(ndim, c) with no origin; 0 for any other.
int label_connectivity(const Footprint& s, size_t ndim) {
    if (s.ndim() == 0) return ndim == 1 ? 2 : ndim == 2 ? 4 : 6;
    if (s.ndim() != ndim) return 0;
    for (int o : s.origin)
        if (o != 0) return 0;
    for (int c = 1; c <= int(ndim); ++c) {
        const Footprint b = Footprint::binary_structure(ndim, c);
        if (b.shape == s.shape && b.mask == s.mask)
            return ndim == 1 ? 2 : ndim == 2 ? (c == 1 ? 4 : 8) : (c == 1 ? 6 : c == 2 ? 18 : 26);
    }
    return 0;
}

Array fill_by_labels(const Array& input, int connectivity) {
    detail::OpServices& ctx = ops::services(input);
    const LabelsAsync bg = label_async(compare(CompareOp::equal, input, 0.0), connectivity);
    Array touch = Array::zeros(input.context(), Shape{input.size() + 1}, DType::uint8);
    Array out = Array::empty(input.context(), input.shape(), DType::uint8);
    const Shape& s = input.shape();
    HolesPush p{uint32_t(s.z()), uint32_t(s.y()), uint32_t(s.x()), uint32_t(s.ndim())};
    for (uint32_t stage : {0u, 1u}) {
        ops::Dispatcher d(ctx, ops::KernelId::morph_holes, {256, 1, 1});
        d.read(bg.labels);
        if (stage == 0)
            d.read_write(touch).write(out);
        else
            d.read(touch).write(out);
        d.spec(stage).push(p).stride_grid(input.size()).record();
    }
    return out;
}

}  // namespace

Array binary_erosion(const Array& input, const Footprint& structure, const BinaryOptions& options) {
    return BinaryStep("binary_erosion", input, structure, options, false).run(options.iterations);
}

Array binary_dilation(const Array& input, const Footprint& structure, const BinaryOptions& options) {
    return BinaryStep("binary_dilation", input, structure, options, true).run(options.iterations);
}

Array binary_opening(const Array& input, const Footprint& structure, const BinaryOptions& options) {
    return binary_dilation(binary_erosion(input, structure, options), structure, options);
}

Array binary_closing(const Array& input, const Footprint& structure, const BinaryOptions& options) {
    return binary_erosion(binary_dilation(input, structure, options), structure, options);
}

Array binary_fill_holes(const Array& input, const Footprint& structure) {
    if (!input) throw InvalidArgument("binary_fill_holes: the input is a null Array");
    ops::morph::check_size(input, "binary_fill_holes");
    if (structure.ndim() > 0) structure.offsets(input.ndim());  // checks it
    if (const int c = label_connectivity(structure, input.ndim())) return fill_by_labels(input, c);
    // SciPy's definition: what a dilation from a border of 1s reaches
    // through the background is not a hole.
    BinaryOptions o;
    o.iterations = -1;
    o.mask = compare(CompareOp::equal, input, 0.0);
    o.border_value = true;
    const Array reached = binary_dilation(Array::zeros(input.context(), input.shape(), DType::uint8), structure, o);
    return compare(CompareOp::equal, reached, 0.0);
}

}  // namespace kiln
