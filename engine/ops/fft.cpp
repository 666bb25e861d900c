// numpy.fft's transforms over FFT plans (ops/fft_plan.hpp). Complex
// transforms and real forward ones of the input's own lengths, unscaled (or
// an inverse's 1/n, VkFFT's normalize), read the input and write the output
// directly. Otherwise the input is copied into the plan's work buffer
// (padded or cropped to the transform's lengths, real rows spaced as VkFFT's
// in-place real transforms want), transformed in place, and copied out
// scaled for the norm.
#include "kiln/fft.hpp"

#include <cmath>

#include "kiln/error.hpp"
#include "ops/fft_copy.hpp"
#include "ops/fft_plan.hpp"
#include "ops/kernel.hpp"

namespace kiln {

FftNorm parse_fft_norm(std::string_view name) {
    if (name == "backward") return FftNorm::backward;
    if (name == "ortho") return FftNorm::ortho;
    if (name == "forward") return FftNorm::forward;
    throw InvalidArgument("unknown FFT norm '" + std::string(name) + "'; accepted: backward, ortho, forward");
}

namespace {

using ops::FftBox;

enum class Kind { c2c, r2c, c2r };

// The transform's lengths (C order over the transformed axes) and the
// boxes on either side of the work buffer.
struct Layout {
    ops::FftGeometry g;
    std::vector<uint64_t> n;
    FftBox work_in, work_out;  // the work buffer as the input fills it, as the output reads it
    Shape out_shape;
    double count = 1;  // elements the transform sums over (the norm's n)
};

DType checked_dtype(const Array& a, Kind kind, const char* op) {
    if (!a.valid()) throw InvalidArgument(std::string(op) + ": the array is null");
    const DType t = a.dtype();
    if (!dtype_is_float(t) && !dtype_is_complex(t))
        throw InvalidArgument(std::string(op) + " takes float32, float64, complex64 or complex128 arrays, not " +
                              std::string(dtype_name(t)) + "; cast integer arrays with astype first");
    if (kind == Kind::r2c && dtype_is_complex(t))
        throw InvalidArgument(std::string(op) + " takes real (float32, float64) arrays, not " +
                              std::string(dtype_name(t)) + "; use the complex transform (fft, fft2, fftn)");
    return t;
}

Layout layout(const Array& a, size_t k, const std::vector<int64_t>& s, Kind kind, const char* op) {
    const size_t nd = a.ndim();
    if (k == 0 || k > nd)
        throw InvalidArgument(std::string(op) + ": transforms " + std::to_string(k) + " axes of a " +
                              std::to_string(nd) + "-D array; it needs at least that many dimensions");
    if (!s.empty() && s.size() != k)
        throw InvalidArgument(std::string(op) + ": s has " + std::to_string(s.size()) + " lengths for " +
                              std::to_string(k) + " transformed axes");
    Layout l;
    for (size_t i = 0; i < k; ++i) {
        const uint64_t in = a.shape()[nd - k + i];
        int64_t v = s.empty() ? -1 : s[i];
        if (v <= 0) v = (kind == Kind::c2r && i == k - 1) ? int64_t(2 * (in - 1)) : int64_t(in);
        if (v <= 0)
            throw InvalidArgument(std::string(op) + ": an input of length 1 along the last axis gives an output "
                                                    "of length 0; give n (or s) for the output's length");
        l.n.push_back(uint64_t(v));
        l.count *= double(v);
    }
    l.g.dims = uint32_t(k);
    for (size_t i = 0; i < k; ++i) l.g.sizes[i] = l.n[k - 1 - i];
    for (size_t i = 0; i < nd - k; ++i) l.g.batches *= a.shape()[i];
    l.g.real = kind != Kind::c2c;
    l.g.f64 = dtype_real_part(a.dtype()) == DType::float64;

    // The work buffer's logical box: the input's leading axes, the lengths.
    std::vector<size_t> dims(nd);
    for (size_t i = 0; i < nd; ++i) dims[i] = a.shape()[i];
    for (size_t i = 0; i < k; ++i) dims[nd - k + i] = l.n[i];
    FftBox full;
    for (size_t i = 0; i < nd; ++i) full.extent[3 - nd + i] = dims[i];
    const uint64_t row = l.g.complex_row();
    FftBox spectrum = full, reals = full;
    spectrum.extent[2] = row;
    spectrum.complex = true;
    reals.pitch = 2 * row;
    if (kind == Kind::c2c) {
        full.complex = true;
        l.work_in = l.work_out = full;
    } else if (kind == Kind::r2c) {
        l.work_in = reals;
        l.work_out = spectrum;
    } else {
        l.work_in = spectrum;
        l.work_out = reals;
    }
    if (kind == Kind::r2c) dims.back() = row;
    l.out_shape = Shape::of(nd, dims.data());
    return l;
}

double norm_scale(FftNorm norm, bool inverse, double count) {
    if (norm == FftNorm::ortho) return 1.0 / std::sqrt(count);
    if ((norm == FftNorm::backward) == inverse) return 1.0 / count;
    return 1.0;
}

Array transform(const Array& a, size_t k, const std::vector<int64_t>& s, Kind kind, bool inverse, FftNorm norm,
                const char* op) {
    const DType t = checked_dtype(a, kind, op);
    const bool f64 = dtype_real_part(t) == DType::float64;
    const Layout l = layout(a, k, s, kind, op);
    const Context ctx = a.context();
    detail::OpServices& services = ops::services(a);
    auto lock = services.lock();  // the plan's work buffer: filled, transformed, emptied in one sequence
    std::shared_ptr<ops::FftPlan> plan = ops::fft_plan(ctx, l.g);
    const DType out_t = kind == Kind::c2r ? (f64 ? DType::float64 : DType::float32)
                                          : (f64 ? DType::complex128 : DType::complex64);
    Array out = Array::empty(ctx, l.out_shape, out_t);
    // Straight from the input into the output where the transform needs no
    // padding, cropping, conversion or scaling but VkFFT's own 1/n.
    const double scale = norm_scale(norm, inverse, l.count);
    bool same_lengths = true;
    for (size_t i = 0; i < k; ++i) same_lengths = same_lengths && l.n[i] == a.shape()[a.ndim() - k + i];
    const bool normalize = inverse && scale != 1.0 && norm == FftNorm::backward;
    const bool direct_kind = (kind == Kind::c2c && dtype_is_complex(t)) || kind == Kind::r2c;
    if (direct_kind && same_lengths && (scale == 1.0 || normalize)) {
        services.place(a);
        services.place(out);
        if (plan->record_direct(services, a, out, inverse, normalize)) return out;
    }
    const Array work = plan->work(ctx);
    ops::complex_copy(a, ops::box_of(a), work, l.work_in, 1.0);
    plan->record(services, inverse);
    ops::complex_copy(work, l.work_out, out, ops::box_of(out), scale);
    return out;
}

std::vector<int64_t> one(int64_t n) { return n > 0 ? std::vector<int64_t>{n} : std::vector<int64_t>{}; }
size_t axes_of(const Array& a, const std::vector<int64_t>& s) { return s.empty() ? a.ndim() : s.size(); }

} // namespace

Array fft(const Array& a, int64_t n, FftNorm norm) { return transform(a, 1, one(n), Kind::c2c, false, norm, "fft"); }
Array ifft(const Array& a, int64_t n, FftNorm norm) { return transform(a, 1, one(n), Kind::c2c, true, norm, "ifft"); }
Array rfft(const Array& a, int64_t n, FftNorm norm) { return transform(a, 1, one(n), Kind::r2c, false, norm, "rfft"); }
Array irfft(const Array& a, int64_t n, FftNorm norm) {
    return transform(a, 1, one(n), Kind::c2r, true, norm, "irfft");
}
Array fft2(const Array& a, const std::vector<int64_t>& s, FftNorm norm) {
    return transform(a, 2, s, Kind::c2c, false, norm, "fft2");
}
Array ifft2(const Array& a, const std::vector<int64_t>& s, FftNorm norm) {
    return transform(a, 2, s, Kind::c2c, true, norm, "ifft2");
}
Array rfft2(const Array& a, const std::vector<int64_t>& s, FftNorm norm) {
    return transform(a, 2, s, Kind::r2c, false, norm, "rfft2");
}
Array irfft2(const Array& a, const std::vector<int64_t>& s, FftNorm norm) {
    return transform(a, 2, s, Kind::c2r, true, norm, "irfft2");
}
Array fftn(const Array& a, const std::vector<int64_t>& s, FftNorm norm) {
    return transform(a, axes_of(a, s), s, Kind::c2c, false, norm, "fftn");
}
Array ifftn(const Array& a, const std::vector<int64_t>& s, FftNorm norm) {
    return transform(a, axes_of(a, s), s, Kind::c2c, true, norm, "ifftn");
}
Array rfftn(const Array& a, const std::vector<int64_t>& s, FftNorm norm) {
    return transform(a, axes_of(a, s), s, Kind::r2c, false, norm, "rfftn");
}
Array irfftn(const Array& a, const std::vector<int64_t>& s, FftNorm norm) {
    return transform(a, axes_of(a, s), s, Kind::c2r, true, norm, "irfftn");
}

namespace {
Array part(const Array& a, ops::PartOf p, const char* op) {
    if (!a.valid()) throw InvalidArgument(std::string(op) + ": the array is null");
    if (!dtype_is_float(a.dtype()) && !dtype_is_complex(a.dtype()))
        throw InvalidArgument(std::string(op) + " takes complex64, complex128, float32 or float64 arrays, not " +
                              std::string(dtype_name(a.dtype())));
    Array out = Array::empty(a.context(), a.shape(), dtype_real_part(a.dtype()));
    // A float array is a complex one with no imaginary part.
    ops::complex_copy(a, ops::box_of(a), out, ops::box_of(out), 1.0, {0, 0, 0},
                      p == ops::PartOf::imag && !dtype_is_complex(a.dtype()) ? ops::PartOf::imag : p);
    return out;
}
} // namespace

Array real(const Array& a) { return part(a, ops::PartOf::value, "real"); }
Array imag(const Array& a) { return part(a, ops::PartOf::imag, "imag"); }
Array abs(const Array& a) { return part(a, ops::PartOf::abs, "abs"); }

} // namespace kiln
