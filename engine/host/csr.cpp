#include "kiln/csr.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "kiln/error.hpp"

namespace kiln {

const char* split_name(PixelSplit split) {
    switch (split) {
    case PixelSplit::none: return "no";
    case PixelSplit::bbox: return "bbox";
    case PixelSplit::full: return "full";
    }
    return "?";
}

PixelSplit parse_split(std::string_view name) {
    if (name == "no" || name == "none") return PixelSplit::none;
    if (name == "bbox") return PixelSplit::bbox;
    if (name == "full") return PixelSplit::full;
    throw InvalidArgument("pixel splitting '" + std::string(name) +
                          "' is unknown; accepted: no (or none), bbox, full (pyFAI's names)");
}

namespace {

constexpr double full_turn = 360.0, half_turn = 180.0;

using Piece = std::pair<size_t, double>;  // (bin, weight)

// Angle between two chi values, degrees, the short way round.
double angle_between(double a, double b) {
    const double d = std::fmod(std::abs(a - b), full_turn);
    return std::min(d, full_turn - d);
}

// One binned axis: bin k covers [lo + k width, lo + (k + 1) width).
struct Axis {
    double lo = 0, hi = 0, width = 1;
    size_t n = 1;
    double at(double v) const { return (v - lo) / width; }  // position in bins
};

// Pieces of the interval [a, b] (in bins, extent a0..b0 for the weights) on n
// bins, appended to out. pile: pyFAI's rule, the parts outside [0, n] added to
// the edge bins (nothing when the interval lies wholly outside); else the
// parts outside are left out.
void interval_pieces(double a, double b, size_t n, bool pile, std::vector<Piece>& out) {
    const double fn = double(n);
    if (b < 0 || a > fn) return;
    if (!(b > a)) {  // a point: the bin holding it, the upper edge in the last bin
        out.emplace_back(std::min(size_t(std::max(a, 0.0)), n - 1), 1.0);
        return;
    }
    const double len = b - a;
    if (pile) {
        const size_t ka = std::min(size_t(std::max(std::floor(a), 0.0)), n - 1);
        const size_t kb = std::min(size_t(std::max(std::floor(b), 0.0)), n - 1);
        if (ka == kb) {
            out.emplace_back(ka, 1.0);
            return;
        }
        out.emplace_back(ka, (double(ka + 1) - a) / len);
        for (size_t k = ka + 1; k < kb; ++k) out.emplace_back(k, 1.0 / len);
        out.emplace_back(kb, (b - double(kb)) / len);
        return;
    }
    const size_t first = size_t(std::max(std::floor(a), 0.0));
    const size_t last = size_t(std::min(std::ceil(b), fn));
    for (size_t k = first; k < last; ++k) {
        const double overlap = std::min(b, double(k + 1)) - std::max(a, double(k));
        if (overlap > 0) out.emplace_back(k, overlap / len);
    }
}

// Pieces of [a, b] on a chi axis without piling: the parts across +-180
// degrees (a turn = `turn` bins) also counted a turn lower or higher.
void chi_pieces(double a, double b, const Axis& ax, std::vector<Piece>& out) {
    const double turn = full_turn / ax.width;
    interval_pieces(a, b, ax.n, false, out);
    if (b > ax.at(half_turn)) interval_pieces(a - turn, b - turn, ax.n, false, out);
    if (a < ax.at(-half_turn)) interval_pieces(a + turn, b + turn, ax.n, false, out);
}

// A small polygon (a quadrilateral clipped by up to four lines).
struct Polygon {
    std::array<std::array<double, 2>, 12> v{};
    size_t n = 0;
};

// The part of p with coordinate `axis` >= at (above) or <= at (!above).
Polygon clip(const Polygon& p, int axis, double at, bool above) {
    Polygon out;
    for (size_t i = 0; i < p.n; ++i) {
        const auto& a = p.v[i];
        const auto& b = p.v[(i + 1) % p.n];
        const bool ain = above ? a[axis] >= at : a[axis] <= at;
        const bool bin = above ? b[axis] >= at : b[axis] <= at;
        if (ain) out.v[out.n++] = a;
        if (ain != bin) {
            const double t = (at - a[axis]) / (b[axis] - a[axis]);
            out.v[out.n++] = {a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])};
        }
    }
    return out;
}

double area(const Polygon& p) {
    double s = 0;
    for (size_t i = 0; i < p.n; ++i) {
        const auto& a = p.v[i];
        const auto& b = p.v[(i + 1) % p.n];
        s += a[0] * b[1] - b[0] * a[1];
    }
    return std::abs(s) / 2;
}

// Calls emit(kx, ky, area) for each cell [kx, kx + 1] x [ky, ky + 1] of the
// grid nx x ny the polygon overlaps (ny == 0: strips in x only, ky = 0).
template <typename F> void cell_areas(const Polygon& q, size_t nx, size_t ny, F&& emit) {
    double x0 = q.v[0][0], x1 = x0, y0 = q.v[0][1], y1 = y0;
    for (size_t i = 1; i < q.n; ++i) {
        x0 = std::min(x0, q.v[i][0]), x1 = std::max(x1, q.v[i][0]);
        y0 = std::min(y0, q.v[i][1]), y1 = std::max(y1, q.v[i][1]);
    }
    // Cells [k0, k1) of n along one axis that [lo, hi] reaches (empty outside).
    auto cells = [](double lo, double hi, size_t n) {
        const double fn = double(n);
        return std::pair{size_t(std::clamp(std::floor(lo), 0.0, fn)), size_t(std::clamp(std::ceil(hi), 0.0, fn))};
    };
    const auto [kx0, kx1] = cells(x0, x1, nx);
    for (size_t kx = kx0; kx < kx1; ++kx) {
        const Polygon s = clip(clip(q, 0, double(kx), true), 0, double(kx + 1), false);
        if (s.n < 3) continue;
        if (ny == 0) {
            emit(kx, 0, area(s));
            continue;
        }
        const auto [ky0, ky1] = cells(y0, y1, ny);
        for (size_t ky = ky0; ky < ky1; ++ky) {
            const Polygon c = clip(clip(s, 1, double(ky), true), 1, double(ky + 1), false);
            if (c.n >= 3) emit(kx, ky, area(c));
        }
    }
}

// Everything build_csr derives per pixel: the radial coordinate and chi of
// centres (none, bbox) with their deltas (bbox), or of corners (full).
struct Positions {
    std::vector<double> c0, d0, c1, d1;  // centres and deltas: radial, chi
    std::vector<double> k0, k1;          // corners (rows + 1) x (cols + 1): radial, chi
};

// pyFAI's delta: the largest |corner - centre| over a pixel's four corners
// (for chi the shorter way round).
std::vector<double> deltas(const Geometry& g, const std::vector<double>& centre, const std::vector<double>& corner,
                           bool angle) {
    std::vector<double> d(g.rows * g.cols);
    const size_t cw = g.cols + 1;
    for (size_t i = 0; i < g.rows; ++i)
        for (size_t j = 0; j < g.cols; ++j) {
            const double c = centre[i * g.cols + j];
            double m = 0;
            for (size_t k : {i * cw + j, i * cw + j + 1, (i + 1) * cw + j, (i + 1) * cw + j + 1})
                m = std::max(m, angle ? angle_between(corner[k], c) : std::abs(corner[k] - c));
            d[i * g.cols + j] = m;
        }
    return d;
}

// The four corners of pixel (i, j) in (radial, chi) (or (chi, 2theta) for
// the chi unit), in order round the pixel, with pyFAI 0.21's treatment of the
// chi cut: corners spanning more than half a turn have the negative ones moved
// up a turn, and the pixel then goes down a turn if their mean lies above 180
// degrees (each pixel on the side of its centre).
Polygon corners_of(const Positions& pos, const Geometry& g, size_t p, bool chi_first) {
    const size_t i = p / g.cols, j = p % g.cols, cw = g.cols + 1;
    const size_t k[4] = {i * cw + j, (i + 1) * cw + j, (i + 1) * cw + j + 1, i * cw + j + 1};
    Polygon q;
    q.n = 4;
    double lo = full_turn, hi = -full_turn;
    for (int c = 0; c < 4; ++c) {
        q.v[c] = {pos.k0[k[c]], pos.k1[k[c]]};
        const double chi = q.v[c][chi_first ? 0 : 1];
        lo = std::min(lo, chi), hi = std::max(hi, chi);
    }
    if (hi - lo > half_turn) {
        double mean = 0;
        for (int c = 0; c < 4; ++c) {
            double& chi = q.v[c][chi_first ? 0 : 1];
            if (chi < 0) chi += full_turn;
            mean += chi / 4;
        }
        if (mean > half_turn)
            for (int c = 0; c < 4; ++c) q.v[c][chi_first ? 0 : 1] -= full_turn;
    }
    return q;
}

// The extent [lo, hi] of the unmasked pixels along one coordinate, as pyFAI
// 0.21 derives a range: centres, centre +- delta, or corners.
std::pair<double, double> extent(const Geometry& g, PixelSplit split, const std::vector<double>& c,
                                 const std::vector<double>& d, const std::vector<double>& k,
                                 const std::vector<uint8_t>* mask) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    const size_t cw = g.cols + 1;
    for (size_t i = 0; i < g.rows; ++i)
        for (size_t j = 0; j < g.cols; ++j) {
            const size_t p = i * g.cols + j;
            if (mask && (*mask)[p]) continue;
            if (split == PixelSplit::full) {
                for (size_t q : {i * cw + j, i * cw + j + 1, (i + 1) * cw + j, (i + 1) * cw + j + 1})
                    lo = std::min(lo, k[q]), hi = std::max(hi, k[q]);
            } else {
                const double dd = split == PixelSplit::bbox ? d[p] : 0.0;
                lo = std::min(lo, c[p] - dd), hi = std::max(hi, c[p] + dd);
            }
        }
    return {lo, hi};
}

std::pair<double, double> checked_range(const std::pair<double, double>& r, const char* what) {
    const double lo = std::min(r.first, r.second), hi = std::max(r.first, r.second);
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        throw InvalidArgument(std::string("build_csr: ") + what + " [" + std::to_string(r.first) + ", " +
                              std::to_string(r.second) + "] is empty or not finite; give two different finite values");
    return {lo, hi};
}

// The axis of n bins over a given or derived range.
Axis make_axis(std::optional<std::pair<double, double>> given, std::pair<double, double> derived, bool angle,
               size_t n, const char* what) {
    Axis ax;
    ax.n = n;
    if (given) {
        std::tie(ax.lo, ax.hi) = checked_range(*given, what);
    } else {
        ax.lo = derived.first, ax.hi = derived.second;
        if (ax.lo > ax.hi)
            throw InvalidArgument(std::string("build_csr: the mask excludes every pixel; no ") + what +
                                  " can be derived");
        if (angle) {
            ax.lo = std::max(ax.lo, -half_turn), ax.hi = std::min(ax.hi, half_turn);
        } else {  // pyFAI's allow_pos0_neg = False
            ax.lo = std::max(ax.lo, 0.0), ax.hi = std::max(ax.hi, 0.0);
        }
        // A single value (one pixel, no splitting) still needs a bin width.
        if (!(ax.hi > ax.lo)) ax.hi = ax.lo + std::max(std::abs(ax.lo), 1.0) * 1e-9;
    }
    ax.width = (ax.hi - ax.lo) / double(n);
    return ax;
}

}  // namespace

Csr build_csr(const Geometry& g, const CsrSpec& spec, const std::vector<uint8_t>* mask) {
    const Radial unit = spec.unit;
    const bool chi_unit = unit == Radial::chi_deg;
    validate_geometry(g, radial_needs_wavelength(unit));
    const size_t pixels = g.rows * g.cols;
    if (spec.bins == 0) throw InvalidArgument("build_csr: 0 bins; at least 1 is needed");
    if (chi_unit && (spec.azimuth_bins > 0 || spec.azimuth_range))
        throw InvalidArgument(
            "build_csr: unit chi_deg with azimuth bins or an azimuth range; chi is already the "
            "integration axis: give a radial unit (2th_deg, q_nm^-1, r_mm, ...) for a cake or a sector");
    if (spec.azimuth_range) {
        const auto [lo, hi] = checked_range(*spec.azimuth_range, "azimuth range");
        if (spec.azimuth_range->first > spec.azimuth_range->second || lo < -half_turn || hi > half_turn)
            throw InvalidArgument("build_csr: azimuth range [" + std::to_string(spec.azimuth_range->first) + ", " +
                                  std::to_string(spec.azimuth_range->second) +
                                  "] degrees; give lo < hi within [-180, 180] (a sector across the "
                                  "+-180 cut needs two integrations; pyFAI 0.21 keeps only its part below 180)");
    }
    if (mask && mask->size() != pixels)
        throw InvalidArgument("build_csr: mask has " + std::to_string(mask->size()) + " entries; the detector has " +
                              std::to_string(pixels) + " pixels (rows * cols)");
    if (pixels > size_t(std::numeric_limits<int32_t>::max()))
        throw InvalidArgument("build_csr: " + std::to_string(pixels) +
                              " pixels; int32 column indices hold at most 2^31 - 1");
    const bool cake = spec.azimuth_bins > 0;
    const bool sector = !cake && spec.azimuth_range.has_value();
    const PixelSplit split = spec.split;
    const bool pile = spec.renormalize;
    // The second coordinate: chi, or for the chi unit 2theta (full splitting's
    // area is taken in the (chi, 2theta) plane).
    const bool need_second = cake || sector || split == PixelSplit::full;
    const Radial second = chi_unit ? Radial::two_theta_deg : Radial::chi_deg;

    Positions pos;
    if (split == PixelSplit::full) {
        pos.k0 = radial_corners(g, unit);
        pos.k1 = radial_corners(g, second);
    } else {
        pos.c0 = radial_centers(g, unit);
        if (need_second) pos.c1 = radial_centers(g, second);
        if (split == PixelSplit::bbox) {
            const auto k0 = radial_corners(g, unit);
            pos.d0 = deltas(g, pos.c0, k0, chi_unit);
            if (need_second) pos.d1 = deltas(g, pos.c1, radial_corners(g, second), true);
        }
    }
    auto masked = [&](size_t p) { return mask && (*mask)[p] != 0; };

    const Axis rad = make_axis(spec.range, spec.range ? std::pair{0.0, 0.0} : extent(g, split, pos.c0, pos.d0, pos.k0, mask),
                               chi_unit, spec.bins, "radial range");
    Axis azi;  // a cake's bins, or a sector as one bin
    if (cake || sector) {
        const bool derive = !spec.azimuth_range;
        azi = make_axis(spec.azimuth_range, derive ? extent(g, split, pos.c1, pos.d1, pos.k1, mask) : std::pair{0.0, 0.0},
                        true, cake ? spec.azimuth_bins : 1, "azimuth range");
    }
    const size_t nr = rad.n, na = cake ? azi.n : 1;

    // Calls emit(row, weight) for each row pixel p contributes to, each row
    // once, in row order.
    std::vector<Piece> parts, ra, az;
    auto for_each_entry = [&](size_t p, auto&& emit) {
        if (masked(p)) return;
        parts.clear();
        if (split == PixelSplit::full) {
            Polygon q = corners_of(pos, g, p, chi_unit);
            double chi_lo = q.v[0][1], chi_hi = chi_lo;
            for (size_t c = 0; c < 4; ++c) {
                q.v[c][0] = rad.at(q.v[c][0]);
                chi_lo = std::min(chi_lo, q.v[c][1]), chi_hi = std::max(chi_hi, q.v[c][1]);
                if (cake || sector) q.v[c][1] = azi.at(q.v[c][1]);
            }
            const size_t ny = (cake || sector) && !(sector && pile) ? azi.n : 0;
            if (pile && sector && (chi_hi < azi.lo || chi_lo > azi.hi)) return;
            if (pile && ny == 0) {
                // pyFAI's 1-D full splitting: the fractions inside the range,
                // scaled to sum to 1.
                double x0 = q.v[0][0], x1 = x0;
                for (size_t c = 1; c < 4; ++c) x0 = std::min(x0, q.v[c][0]), x1 = std::max(x1, q.v[c][0]);
                if (x1 < 0 || x0 >= double(nr)) return;
                if (std::floor(x0) == std::floor(x1)) {
                    emit(std::min(size_t(x0), nr - 1), 1.0);
                    return;
                }
                double total = 0;
                cell_areas(q, nr, 0, [&](size_t kx, size_t, double a) { parts.emplace_back(kx, a), total += a; });
                if (!(total > 0)) return;
                for (auto& [k, w] : parts) emit(k, w / total);
                return;
            }
            if (pile) {
                // pyFAI's cake: corners clamped into the ranges, then split.
                double x0 = q.v[0][0], x1 = x0, y0 = q.v[0][1], y1 = y0;
                for (size_t c = 1; c < 4; ++c) {
                    x0 = std::min(x0, q.v[c][0]), x1 = std::max(x1, q.v[c][0]);
                    y0 = std::min(y0, q.v[c][1]), y1 = std::max(y1, q.v[c][1]);
                }
                if (x1 < 0 || x0 > double(nr) || y1 < 0 || y0 >= double(na)) return;
                for (size_t c = 0; c < 4; ++c) {
                    q.v[c][0] = std::clamp(q.v[c][0], 0.0, double(nr));
                    q.v[c][1] = std::clamp(q.v[c][1], 0.0, double(na));
                }
            }
            const double total = area(q);
            if (!(total > 0)) return;
            auto add = [&](const Polygon& s) {
                cell_areas(s, nr, ny, [&](size_t kx, size_t ky, double a) {
                    parts.emplace_back(ky * nr + kx, a / total);
                });
            };
            add(q);
            if (!pile && (chi_unit || ny > 0)) {
                // The part across +-180 degrees, a turn lower or higher.
                const int axis = chi_unit ? 0 : 1;
                const Axis& chi_axis = chi_unit ? rad : azi;
                const double top = std::max({q.v[0][axis], q.v[1][axis], q.v[2][axis], q.v[3][axis]});
                const double bottom = std::min({q.v[0][axis], q.v[1][axis], q.v[2][axis], q.v[3][axis]});
                const double turn = full_turn / chi_axis.width;
                for (double shift : {top > chi_axis.at(half_turn) ? -turn : 0.0,
                                     bottom < chi_axis.at(-half_turn) ? turn : 0.0}) {
                    if (shift == 0) continue;
                    Polygon moved = q;
                    for (size_t c = 0; c < 4; ++c) moved.v[c][axis] += shift;
                    add(moved);
                }
            }
        } else {
            const bool box = split == PixelSplit::bbox;
            const double c0 = pos.c0[p], d0 = box ? pos.d0[p] : 0.0;
            ra.clear();
            if (chi_unit && !pile)
                chi_pieces(rad.at(c0 - d0), rad.at(c0 + d0), rad, ra);
            else
                interval_pieces(rad.at(c0 - d0), rad.at(c0 + d0), nr, pile, ra);
            if (ra.empty()) return;
            if (!cake && !sector) {
                parts = ra;
            } else {
                const double c1 = pos.c1[p], d1 = box ? pos.d1[p] : 0.0;
                az.clear();
                if (sector && pile) {
                    // pyFAI: a pixel reaching into the sector counts whole.
                    if (c1 + d1 < azi.lo || c1 - d1 > azi.hi) return;
                    az.emplace_back(0, 1.0);
                } else if (pile) {
                    interval_pieces(azi.at(c1 - d1), azi.at(c1 + d1), azi.n, true, az);
                } else {
                    chi_pieces(azi.at(c1 - d1), azi.at(c1 + d1), azi, az);
                }
                for (const auto& [ka, wa] : az)
                    for (const auto& [kr, wr] : ra) parts.emplace_back(ka * nr + kr, wa * wr);
            }
        }
        std::sort(parts.begin(), parts.end());
        for (size_t i = 0; i < parts.size();) {
            double w = 0;
            const size_t k = parts[i].first;
            for (; i < parts.size() && parts[i].first == k; ++i) w += parts[i].second;
            if (w > 0) emit(k, w);
        }
    };

    Csr m;
    m.bins = nr * na;
    m.pixels = pixels;
    m.range_lo = rad.lo;
    m.range_hi = rad.hi;
    m.unit = unit;
    m.split = split;
    m.renormalize = pile;
    m.radial_bins = nr;
    m.azimuth_bins = cake ? na : 0;
    if (cake || sector) {
        m.azimuth_lo = azi.lo;
        m.azimuth_hi = azi.hi;
    }
    if (cake) {
        m.azimuth_centers.resize(na);
        for (size_t a = 0; a < na; ++a) m.azimuth_centers[a] = azi.lo + (double(a) + 0.5) * azi.width;
    }
    m.bin_centers.resize(m.bins);
    for (size_t k = 0; k < m.bins; ++k) m.bin_centers[k] = rad.lo + (double(k % nr) + 0.5) * rad.width;

    // Two passes, count then fill; pixels in raster order keep each row sorted.
    std::vector<size_t> row_len(m.bins, 0);
    for (size_t p = 0; p < pixels; ++p) for_each_entry(p, [&](size_t k, double) { ++row_len[k]; });
    size_t nnz = 0;
    m.indptr.resize(m.bins + 1);
    for (size_t k = 0; k < m.bins; ++k) {
        m.indptr[k] = int32_t(nnz);
        nnz += row_len[k];
        if (nnz > size_t(std::numeric_limits<int32_t>::max()))
            throw InvalidArgument(
                "build_csr: more than 2^31 - 1 matrix entries; "
                "use fewer pixels or no pixel splitting");
    }
    m.indptr[m.bins] = int32_t(nnz);
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

Csr build_csr(const Geometry& g, Radial unit, size_t bins, std::optional<std::pair<double, double>> range,
              PixelSplit split, const std::vector<uint8_t>* mask) {
    CsrSpec s;
    s.unit = unit;
    s.bins = bins;
    s.range = range;
    s.split = split;
    return build_csr(g, s, mask);
}

Csr merge_radial(const Csr& cake) {
    if (cake.azimuth_bins == 0 || cake.radial_bins == 0 || cake.bins != cake.azimuth_bins * cake.radial_bins ||
        cake.indptr.size() != cake.bins + 1)
        throw InvalidArgument(
            "merge_radial: the matrix is no cake; build one with CsrSpec::azimuth_bins > 0");
    Csr m;
    m.bins = m.radial_bins = cake.azimuth_bins;
    m.pixels = cake.pixels;
    m.unit = Radial::chi_deg;
    m.split = cake.split;
    m.renormalize = cake.renormalize;
    m.range_lo = cake.azimuth_lo;
    m.range_hi = cake.azimuth_hi;
    m.bin_centers = cake.azimuth_centers;
    m.indptr.assign(1, 0);
    std::vector<std::pair<int32_t, double>> row;
    for (size_t a = 0; a < cake.azimuth_bins; ++a) {
        row.clear();
        for (int32_t e = cake.indptr[a * cake.radial_bins]; e < cake.indptr[(a + 1) * cake.radial_bins]; ++e)
            row.emplace_back(cake.indices[size_t(e)], cake.data[size_t(e)]);
        std::sort(row.begin(), row.end());
        for (size_t i = 0; i < row.size();) {
            const int32_t p = row[i].first;
            double w = 0;
            for (; i < row.size() && row[i].first == p; ++i) w += row[i].second;
            m.indices.push_back(p);
            m.data.push_back(float(w));
        }
        if (m.indices.size() > size_t(std::numeric_limits<int32_t>::max()))
            throw InvalidArgument("merge_radial: more than 2^31 - 1 matrix entries");
        m.indptr.push_back(int32_t(m.indices.size()));
    }
    return m;
}

}  // namespace kiln
