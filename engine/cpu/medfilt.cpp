#include "kiln/reference/medfilt.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "kiln/error.hpp"
#include "kiln/reference/integrate.hpp"

namespace kiln::cpu {
namespace {

// A positive finite float as M * 2^e with an integer mantissa M < 2^24.
void decompose(float f, uint32_t& mantissa, int& exponent) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const uint32_t biased = (bits >> 23) & 0xffu;
    mantissa = bits & 0x7fffffu;
    if (biased != 0) {
        mantissa |= 0x800000u;
        exponent = int(biased) - 150;
    } else {
        exponent = -149;
    }
}

// One entry of a bin taking part in the quantile selection.
struct Entry {
    uint32_t key, index, weight;
    double c, signal, variance, norm;
};

void check_inputs(const Csr& csr, const HostArray& frame, const IntegrateParams& p, const char* op) {
    const auto size_error = [&](const char* what, size_t got) {
        throw InvalidArgument(std::string(op) + ": " + what + " has " + std::to_string(got) +
                              " values; the matrix has " + std::to_string(csr.pixels) +
                              " pixels and every per-pixel input must match");
    };
    if (frame.size() != csr.pixels) size_error("the frame", frame.size());
    if (p.mask && p.mask->size() != csr.pixels) size_error("mask", p.mask->size());
    if (p.flat && p.flat->size() != csr.pixels) size_error("flat", p.flat->size());
    if (p.solid_angle && p.solid_angle->size() != csr.pixels) size_error("solid_angle", p.solid_angle->size());
    if (p.polarization && p.polarization->size() != csr.pixels) size_error("polarization", p.polarization->size());
    if (p.dark && p.dark->size() != csr.pixels) size_error("dark", p.dark->size());
}

// flat * solid angle * polarization of pixel i in double, 1 without any.
double pixel_norm(const IntegrateParams& p, size_t i) {
    double n = 1.0;
    if (p.flat) n *= p.flat->at(i);
    if (p.solid_angle) n *= (*p.solid_angle)[i];
    if (p.polarization) n *= (*p.polarization)[i];
    return n;
}

}  // namespace

int medfilt_scale_exponent(float max_weight, float max_norm) {
    if (!(max_weight > 0) || !(max_norm > 0) || !std::isfinite(max_weight) || !std::isfinite(max_norm)) return 0;
    int e = 0;
    std::frexp(double(max_weight) * double(max_norm), &e);  // the product is exact in double, below 2^e
    return 32 - e;
}

uint32_t medfilt_fixed_weight(float c, float n, int K) {
    if (!(c > 0) || !(n > 0) || !std::isfinite(c) || !std::isfinite(n)) return 0;
    uint32_t mc, mn;
    int ec, en;
    decompose(c, mc, ec);
    decompose(n, mn, en);
    const uint64_t product = uint64_t(mc) * mn;  // below 2^48
    const int shift = ec + en + K;
    if (shift >= 0) return shift >= 32 ? 0xffffffffu : uint32_t(product << shift);  // fits by the choice of K
    return -shift >= 64 ? 0u : uint32_t(product >> -shift);
}

uint32_t medfilt_order_key(float x) {
    const uint32_t u = std::bit_cast<uint32_t>(x == 0.0f ? 0.0f : x);  // -0 ties with +0
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

uint32_t medfilt_fixed_quantile(double q) { return uint32_t(std::llround(q * 1e9)); }

std::pair<float, float> medfilt_weight_range(const Csr& csr, const IntegrateParams& p) {
    float cmax = 0, nmax = 0;
    for (float c : csr.data) cmax = std::max(cmax, c);
    for (size_t i = 0; i < csr.pixels; ++i) {
        if (p.mask && (*p.mask)[i] != 0) continue;
        const float n = float(pixel_norm(p, i));
        if (std::isfinite(n)) nmax = std::max(nmax, n);
    }
    return {cmax, nmax};
}

Profile1d medfilt(const Csr& csr, const HostArray& frame, const IntegrateParams& p, double q_lo, double q_hi) {
    if (p.error_model == IntegrateParams::ErrorModel::azimuthal)
        throw InvalidArgument("medfilt: the azimuthal error model is not supported; use poisson, variance or none");
    if (!(q_lo >= 0 && q_lo <= q_hi && q_hi <= 1))
        throw InvalidArgument("medfilt: quantiles q_lo " + std::to_string(q_lo) + " and q_hi " + std::to_string(q_hi) +
                              "; they must satisfy 0 <= q_lo <= q_hi <= 1 (0.5 and 0.5: the median)");
    // integrate() checks the matrix and the inputs and gives a zeroed profile of the right size.
    Profile1d out = integrate(csr, frame, p);
    const Preprocessed pre = preprocess(frame, csr.pixels, p);
    const auto [cmax, nmax] = medfilt_weight_range(csr, p);
    const int K = medfilt_scale_exponent(cmax, nmax);
    const unsigned __int128 qlo = medfilt_fixed_quantile(q_lo), qhi = medfilt_fixed_quantile(q_hi);

    std::vector<Entry> entries;
    for (size_t bin = 0; bin < csr.bins; ++bin) {
        entries.clear();
        const int32_t start = csr.indptr[bin];
        for (int32_t e = start; e < csr.indptr[bin + 1]; ++e) {
            const size_t px = size_t(csr.indices[size_t(e)]);
            if (!pre.valid[px]) continue;
            const float n32 = float(pre.normalization[px]);
            const float c = csr.data[size_t(e)];
            const uint32_t w = medfilt_fixed_weight(c, n32, K);
            if (w == 0) continue;
            const float x = float(pre.signal[px] / double(n32));
            entries.push_back({medfilt_order_key(x), uint32_t(e - start), w, c, pre.signal[px], pre.variance[px],
                               pre.normalization[px]});
        }
        std::sort(entries.begin(), entries.end(),
                  [](const Entry& a, const Entry& b) { return a.key != b.key ? a.key < b.key : a.index < b.index; });
        uint64_t total = 0;
        for (const Entry& en : entries) total += en.weight;
        // Bounds and cumulative sums scaled by 10^9, so the comparisons are exact.
        const unsigned __int128 lo = qlo * total, hi = qhi * total;
        double ss = 0, sv = 0, sn = 0, snn = 0, cnt = 0;
        uint64_t before = 0;
        for (const Entry& en : entries) {
            const unsigned __int128 L = (unsigned __int128)before * 1000000000u;
            const unsigned __int128 U = (unsigned __int128)(before + en.weight) * 1000000000u;
            before += en.weight;
            if (!((lo <= L && U <= hi) || (lo >= L && U >= hi))) continue;
            ss += en.c * en.signal;
            sv += en.c * en.c * en.variance;
            sn += en.c * en.norm;
            snn += en.c * en.c * en.norm * en.norm;
            cnt += 1;
        }
        out.sum_signal[bin] = ss;
        out.sum_variance[bin] = sv;
        out.sum_normalization[bin] = sn;
        out.sum_normalization_sq[bin] = snn;
        out.count[bin] = cnt;
        if (sn != 0) {
            out.intensity[bin] = ss / sn;
            out.sem[bin] = std::sqrt(sv) / sn;
            out.std[bin] = std::sqrt(sv / snn);
        } else {
            out.intensity[bin] = out.sem[bin] = out.std[bin] = p.empty;
        }
        out.sigma[bin] = out.sem[bin];
    }
    return out;
}

std::vector<double> interp(const std::vector<double>& x, const std::vector<double>& xp,
                           const std::vector<double>& fp) {
    if (xp.empty() || xp.size() != fp.size())
        throw InvalidArgument("interp: " + std::to_string(xp.size()) + " positions and " + std::to_string(fp.size()) +
                              " values; give as many values as positions, at least one");
    std::vector<double> out(x.size());
    const size_t last = xp.size() - 1;
    for (size_t i = 0; i < x.size(); ++i) {
        const double v = x[i];
        if (std::isnan(v)) {
            out[i] = v;
        } else if (v < xp[0]) {
            out[i] = fp[0];
        } else if (v >= xp[last]) {
            out[i] = fp[last];
        } else {
            const size_t j = size_t(std::upper_bound(xp.begin(), xp.end(), v) - xp.begin()) - 1;  // xp[j] <= v < xp[j+1]
            // numpy's arithmetic, with its fall-backs for non-finite slopes.
            const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
            out[i] = v == xp[j] ? fp[j] : slope * (v - xp[j]) + fp[j];
            if (std::isnan(out[i])) {
                out[i] = slope * (v - xp[j + 1]) + fp[j + 1];
                if (std::isnan(out[i]) && fp[j] == fp[j + 1]) out[i] = fp[j];
            }
        }
    }
    return out;
}

Separation separate(const HostArray& frame, const std::vector<double>& radial, const Profile1d& background,
                    const IntegrateParams& p, bool restore_mask) {
    const size_t pixels = frame.size();
    Csr shape_only;
    shape_only.pixels = pixels;
    check_inputs(shape_only, frame, p, "separate");
    if (radial.size() != pixels)
        throw InvalidArgument("separate: " + std::to_string(radial.size()) + " radial positions for a frame of " +
                              std::to_string(pixels) + " pixels; give one per pixel");
    const std::vector<double> curve = interp(radial, background.radial, background.intensity);
    Separation s;
    s.bragg.resize(pixels);
    s.amorphous.resize(pixels);
    for (size_t i = 0; i < pixels; ++i) {
        const double raw = frame.at(i);
        if (restore_mask && p.mask && (*p.mask)[i] != 0) {
            s.bragg[i] = s.amorphous[i] = raw;
            continue;
        }
        s.amorphous[i] = curve[i] * pixel_norm(p, i) + (p.dark ? p.dark->at(i) : 0.0);
        s.bragg[i] = raw - s.amorphous[i];
    }
    return s;
}

}  // namespace kiln::cpu
