#include "kiln/csr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kiln/error.hpp"

namespace kiln {
namespace {

// Radial extent [lo, hi] of every pixel: its centre without splitting, its
// corners' bounding interval with splitting.
struct Extents {
    std::vector<double> lo, hi;
};

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
    // 2theta and q are smallest where the direct beam hits, which for that
    // one pixel is inside it rather than at a corner.
    if (const auto beam = beam_position(g)) {
        const double y = std::floor(beam->first), x = std::floor(beam->second);
        if (y >= 0 && x >= 0 && y < double(g.rows) && x < double(g.cols))
            e.lo[size_t(y) * g.cols + size_t(x)] = 0.0;
    }
    return e;
}

}  // namespace

Csr build_csr(const Geometry& g, Radial unit, size_t bins, std::optional<std::pair<double, double>> range,
              bool pixel_split, const std::vector<uint8_t>* mask) {
    validate_geometry(g, unit == Radial::q_nm);
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
        // A single radial value (one pixel, no splitting) still needs a bin width.
        if (!(hi > lo)) hi = lo + std::max(std::abs(lo), 1.0) * 1e-9;
    }
    const double width = (hi - lo) / double(bins);
    const double fbins = double(bins);

    // Calls emit(bin, weight) for each bin pixel p contributes to, in bin order.
    auto for_each_entry = [&](size_t p, auto&& emit) {
        if (masked(p)) return;
        const double a = ext.lo[p], b = ext.hi[p];
        if (b < lo || a > hi) return;
        const double fa = (a - lo) / width, fb = (b - lo) / width;
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
            if (overlap > 0) emit(k, overlap / (fb - fa));
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
