// scipy.signal.convolve2d on the GPU: a rank-one kernel as two 1-D passes
// in one dispatch, any other through the tiled 2-D kernel.
#include <cmath>
#include <deque>
#include <mutex>
#include <optional>

#include "host/op_rules.hpp"
#include "kiln/convolve.hpp"
#include "kiln/manifest.hpp"
#include "kiln/elementwise.hpp"
#include "kiln/fft.hpp"
#include "ops/convolve_pass.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::conv::ext_of;

Array as_dtype(const Array& a, DType t) {
    return a.dtype() == t ? a : cast(a, t);
}

// A value as the result dtype holds it (the CPU reference converts first).
double in_dtype(double v, DType t) {
    return t == DType::float64 ? v : static_cast<float>(v);
}

void require_2d(const Shape& s, const char* what) {
    if (s.ndim() != 2)
        throw InvalidArgument(std::string("convolve2d: the ") + what + " has shape " + s.str() +
                              "; a 2-D array is needed");
}

// Host copies of kernels read before. A kernel whose memory no command has
// used since it was read (its version unchanged, OpServices::version) still
// holds those values, so applying one kernel to many images reads it back
// once. Memory that the host writes in place (push on lavapipe) has no
// version: it is read again, which costs a memcpy there.
struct Memo {
    std::weak_ptr<detail::Storage> storage;
    const detail::Storage* key;
    uint64_t version;
    HostArray values;
};
std::mutex memo_mutex;
std::deque<Memo> memo;
constexpr size_t memo_entries = 16;

HostArray read_kernel(const Array& k) {
    detail::OpServices& ctx = ops::services(k);
    const std::shared_ptr<detail::Storage>& s = k.storage();
    if (const auto version = ctx.version(k)) {
        std::lock_guard lock(memo_mutex);
        for (const Memo& m : memo)
            if (m.key == s.get() && m.storage.lock() == s && m.version == *version && m.values.shape == k.shape() &&
                m.values.dtype == k.dtype())
                return m.values;
    }
    HostArray h = k.to_host();
    if (const auto version = ctx.version(k)) {
        std::lock_guard lock(memo_mutex);
        std::erase_if(memo, [&](const Memo& m) { return m.key == s.get() || m.storage.expired(); });
        memo.push_front({s, s.get(), *version, h});
        if (memo.size() > memo_entries) memo.pop_back();
    }
    return h;
}

struct RankOne {
    std::vector<double> u, v;  // kernel = u v^T: u down the rows, v along them
};

// With the largest |k| at (p, q): u = k[:, q], v = k[p, :] / k[p, q], accepted
// when u v^T reproduces every element to tol * max |k|.
std::optional<RankOne> rank_one(const std::vector<double>& k, size_t kh, size_t kw, DType t) {
    size_t pivot = 0;
    for (size_t i = 0; i < k.size(); ++i) {
        if (!std::isfinite(k[i])) return std::nullopt;
        if (std::abs(k[i]) > std::abs(k[pivot])) pivot = i;
    }
    const double top = std::abs(k[pivot]);
    if (top == 0) return std::nullopt;
    const size_t p = pivot / kw, q = pivot % kw;
    RankOne f;
    for (size_t j = 0; j < kh; ++j) f.u.push_back(k[j * kw + q]);
    for (size_t c = 0; c < kw; ++c) f.v.push_back(k[p * kw + c] / k[pivot]);
    const double tol = (t == DType::float64 ? 1e-14 : 1e-6) * top;
    for (size_t j = 0; j < kh; ++j)
        for (size_t c = 0; c < kw; ++c)
            if (!(std::abs(k[j * kw + c] - f.u[j] * f.v[c]) <= tol)) return std::nullopt;
    return f;
}

// From this many taps a general kernel with zero fill runs through FFTs:
// the direct kernel costs taps multiply-adds per output, the FFT path about
// a dozen memory passes over the padded image whatever the kernel. Set from
// kiln-bench W86 on an H100 (bench/results/2026-11-27-h100-w86-crossover),
// 2048^2 "same", ms direct / FFT: 27^2 0.201 / 0.217, 29^2 0.219 / 0.216,
// 31^2 0.241 / 0.216 (25^2, the threshold before, 0.164 / 0.216).
constexpr uint64_t fft_min_kernel_taps = 29 * 29;

bool fft_path(uint32_t kh, uint32_t kw, Boundary boundary, double fill, const std::vector<double>* values) {
    if (boundary != Boundary::fill || fill != 0 || uint64_t(kh) * kw < fft_min_kernel_taps) return false;
    // A NaN or Inf tap would spread over the whole output through the FFTs.
    if (values)
        for (double v : *values)
            if (!std::isfinite(v)) return false;
    return true;
}

Array convolve2d_impl(const Array& image, const Array* kdev, const HostArray* khost, ConvMode mode,
                      Boundary boundary, double fillvalue) {
    if (!image) throw InvalidArgument("convolve2d: the image is a null Array");
    if (kdev && !*kdev) throw InvalidArgument("convolve2d: the kernel is a null Array");
    if (khost && khost->shape.empty())
        throw InvalidArgument(
            "convolve2d: the kernel is empty; a 2-D array with at least one element is needed");
    require_2d(image.shape(), "image");
    const Shape kshape = kdev ? kdev->shape() : khost->shape;
    require_2d(kshape, "kernel");
    if (kdev) ops::check_same_context(image, *kdev, "convolve2d");
    const DType r = convolution_dtype(image.dtype(), kdev ? kdev->dtype() : khost->dtype);
    const Context ctx = image.context();
    const uint32_t h = static_cast<uint32_t>(image.shape()[0]),
                   w = static_cast<uint32_t>(image.shape()[1]);
    const uint32_t kh = static_cast<uint32_t>(kshape[0]), kw = static_cast<uint32_t>(kshape[1]);
    const ops::conv::Ext ext = ext_of(boundary);
    const double fill = in_dtype(fillvalue, r);

    auto host_values = [&](const HostArray& k) {
        std::vector<double> v(k.size());
        for (size_t i = 0; i < v.size(); ++i) v[i] = in_dtype(k.at(i), r);
        return v;
    };

    if (mode == ConvMode::valid) {
        const bool image_fits = h >= kh && w >= kw, kernel_fits = kh >= h && kw >= w;
        if (!image_fits && !kernel_fits)
            throw InvalidArgument(
                "convolve2d: in 'valid' mode one input must be at least as large as the other "
                "in every dimension; got image " +
                image.shape().str() + " and kernel " + kshape.str());
        if (!image_fits) {
            // SciPy swaps the roles: the kernel is the signal, the image the taps.
            ops::conv::General g;
            g.in =
                kdev ? as_dtype(*kdev, r) : ops::conv::upload_weights(ctx, host_values(*khost), r);
            g.kernel = as_dtype(image, r);
            g.H = kh, g.W = kw, g.KH = h, g.KW = w;
            g.OH = kh - h + 1, g.OW = kw - w + 1, g.oy = int(h) - 1, g.ox = int(w) - 1;
            g.out = Array::empty(ctx, Shape{g.OH, g.OW}, r);
            g.mode_y = g.mode_x = ext;
            g.cval = fill;
            ops::conv::record(g);
            return g.out;
        }
    }
    uint32_t oh = h + kh - 1, ow = w + kw - 1;
    int oy = 0, ox = 0;
    if (mode == ConvMode::same) oh = h, ow = w, oy = int(kh - 1) / 2, ox = int(kw - 1) / 2;
    if (mode == ConvMode::valid)
        oh = h - kh + 1, ow = w - kw + 1, oy = int(kh) - 1, ox = int(kw) - 1;
    const Array in = as_dtype(image, r);

    std::optional<std::vector<double>> values;
    if (khost)
        values = host_values(*khost);
    else if (!ops::services(ctx).capturing())
        values = host_values(read_kernel(*kdev));
    const std::optional<RankOne> f = values ? rank_one(*values, kh, kw, r) : std::nullopt;
    if (!f && fft_path(kh, kw, boundary, fill, values ? &*values : nullptr)) {
        const Array k = kdev ? as_dtype(*kdev, r) : ops::conv::upload_weights(ctx, *values, r).reshape(kshape);
        return fftconvolve(in, k, mode == ConvMode::full ? "full" : mode == ConvMode::same ? "same" : "valid");
    }
    const Array out = Array::empty(ctx, Shape{oh, ow}, r);
    if (f) {
        ops::conv::Separable s;
        s.in = in, s.out = out;
        s.H = h, s.W = w, s.OH = oh, s.OW = ow, s.oy = oy, s.ox = ox;
        s.y.host = f->u;
        s.x.host = f->v;
        s.mode_y = s.mode_x = ext;
        s.cval = fill;
        s.nd = false;
        ops::conv::record(s);
        return out;
    }
    ops::conv::General g;
    g.in = in, g.out = out;
    // Host values go up afresh rather than binding the caller's kernel, so
    // its memo entry stays valid.
    g.kernel = values ? ops::conv::upload_weights(ctx, *values, r) : as_dtype(*kdev, r);
    g.H = h, g.W = w, g.OH = oh, g.OW = ow, g.KH = kh, g.KW = kw, g.oy = oy, g.ox = ox;
    g.mode_y = g.mode_x = ext;
    g.cval = fill;
    ops::conv::record(g);
    return out;
}

}  // namespace

Array convolve2d(const Array& image, const Array& kernel, ConvMode mode, Boundary boundary,
                 double fillvalue) {
    return convolve2d_impl(image, &kernel, nullptr, mode, boundary, fillvalue);
}

Array convolve2d(const Array& image, const HostArray& kernel, ConvMode mode, Boundary boundary,
                 double fillvalue) {
    return convolve2d_impl(image, nullptr, &kernel, mode, boundary, fillvalue);
}

}  // namespace kiln

// The manifest entry (kiln/manifest.hpp).
namespace kiln {
namespace {

const OpFamily convolve2d_family("convolve", {
    {"convolve2d",
     "2-D convolution as scipy.signal.convolve2d (the kernel is flipped); float32 out, float64 when an input is float64",
     {{"image", ArgKind::array, "Image file (.npy, .fits, .png), 2-D"},
      {"kernel", ArgKind::array, "Kernel file, 2-D"},
      {"mode", ArgKind::choice, "Output extent: full (H+KH-1 x W+KW-1), same (H x W) or valid", "full", false,
       conv_mode_names()},
      {"boundary", ArgKind::choice, "Outside the image: fill (with --fillvalue), wrap or symm (mirror)", "fill", false,
       boundary_names()},
      {"fillvalue", ArgKind::number, "Value outside the image with --boundary fill", "0"}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return convolve2d(x.array("image"), x.array("kernel"), parse_conv_mode(x.text("mode")),
                           parse_boundary(x.text("boundary")), x.number("fillvalue"));
     }},
});

}  // namespace
}  // namespace kiln
