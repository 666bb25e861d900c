// Automatic thresholds: the histogram (kiln::histogram) or Li's reductions
// (thresh_li) on the GPU, the threshold itself on the host with the same
// steps as the CPU reference (kiln/reference/threshold.hpp), which repeat
// scikit-image's arithmetic.
#include "kiln/threshold.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/histogram.hpp"
#include "kiln/manifest.hpp"
#include "kiln/reference/threshold.hpp"
#include "ops/finite_range.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};

struct LiPush {
    uint32_t n = 0, pad = 0;
    std::array<uint32_t, 2> min_bits{}, t_bits{};
};
static_assert(sizeof(LiPush) == 24);

void check_image(const Array& image, const char* op) {
    if (!image) throw InvalidArgument(std::string(op) + ": the image is a null Array");
    if (image.size() == 0) throw InvalidArgument(std::string(op) + ": the image is empty; it needs elements");
    if (image.size() > ops::max_elements_per_binding(ops::services(image), dtype_size(image.dtype())))
        throw Unsupported(std::string(op) + ": an image of " + std::to_string(image.nbytes()) +
                          " bytes is more than one binding of this device holds");
}

std::array<uint32_t, 2> double_bits(double v) {
    const auto u = std::bit_cast<uint64_t>(v);
    return {static_cast<uint32_t>(u), static_cast<uint32_t>(u >> 32)};
}

// One thresh_li pass: the four partial values summed (MODE 1) or combined
// (MODE 0: min, max, -, count) over the workgroups.
std::array<double, 4> li_pass(const Array& image, uint32_t mode, double lo, double t) {
    detail::OpServices& ctx = ops::services(image);
    Dispatcher d(ctx, ops::variant(ops::Shader::thresh_li, image.dtype()), linear_local);
    const uint32_t local = d.local()[0] * d.local()[1] * d.local()[2];
    if (!std::has_single_bit(local))
        throw Unsupported("threshold_li: a tuned workgroup size of " + std::to_string(local) +
                          " invocations; thresh_li's tree reduction needs a power of two");
    const uint64_t n = image.size();
    const auto groups = static_cast<uint32_t>(std::clamp<uint64_t>((n + local * 8 - 1) / (local * 8), 1, 1024));
    Array partials = Array::empty(image.context(), Shape{size_t(groups) * 4}, DType::float64);
    LiPush push;
    push.n = static_cast<uint32_t>(n);
    push.min_bits = double_bits(lo);
    push.t_bits = double_bits(t);
    d.read(image).write(partials).spec(mode).push(push).groups(groups).record();
    const auto p = partials.to_vector<double>();
    std::array<double, 4> r{p[0], p[1], p[2], p[3]};
    for (uint32_t g = 1; g < groups; ++g) {
        const double* q = &p[size_t(g) * 4];
        if (mode == 0) {
            r[0] = std::min(r[0], q[0]), r[1] = std::max(r[1], q[1]);
        } else {
            r[0] += q[0], r[1] += q[1], r[3] += q[3];
        }
        r[2] += q[2];
    }
    return r;
}

using Range = ops::FiniteRange;
using ops::finite_range;

// skimage.exposure.histogram(image, nbins) from the GPU.
cpu::ThresholdHistogram gpu_histogram(const Array& image, int nbins, const char* op) {
    check_image(image, op);
    if (nbins < 1) throw InvalidArgument(std::string(op) + ": nbins = " + std::to_string(nbins) + "; it must be >= 1");
    cpu::ThresholdHistogram h;
    const bool is_float = dtype_is_float(image.dtype());
    Range r;
    if (!is_float) {
        r = finite_range(image);
        const double span = r.max - r.min + 1;
        if (span > double(1 << 24))
            throw Unsupported(std::string(op) + ": an integer image spanning " + std::to_string(span) +
                              " values needs one bin per value; at most 2^24 are supported");
        if (span > 1) {
            // One integer per bin: kiln::histogram counts these directly.
            Histogram g = histogram(image, static_cast<int>(span), std::make_pair(r.min, r.max + 1));
            h.counts = g.host_counts();
            for (size_t i = 0; i < h.counts.size(); ++i) h.centers.push_back(r.min + double(i));
            return h;
        }
    } else {
        // NumPy's own range (float32 width for float32 images): no range given.
        Histogram g = histogram(image, nbins);
        h.counts = g.host_counts();
        size_t nonzero = 0;
        for (int64_t c : h.counts) nonzero += c != 0;
        if (nonzero > 1) {
            h.centers = cpu::bin_centers(g.edges, image.dtype() == DType::float32);
            return h;
        }
        r = finite_range(image);  // one value: which one, exactly
    }
    h.single = true;
    h.counts = {static_cast<int64_t>(r.count)};
    h.centers = {r.min};
    return h;
}

}  // namespace

ops::FiniteRange ops::finite_range(const Array& a) {
    check_image(a, "finite_range");
    const auto r = li_pass(a, 0, 0, 0);
    return {r[0], r[1], r[2]};
}

double threshold_otsu(const Array& image, int nbins) {
    return cpu::otsu_threshold(gpu_histogram(image, nbins, "threshold_otsu"));
}

double threshold_yen(const Array& image, int nbins) {
    return cpu::yen_threshold(gpu_histogram(image, nbins, "threshold_yen"));
}

double threshold_triangle(const Array& image, int nbins) {
    return cpu::triangle_threshold(gpu_histogram(image, nbins, "threshold_triangle"));
}

double threshold_li(const Array& image, double tolerance) {
    check_image(image, "threshold_li");
    const Range r = finite_range(image);
    if (r.count == 0) return std::numeric_limits<double>::quiet_NaN();
    if (r.min == r.max) return r.min;
    const bool f32 = image.dtype() == DType::float32;
    auto sums = [&](double t) { return li_pass(image, 1, r.min, t); };
    const auto all = sums(-1);
    const double t = cpu::li_iterate(
        {all[0], all[1]},
        [&](double at) {
            const auto s = sums(at);
            return cpu::LiSums{s[2], s[3]};
        },
        f32, !dtype_is_float(image.dtype()), tolerance);
    return f32 ? double(static_cast<float>(t) + static_cast<float>(r.min)) : t + r.min;
}

}  // namespace kiln

// The manifest entries (kiln/manifest.hpp).
namespace kiln {
namespace {

ArgSpec image_arg() { return {"image", ArgKind::array, "Input image file (any dtype, any rank)"}; }
ArgSpec nbins_arg() {
    ArgSpec a{"nbins", ArgKind::integer, "Histogram bins for float images (integer images: one per value)", "256"};
    a.min = 1, a.max = 1 << 24;
    return a;
}

const OpFamily threshold_family("threshold", {
    {"threshold_otsu", "Otsu's threshold as skimage.filters.threshold_otsu (same histogram, same value)",
     {image_arg(), nbins_arg()}, ResultKind::number, {}, {},
     [](const OpArgs& x) { return OpResult(threshold_otsu(x.array("image"), int(x.integer("nbins")))); }},
    {"threshold_yen", "Yen's threshold as skimage.filters.threshold_yen", {image_arg(), nbins_arg()},
     ResultKind::number, {}, {},
     [](const OpArgs& x) { return OpResult(threshold_yen(x.array("image"), int(x.integer("nbins")))); }},
    {"threshold_triangle", "Triangle threshold as skimage.filters.threshold_triangle", {image_arg(), nbins_arg()},
     ResultKind::number, {}, {},
     [](const OpArgs& x) { return OpResult(threshold_triangle(x.array("image"), int(x.integer("nbins")))); }},
    {"threshold_li", "Li's iterative minimum cross entropy threshold as skimage.filters.threshold_li",
     {image_arg(),
      {"tolerance", ArgKind::number,
       "Stop when the threshold moves by at most this; 0: 0.5 for integer images, the fixed point for float ones",
       "0"}},
     ResultKind::number, {}, {},
     [](const OpArgs& x) { return OpResult(threshold_li(x.array("image"), x.number("tolerance"))); }},
});

}  // namespace
}  // namespace kiln
