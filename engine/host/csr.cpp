#include "kiln/csr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kiln/error.hpp"

namespace kiln {
namespace {

// Radial extent [lo, hi] of every pixel: its centre without splitting, its
// corners' bounding interval with splitting. A chi interval that crosses the
// discontinuity at +-180 degrees is stored unwrapped, hi above 180, and also
// counts 360 degrees lower.
struct Extents {
    std::vector<double> lo, hi;
};

constexpr double full_turn = 360.0;

Extents pixel_extents(const Geometry& g, Radial unit, bool split) {
    Extents e;
    if (!split) {
        e.lo = radial_centers(g, unit);
        e.hi = e.lo;
        return e;
    }
    const std::vector<double> c = radial_corners(g, unit);
    const size_t n = g.rows * g.cols, cw = g.cols + 1;
    e.lo.resize(n);
    e.hi.resize(n);
    for (size_t i = 0; i < g.rows; ++i)
        for (size_t j = 0; j < g.cols; ++j) {
            const double a = c[i * cw + j], b = c[i * cw + j + 1];
            const double d = c[(i + 1) * cw + j], f = c[(i + 1) * cw + j + 1];
            e.lo[i * g.cols + j] = std::min({a, b, d, f});
            e.hi[i * g.cols + j] = std::max({a, b, d, f});
        }
    if (unit == Radial::chi_deg)
        for (size_t i = 0; i < g.rows; ++i)
            for (size_t j = 0; j < g.cols; ++j) {
                // Corners on both sides of the cut: the short way round is
                // through 180, so the negative ones move up a turn.
                const size_t p = i * g.cols + j;
                if (e.hi[p] - e.lo[p] <= full_turn / 2) continue;
                double lo = full_turn, hi = -full_turn;
                for (double v : {c[i * cw + j], c[i * cw + j + 1], c[(i + 1) * cw + j], c[(i + 1) * cw + j + 1]}) {
                    const double w = v < 0 ? v + full_turn : v;
                    lo = std::min(lo, w);
                    hi = std::max(hi, w);
                }
                e.lo[p] = lo;
                e.hi[p] = hi;
            }
    // 2theta, q, r and d*2 are smallest where the direct beam hits, which for
    // that one pixel is inside it rather than at a corner; that pixel sees
    // every azimuth.
    if (const auto beam = beam_position(g)) {
        const double y = std::floor(beam->first), x = std::floor(beam->second);
        if (y >= 0 && x >= 0 && y < double(g.rows) && x < double(g.cols)) {
            const size_t p = size_t(y) * g.cols + size_t(x);
            if (unit == Radial::chi_deg) {
                e.lo[p] = -full_turn / 2;
                e.hi[p] = full_turn / 2;
            } else {
                e.lo[p] = 0.0;
            }
        }
    }
    return e;
}

}  // namespace

Csr build_csr(const Geometry& g, Radial unit, size_t bins, std::optional<std::pair<double, double>> range,
              bool pixel_split, const std::vector<uint8_t>* mask) {
    validate_geometry(g, radial_needs_wavelength(unit));
    const size_t pixels = g.rows * g.cols;
    if (bins == 0) throw InvalidArgument("build_csr: 0 bins; at least 1 is needed");
    if (mask && mask->size() != pixels)
        throw InvalidArgument("build_csr: mask has " + std::to_string(mask->size()) +
                              " entries; the detector has " + std::to_string(pixels) +
                              " pixels (rows * cols)");
    if (pixels > size_t(std::numeric_limits<int32_t>::max()))
        throw InvalidArgument("build_csr: " + std::to_string(pixels) +
                              " pixels; int32 column indices hold at most 2^31 - 1");
    auto masked = [&](size_t p) { return mask && (*mask)[p] != 0; };

    const Extents ext = pixel_extents(g, unit, pixel_split);
    double lo, hi;
    if (range) {
        lo = std::min(range->first, range->second);
        hi = std::max(range->first, range->second);
        if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
            throw InvalidArgument("build_csr: radial range [" + std::to_string(range->first) + ", " +
                                  std::to_string(range->second) +
                                  "] is empty or not finite; give two different finite values");
    } else {
        lo = std::numeric_limits<double>::infinity();
        hi = -lo;
        for (size_t p = 0; p < pixels; ++p) {
            if (masked(p)) continue;
            lo = std::min(lo, ext.lo[p]);
            hi = std::max(hi, ext.hi[p]);
        }
        if (lo > hi)
            throw InvalidArgument(
                "build_csr: the mask excludes every pixel; "
                "no radial range can be derived");
        // Unwrapped chi intervals reach past 180; their lower copies are inside.
        if (unit == Radial::chi_deg) hi = std::min(hi, full_turn / 2);
        // A single radial value (one pixel, no splitting) still needs a bin width.
        if (!(hi > lo)) hi = lo + std::max(std::abs(lo), 1.0) * 1e-9;
    }
    const double width = (hi - lo) / double(bins);
    const double fbins = double(bins);

    // Calls emit(bin, weight) for each bin the interval [a, b] of pixel
    // extent [a0, b0] reaches, in bin order.
    auto for_each_piece = [&](double a, double b, double a0, double b0, auto&& emit) {
        if (b < lo || a > hi) return;
        const double fa = (a - lo) / width, fb = (b - lo) / width;
        const double f_width = (b0 - lo) / width - (a0 - lo) / width;
        if (!(fb > fa)) {
            // A point (no splitting, or a degenerate pixel): the bin holding it,
            // with hi itself in the last bin.
            emit(std::min(size_t(std::max(fa, 0.0)), bins - 1), 1.0);
            return;
        }
        const double ca = std::max(fa, 0.0), cb = std::min(fb, fbins);
        const size_t first = std::min(size_t(ca), bins - 1);
        const size_t last = std::min(size_t(std::ceil(cb)), bins);
        for (size_t k = first; k < last; ++k) {
            const double overlap = std::min(cb, double(k + 1)) - std::max(ca, double(k));
            if (overlap > 0) emit(k, overlap / f_width);
        }
    };
    // Calls emit(bin, weight) for each bin pixel p contributes to, each bin once.
    auto for_each_entry = [&](size_t p, auto&& emit) {
        if (masked(p)) return;
        const double a = ext.lo[p], b = ext.hi[p];
        if (!(unit == Radial::chi_deg && b > full_turn / 2)) {
            for_each_piece(a, b, a, b, emit);
            return;
        }
        // A chi interval across the cut: both of its copies, a turn apart,
        // merged where they reach the same bin (a range a turn wide).
        std::vector<std::pair<size_t, double>> parts;
        const auto keep = [&](size_t k, double w) { parts.emplace_back(k, w); };
        for_each_piece(a - full_turn, b - full_turn, a, b, keep);
        for_each_piece(a, b, a, b, keep);
        std::sort(parts.begin(), parts.end());
        for (size_t i = 0; i < parts.size();) {
            double w = 0;
            const size_t k = parts[i].first;
            for (; i < parts.size() && parts[i].first == k; ++i) w += parts[i].second;
            emit(k, w);
        }
    };

    Csr m;
    m.bins = bins;
    m.pixels = pixels;
    m.range_lo = lo;
    m.range_hi = hi;
    m.unit = unit;
    m.pixel_split = pixel_split;
    m.bin_centers.resize(bins);
    for (size_t k = 0; k < bins; ++k) m.bin_centers[k] = lo + (double(k) + 0.5) * width;

    // Two passes, count then fill; pixels in raster order keep each row sorted.
    std::vector<size_t> row_len(bins, 0);
    for (size_t p = 0; p < pixels; ++p) for_each_entry(p, [&](size_t k, double) { ++row_len[k]; });
    size_t nnz = 0;
    m.indptr.resize(bins + 1);
    for (size_t k = 0; k < bins; ++k) {
        m.indptr[k] = int32_t(nnz);
        nnz += row_len[k];
        if (nnz > size_t(std::numeric_limits<int32_t>::max()))
            throw InvalidArgument(
                "build_csr: more than 2^31 - 1 matrix entries; "
                "use fewer pixels or no pixel splitting");
    }
    m.indptr[bins] = int32_t(nnz);
    m.indices.resize(nnz);
    m.data.resize(nnz);
    std::vector<size_t> fill(m.indptr.begin(), m.indptr.end() - 1);
    for (size_t p = 0; p < pixels; ++p)
        for_each_entry(p, [&](size_t k, double w) {
            m.indices[fill[k]] = int32_t(p);
            m.data[fill[k]] = float(w);
            ++fill[k];
        });
    return m;
}

}  // namespace kiln
