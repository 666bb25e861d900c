#include "kiln/reference/integrate.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

using EM = IntegrateParams::ErrorModel;

// One pixel's pre-processed terms; an excluded pixel's are all zero.
struct Terms {
    double signal, variance, norm, valid;
};

void check_size(size_t got, size_t pixels, const char* what) {
    if (got != pixels)
        throw InvalidArgument(std::string("integrate: ") + what + " has " + std::to_string(got) +
                              " values; the matrix has " + std::to_string(pixels) +
                              " pixels and every per-pixel input must match");
}

// Converting optional arrays once keeps the dtype switch out of the pixel loop.
std::vector<double> as_doubles(const HostArray* a) {
    if (!a) return {};
    return visit_dtype(a->dtype, [&](auto t) {
        using T = decltype(t);
        const auto v = a->as<T>();
        return std::vector<double>(v.begin(), v.end());
    });
}

// Inputs of pre-processing with the optional arrays converted to double once;
// terms(i) evaluates one pixel on demand, so integration gathers only the
// raw inputs (4 bytes a pixel for a uint32 frame) instead of a 32-byte
// record per pixel of a precomputed image.
struct PixelInputs {
    std::vector<double> dark, flat, given_var;
    const IntegrateParams* p = nullptr;
};

PixelInputs pixel_inputs(const HostArray& frame, size_t pixels, const IntegrateParams& p) {
    check_size(frame.size(), pixels, "the frame");
    if (p.dark) check_size(p.dark->size(), pixels, "dark");
    if (p.flat) check_size(p.flat->size(), pixels, "flat");
    if (p.solid_angle) check_size(p.solid_angle->size(), pixels, "solid_angle");
    if (p.polarization) check_size(p.polarization->size(), pixels, "polarization");
    if (p.mask) check_size(p.mask->size(), pixels, "mask");
    if (p.error_model == EM::variance) {
        if (!p.variance)
            throw InvalidArgument(
                "integrate: error model 'variance' needs a variance array; "
                "give one or use the poisson or none model");
        check_size(p.variance->size(), pixels, "variance");
    }
    return {as_doubles(p.dark), as_doubles(p.flat),
            as_doubles(p.error_model == EM::variance ? p.variance : nullptr), &p};
}

template <typename T>
Terms terms(const T* raw_values, const PixelInputs& in, size_t i) {
    const IntegrateParams& p = *in.p;
    const double raw = double(raw_values[i]);
    const double dark = p.dark ? in.dark[i] : 0.0;
    double norm = 1.0;
    if (p.flat) norm *= in.flat[i];
    if (p.solid_angle) norm *= (*p.solid_angle)[i];
    if (p.polarization) norm *= (*p.polarization)[i];
    double var = 0.0;
    if (p.error_model == EM::poisson) var = std::max(raw, 1.0) + (p.dark_variance ? dark : 0.0);
    if (p.error_model == EM::variance) var = in.given_var[i];
    const double signal = raw - dark;

    bool ok = !(p.mask && (*p.mask)[i] != 0);
    if (p.dummy && std::abs(raw - *p.dummy) <= p.delta_dummy) ok = false;
    if (!std::isfinite(signal) || !std::isfinite(norm) || !std::isfinite(var) || norm == 0) ok = false;
    return ok ? Terms{signal, var, norm, 1.0} : Terms{0, 0, 0, 0};
}

// Calls f(pixel_terms) with pixel_terms(i) -> Terms for the frame's dtype.
template <typename F>
decltype(auto) with_terms(const HostArray& frame, const PixelInputs& in, F&& f) {
    return visit_dtype(frame.dtype, [&](auto t) {
        using T = decltype(t);
        const T* raw = frame.as<T>().data();
        return f([raw, &in](size_t i) { return terms(raw, in, i); });
    });
}

// Sums of one bin over the entries selected by keep(e).
struct Sums {
    double signal = 0, variance = 0, norm = 0, norm_sq = 0, count = 0;
};

// Sums of one bin over the entries selected by keep(e). For the azimuthal
// model, variance is the weighted sum of squared deviations of s / n from
// the bin's mean (weights c n), in a second pass once the mean is known;
// pyFAI's online update gives the same sum up to rounding.
template <typename Px, typename Keep>
Sums bin_sums(const Csr& csr, const Px& px, size_t bin, Keep keep, EM model) {
    Sums s;
    for (int32_t e = csr.indptr[bin]; e < csr.indptr[bin + 1]; ++e) {
        if (!keep(size_t(e))) continue;
        const Terms t = px(size_t(csr.indices[size_t(e)]));
        const double c = csr.data[size_t(e)];
        s.signal += c * t.signal;
        s.variance += c * c * t.variance;
        s.norm += c * t.norm;
        s.norm_sq += c * c * t.norm * t.norm;
        s.count += c * t.valid;
    }
    if (model != EM::azimuthal || s.norm == 0) return s;
    const double mean = s.signal / s.norm;
    for (int32_t e = csr.indptr[bin]; e < csr.indptr[bin + 1]; ++e) {
        if (!keep(size_t(e))) continue;
        const Terms t = px(size_t(csr.indices[size_t(e)]));
        if (t.valid == 0) continue;
        const double d = t.signal / t.norm - mean;
        s.variance += double(csr.data[size_t(e)]) * t.norm * d * d;
    }
    return s;
}

// Chauvenet's criterion for n samples: the deviation, in standard
// deviations, beyond which fewer than half a sample is expected.
double chauvenet(double n) { return std::sqrt(2.0 * std::log(n / std::sqrt(2.0 * std::numbers::pi))); }

// Sigma-clips one bin, clearing kept[e] for each dropped entry.
template <typename Px>
Sums clip_bin(const Csr& csr, const Px& px, size_t bin, std::vector<uint8_t>& kept, double kappa,
              int max_iter, ClipThreshold threshold, EM model) {
    auto keep = [&](size_t e) { return kept[e] != 0; };
    Sums s = bin_sums(csr, px, bin, keep, model);
    for (int it = 0; it < max_iter && s.norm != 0; ++it) {
        const double mean = s.signal / s.norm;
        const double factor =
            threshold == ClipThreshold::chauvenet ? std::max(kappa, chauvenet(std::max(s.count, 3.0))) : kappa;
        const double cut = factor * std::sqrt(s.variance / s.norm);
        bool dropped = false;
        for (int32_t e = csr.indptr[bin]; e < csr.indptr[bin + 1]; ++e) {
            if (!kept[size_t(e)]) continue;
            const Terms t = px(size_t(csr.indices[size_t(e)]));
            if (t.valid != 0 && std::abs(t.signal / t.norm - mean) > cut) {
                kept[size_t(e)] = 0;
                dropped = true;
            }
        }
        if (!dropped) break;
        s = bin_sums(csr, px, bin, keep, model);
    }
    return s;
}

void store(Profile1d& out, size_t bin, const Sums& s, double empty) {
    out.sum_signal[bin] = s.signal;
    out.sum_variance[bin] = s.variance;
    out.sum_normalization[bin] = s.norm;
    out.sum_normalization_sq[bin] = s.norm_sq;
    out.count[bin] = s.count;
    if (s.norm != 0) {
        out.intensity[bin] = s.signal / s.norm;
        out.sem[bin] = std::sqrt(s.variance) / s.norm;
        out.std[bin] = std::sqrt(s.variance / s.norm_sq);
    } else {
        out.intensity[bin] = out.sem[bin] = out.std[bin] = empty;
    }
    out.sigma[bin] = out.sem[bin];
}

Profile1d sized_profile(const Csr& csr) {
    bool ok = csr.indptr.size() == csr.bins + 1 && csr.bin_centers.size() == csr.bins &&
              csr.indices.size() == csr.data.size() && csr.indptr.front() == 0 &&
              size_t(csr.indptr.back()) == csr.indices.size();
    for (size_t k = 0; ok && k < csr.bins; ++k) ok = csr.indptr[k] <= csr.indptr[k + 1];
    for (size_t e = 0; ok && e < csr.indices.size(); ++e)
        ok = csr.indices[e] >= 0 && size_t(csr.indices[e]) < csr.pixels;
    if (!ok)
        throw InvalidArgument(
            "integrate: inconsistent CSR matrix; indptr must hold bins + 1 non-decreasing offsets "
            "from 0 to the entry count, indices must lie in [0, pixels), one centre per bin");
    Profile1d out;
    out.radial = csr.bin_centers;
    for (auto* v : {&out.intensity, &out.sigma, &out.sem, &out.std, &out.sum_signal, &out.sum_variance,
                    &out.sum_normalization, &out.sum_normalization_sq, &out.count})
        v->assign(csr.bins, 0.0);
    return out;
}

}  // namespace

Preprocessed preprocess(const HostArray& frame, size_t pixels, const IntegrateParams& p) {
    const PixelInputs in = pixel_inputs(frame, pixels, p);
    Preprocessed pp;
    pp.signal.resize(pixels);
    pp.variance.resize(pixels);
    pp.normalization.resize(pixels);
    pp.valid.resize(pixels);
    with_terms(frame, in, [&](auto px) {
        for (size_t i = 0; i < pixels; ++i) {
            const Terms t = px(i);
            pp.signal[i] = t.signal;
            pp.variance[i] = t.variance;
            pp.normalization[i] = t.norm;
            pp.valid[i] = t.valid != 0;
        }
    });
    return pp;
}

Profile1d integrate(const Csr& csr, const HostArray& frame, const IntegrateParams& p) {
    Profile1d out = sized_profile(csr);
    const PixelInputs in = pixel_inputs(frame, csr.pixels, p);
    with_terms(frame, in, [&](auto px) {
        for (size_t bin = 0; bin < csr.bins; ++bin)
            store(out, bin, bin_sums(csr, px, bin, [](size_t) { return true; }, p.error_model), p.empty);
    });
    return out;
}

Profile1d sigma_clip(const Csr& csr, const HostArray& frame, const IntegrateParams& p, double kappa,
                     int max_iter, ClipThreshold threshold) {
    if (p.error_model == EM::none)
        throw InvalidArgument(
            "sigma_clip: the 'none' error model gives no standard deviation "
            "to clip with; use poisson, variance or azimuthal");
    const bool fixed = threshold == ClipThreshold::fixed;
    if (!std::isfinite(kappa) || kappa < 0 || (fixed && kappa == 0) || max_iter < 0)
        throw InvalidArgument("sigma_clip: kappa must be finite and >= 0 (> 0 with a fixed threshold) and "
                              "max_iter >= 0 (got kappa " + std::to_string(kappa) + ", max_iter " +
                              std::to_string(max_iter) + ")");
    Profile1d out = sized_profile(csr);
    const PixelInputs in = pixel_inputs(frame, csr.pixels, p);
    std::vector<uint8_t> kept(csr.nnz(), 1);
    with_terms(frame, in, [&](auto px) {
        for (size_t bin = 0; bin < csr.bins; ++bin)
            store(out, bin, clip_bin(csr, px, bin, kept, kappa, max_iter, threshold, p.error_model), p.empty);
    });
    return out;
}

}  // namespace kiln::cpu
