// The azimuthal integrator's quantile filter per bin (medfilt1d, pyFAI's
// medfilt1d_ng) and the separation of frames into Bragg and amorphous parts
// (separate), with their kernels azim_medfilt and azim_expand.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kiln/azimuthal.hpp"
#include "kiln/reference/medfilt.hpp"
#include "ops/azimuthal_state.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace detail {

/// Device data of medfilt1d and separate, made on first use.
struct AzimuthalMedfiltData {
    int scale = 0;          // K of the fixed-point weights
    uint32_t idx_bits = 0;  // bits of a position in the longest row
    // separate(): per pixel the bin index (top bit: masked) and fraction of
    // its interpolation, and flat * solid angle * polarization.
    Array index, frac, norm;
    bool has_norm = false;
};

} // namespace detail

namespace {

using EM = IntegrateParams::ErrorModel;
constexpr std::array<uint32_t, 3> row_local{256, 1, 1};
constexpr std::array<uint32_t, 3> pixel_local{256, 1, 1};

// std430 layout of azim_medfilt's push constants.
struct MedfiltPush {
    uint32_t pixels, bins, idx_bits;
    int32_t scale;
    uint32_t dummy[4] = {0, 0, 0, 0};
    uint32_t q_lo, q_hi;
    float empty;
};
static_assert(sizeof(MedfiltPush) == 44);

struct ExpandPush {
    uint32_t pixels, total, bins, profiles;
};
static_assert(sizeof(ExpandPush) == 16);

detail::AzimuthalMedfiltData& medfilt_data(const AzimuthalIntegrator& ai, detail::AzimuthalState& m) {
    if (!m.medfilt) {
        auto d = std::make_shared<detail::AzimuthalMedfiltData>();
        const auto [cmax, nmax] = cpu::medfilt_weight_range(*m.csr, ai.cpu_params());
        d->scale = cpu::medfilt_scale_exponent(cmax, nmax);
        size_t longest = 0;
        for (size_t k = 0; k < m.bins; ++k)
            longest = std::max<size_t>(longest, size_t(m.csr->indptr[k + 1] - m.csr->indptr[k]));
        while ((size_t(1) << d->idx_bits) < longest) ++d->idx_bits;
        m.medfilt = d;
    }
    return *m.medfilt;
}

// The interpolation of every pixel, made once (separate's first call).
void expansion(const AzimuthalIntegrator& ai, detail::AzimuthalState& m, detail::AzimuthalMedfiltData& d) {
    if (d.index) return;
    const Geometry& g = m.geometry;
    if (g.rows * g.cols != m.pixels)
        throw InvalidArgument("AzimuthalIntegrator::separate needs each pixel's radial position, from the geometry; "
                              "this integrator was given a matrix without a geometry of its " +
                              std::to_string(m.pixels) + " pixels");
    validate_geometry(g, radial_needs_wavelength(m.csr->unit));
    const std::vector<double> radial = radial_centers(g, m.csr->unit);
    const std::vector<double>& xp = m.csr->bin_centers;
    const size_t last = xp.size() - 1;
    std::vector<uint32_t> index(m.pixels);
    std::vector<float> frac(m.pixels, 0.0f);
    for (size_t i = 0; i < m.pixels; ++i) {
        const double x = radial[i];
        uint32_t j = 0;
        if (std::isnan(x)) {
            frac[i] = NAN;
        } else if (x >= xp[last]) {
            j = uint32_t(last);
        } else if (x > xp[0]) {
            j = uint32_t(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin() - 1);  // xp[j] <= x < xp[j + 1]
            frac[i] = float((x - xp[j]) / (xp[j + 1] - xp[j]));
        }
        index[i] = j | (m.has_mask && m.mask[i] ? 0x80000000u : 0u);
    }
    d.index = Array::from(*m.ctx, Shape{m.pixels}, index);
    d.frac = Array::from(*m.ctx, Shape{m.pixels}, frac);
    const IntegrateParams p = ai.cpu_params();
    d.has_norm = p.flat || p.solid_angle || p.polarization;
    if (d.has_norm) {
        // cpu::separate's normalization: that of integration, masked pixels included.
        std::vector<float> norm(m.pixels);
        for (size_t i = 0; i < m.pixels; ++i) {
            double n = 1.0;
            if (p.flat) n *= p.flat->at(i);
            if (p.solid_angle) n *= (*p.solid_angle)[i];
            if (p.polarization) n *= (*p.polarization)[i];
            norm[i] = float(n);
        }
        d.norm = Array::from(*m.ctx, Shape{m.pixels}, norm);
    }
}

} // namespace

AzimuthalResult AzimuthalIntegrator::medfilt1d(const Array& frames, double q_lo, double q_hi) const {
    detail::AzimuthalState& m = *impl_;
    if (!(q_lo >= 0 && q_lo <= q_hi && q_hi <= 1))
        throw InvalidArgument("medfilt1d: quantiles q_lo " + std::to_string(q_lo) + " and q_hi " +
                              std::to_string(q_hi) + "; they must satisfy 0 <= q_lo <= q_hi <= 1 (0.5 and 0.5: "
                              "the median)");
    if (m.error_model == EM::azimuthal)
        throw InvalidArgument("medfilt1d: the azimuthal error model is not supported here; use poisson, variance "
                              "or none (the spread of the kept pixels is not a variance of the quantile mean)");
    const size_t n = detail::frame_count(m, frames, "medfilt1d");
    const detail::AzimuthalMedfiltData& data = medfilt_data(*this, m);
    AzimuthalResult r = detail::new_result(m, n);
    MedfiltPush pc{uint32_t(m.pixels), uint32_t(m.bins), data.idx_bits, int32_t(data.scale)};
    pc.q_lo = cpu::medfilt_fixed_quantile(q_lo);
    pc.q_hi = cpu::medfilt_fixed_quantile(q_hi);
    pc.empty = float(m.empty);
    std::optional<std::array<uint32_t, 4>> dummy;
    if (m.dummy) dummy = dummy_bounds(frames.dtype(), *m.dummy, m.delta_dummy);
    if (dummy) std::memcpy(pc.dummy, dummy->data(), 16);

    const ops::KernelId kernel =
        ops::variant(ops::Shader::azim_medfilt, frames.dtype(), m.f64 ? DType::float64 : DType::float32);
    ops::Dispatcher d(ops::services(*m.ctx), kernel, row_local);
    detail::bind_terms(m, d, frames, r, dummy.has_value());
    d.push(pc).groups(detail::bins_grid(m), uint32_t(n)).record();
    return r;
}

AzimuthalSeparation AzimuthalIntegrator::separate(const Array& frames, double q_lo, double q_hi,
                                                  bool restore_mask) const {
    return separate(frames, medfilt1d(frames, q_lo, q_hi), restore_mask);
}

AzimuthalSeparation AzimuthalIntegrator::separate(const Array& frames, const AzimuthalResult& background,
                                                  bool restore_mask) const {
    detail::AzimuthalState& m = *impl_;
    if (m.csr->azimuth_bins != 0)
        throw InvalidArgument("separate: this integrator makes a 2-D cake (" + std::to_string(m.csr->azimuth_bins) +
                              " azimuth bins); separate expands a 1-D profile, so set azimuth_bins to 0");
    const size_t n = detail::frame_count(m, frames, "separate");
    const Array& profile = background.intensity;
    if (!profile || profile.dtype() != DType::float32 || profile.size() % m.bins != 0 ||
        (profile.size() / m.bins != 1 && profile.size() / m.bins != n))
        throw InvalidArgument("AzimuthalIntegrator::separate: the background must be a result of this integrator "
                              "(float32 intensity of " + std::to_string(m.bins) + " bins) for one frame or for each "
                              "of the " + std::to_string(n) + " frames");
    if (&ops::services(profile) != &ops::services(*m.ctx))
        throw InvalidArgument("AzimuthalIntegrator::separate: the background belongs to another context");
    detail::AzimuthalMedfiltData& data = medfilt_data(*this, m);
    expansion(*this, m, data);

    AzimuthalSeparation out;
    out.background = background;
    out.bragg = Array::empty(*m.ctx, frames.shape(), DType::float32);
    out.amorphous = Array::empty(*m.ctx, frames.shape(), DType::float32);
    const uint64_t total = uint64_t(n) * m.pixels;
    ExpandPush pc{uint32_t(m.pixels), uint32_t(total), uint32_t(m.bins), uint32_t(profile.size() / m.bins)};
    ops::Dispatcher d(ops::services(*m.ctx), ops::variant(ops::Shader::azim_expand, frames.dtype()), pixel_local);
    d.read(frames).read(profile).read(data.index).read(data.frac);
    d.read(data.has_norm ? data.norm : data.frac).read(m.dark ? m.dark_f : data.frac);
    d.write(out.bragg).write(out.amorphous);
    d.spec(data.has_norm ? 1 : 0).spec(m.dark ? 1 : 0).spec(restore_mask ? 1 : 0);
    d.push(pc).stride_grid(total).record();
    return out;
}

} // namespace kiln
