// Pixel splitting (no, bbox, full), 2-D cakes, azimuth ranges and
// integrate_radial against pyFAI 0.21.3's CSR engines
// (tests/data/pyfai/make_split_fixtures.py wrote the fixtures).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "cpu_support.hpp"
#include "kiln/csr.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"

using namespace kiln;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

std::vector<double> npy(const std::string& name) {
    return test::npy_values(std::filesystem::path("pyfai") / "split" / (name + ".npy"));
}

// make_split_fixtures.py's integrator(): the beam on pixel (14, 18).
Geometry split_geometry() {
    return Geometry{37, 41, 75e-6, 100e-6, 0.05, 18.3 * 75e-6, 20.6 * 100e-6, 0.004, -0.006, 0.1, 1.0e-10};
}

struct Case {
    std::string name, kind, split, unit;
    size_t bins = 0, azimuth_bins = 0;
    std::optional<std::pair<double, double>> range, azimuth_range;
};

std::optional<std::pair<double, double>> range_of(const std::string& lo, const std::string& hi) {
    if (lo == "-") return std::nullopt;
    return std::make_pair(std::stod(lo), std::stod(hi));
}

std::vector<Case> cases() {
    std::vector<Case> out;
    for (const std::string& line : test::data_lines("pyfai/split/cases.txt")) {
        std::istringstream in(line);
        Case c;
        std::string r[4];
        in >> c.name >> c.kind >> c.split >> c.unit >> c.bins >> c.azimuth_bins >> r[0] >> r[1] >> r[2] >> r[3];
        c.range = range_of(r[0], r[1]);
        c.azimuth_range = range_of(r[2], r[3]);
        out.push_back(c);
    }
    return out;
}

// kiln's matrix for a case, with pyFAI's treatment of range edges.
Csr matrix_of(const Case& c, bool renormalize) {
    CsrSpec s;
    s.unit = parse_radial(c.unit);
    s.bins = c.bins;
    s.range = c.range;
    s.azimuth_bins = c.kind == "1d" ? 0 : c.azimuth_bins;
    s.azimuth_range = c.azimuth_range;
    s.split = parse_split(c.split);
    s.renormalize = renormalize;
    const Csr m = build_csr(split_geometry(), s);
    return c.kind == "radial" ? merge_radial(m) : m;
}

// Per row: sum of weight * frame, and of weights.
std::pair<std::vector<double>, std::vector<double>> sums(const Csr& m, const std::vector<double>& frame) {
    std::vector<double> signal(m.bins, 0), count(m.bins, 0);
    for (size_t k = 0; k < m.bins; ++k)
        for (int32_t e = m.indptr[k]; e < m.indptr[k + 1]; ++e) {
            signal[k] += m.data[size_t(e)] * frame[size_t(m.indices[size_t(e)])];
            count[k] += m.data[size_t(e)];
        }
    return {signal, count};
}

// pyFAI's results against kiln's matrix with renormalize (pyFAI's edge rule),
// bin by bin. Bins are skipped only where pyFAI's engine truncates positions
// toward zero (no and bbox: radial bin 0 below a given radial range, azimuth
// bin 0 of a cake below a given azimuth range take pixels lying up to one bin
// outside; kiln leaves those out, see CsrSpec).
// count_tol(kind): the tolerance on each bin's count (weights summed), in
// pixels; sums of the frame (values < 1000) get 1000 times it.
template <typename Tol> void compare_with_pyfai(const std::string& split, Tol&& count_tol) {
    const auto frame = npy("frame");
    size_t n_cases = 0;
    for (const Case& c : cases()) {
        if (c.split != split) continue;
        INFO(c.name);
        ++n_cases;
        const Csr m = matrix_of(c, true);
        const auto [signal, count] = sums(m, frame);
        const auto ref = npy(c.name);
        const bool cake = c.kind == "2d";
        const size_t n = m.bins;
        REQUIRE(ref.size() == (cake ? 3 * n : 4 * n));
        // Centres: pyFAI's upper edge is a float32 epsilon higher, and a
        // derived range comes from its float32 positions (5.7e-7 relative,
        // see test_pyfai_ref.cpp): within 1e-6 of the axis' extent.
        if (cake) {
            const auto axes = npy(c.name + "_axes");
            REQUIRE(axes.size() == c.bins + c.azimuth_bins);
            for (size_t k = 0; k < c.bins; ++k)
                CHECK_THAT(m.bin_centers[k], WithinAbs(axes[k], 1e-6 * axes[c.bins - 1]));
            for (size_t a = 0; a < c.azimuth_bins; ++a)
                CHECK_THAT(m.azimuth_centers[a], WithinAbs(axes[c.bins + a], 1e-4));  // degrees
        } else {
            // integrate_radial's centres are chi in degrees.
            const double tol = c.kind == "radial" ? 1e-4 : 1e-6 * ref[n - 1];
            for (size_t k = 0; k < n; ++k) CHECK_THAT(m.bin_centers[k], WithinAbs(ref[k], tol));
        }
        for (size_t k = 0; k < n; ++k) {
            const size_t r = k % m.radial_bins, a = k / m.radial_bins;
            if (split != "full" && ((c.range && r == 0) || (cake && c.azimuth_range && a == 0))) continue;
            const double want_signal = cake ? ref[k] : ref[n + k], want_count = cake ? ref[n + k] : ref[2 * n + k];
            INFO("bin " << k);
            const double tol = count_tol(c.kind);
            CHECK_THAT(count[k], WithinAbs(want_count, tol));
            CHECK_THAT(signal[k], WithinAbs(want_signal, tol * 1000 + 1e-6 * std::abs(want_signal)));
        }
    }
    CHECK(n_cases == 13);
}

}  // namespace

TEST_CASE("split names are pyFAI's", "[cpu][azimuthal][csr]") {
    for (const char* name : {"no", "bbox", "full"}) CHECK(std::string(split_name(parse_split(name))) == name);
    CHECK(parse_split("none") == PixelSplit::none);
    CHECK_THROWS_WITH(parse_split("pseudo"), Catch::Contains("no (or none), bbox, full"));
}

TEST_CASE("no splitting: 1-D, sectors, cakes and integrate_radial match pyFAI's CSR engine",
          "[cpu][azimuthal][csr][pyfai]") {
    // The same pixels in the same bins (pyFAI bins float32 positions with
    // the same edges; none lies within float32 rounding of an edge here):
    // counts exact, sums to pyFAI's float32 accumulation (measured 5.9e-8
    // relative).
    compare_with_pyfai("no", [](const std::string&) { return 0.0; });
}

TEST_CASE("bbox splitting: 1-D, sectors, cakes and integrate_radial match pyFAI's CSR engine",
          "[cpu][azimuthal][csr][pyfai]") {
    // pyFAI's positions and deltas are float32 (its corner arrays): the
    // weights differ by up to 1.6e-4 of a pixel per bin (measured; 1-D and
    // cakes alike), so sums differ by that times the frame's values (< 1000).
    compare_with_pyfai("bbox", [](const std::string&) { return 2e-4; });
}

TEST_CASE("full splitting: 1-D and sectors match pyFAI's CSR engine; its cakes approximately",
          "[cpu][azimuthal][csr][pyfai]") {
    // 1-D: float32 corners, weights within 1.4e-4 of a pixel per bin (measured).
    // Cakes and integrate_radial (built on the cake): pyFAI 0.21.3's 2-D area
    // split (splitPixelFullCSR's calc_lut_2d) is not exact: a lone
    // quadrilateral inside a 4 x 4 grid gets boundary cells off by up to
    // 0.03 of its area (kiln's are exact polygon clipping, sums checked
    // below), and bins here differ by up to 0.12 of a pixel (measured 0.093,
    // 0.122, 0.074 on the three cakes, 0.086 on integrate_radial).
    compare_with_pyfai("full", [](const std::string& kind) { return kind == "1d" ? 2e-4 : 0.15; });
}

TEST_CASE("full splitting: every pixel's area is shared out exactly, across the chi cut too",
          "[cpu][azimuthal][csr]") {
    const Geometry g = split_geometry();
    for (const bool renormalize : {false, true}) {
        INFO("renormalize " << renormalize);
        CsrSpec s;
        s.unit = Radial::q_nm;
        s.bins = 24;
        s.split = PixelSplit::full;
        s.renormalize = renormalize;
        const Csr line = build_csr(g, s);
        s.azimuth_bins = 18;
        s.azimuth_range = std::make_pair(-180.0, 180.0);
        const Csr cake = build_csr(g, s);
        CHECK(cake.bins == 24 * 18);
        CHECK(cake.radial_bins == 24);
        CHECK(cake.azimuth_bins == 18);
        CHECK_THAT(cake.azimuth_centers.front(), WithinAbs(-170.0, 1e-12));
        // Per pixel and radial bin, the cake's azimuth rows add up to the
        // 1-D matrix's weight: without renormalization a pixel across the
        // +-180 cut is split between the first and last rows (with it, the
        // pixel is taken on its centre's side and its corners clamped to
        // 180, which changes its shape). Either way each pixel's weights sum to 1.
        std::vector<double> w1(24 * line.pixels, 0), w2(24 * line.pixels, 0), per_pixel(line.pixels, 0);
        for (size_t k = 0; k < line.bins; ++k)
            for (int32_t e = line.indptr[k]; e < line.indptr[k + 1]; ++e)
                w1[k * line.pixels + size_t(line.indices[size_t(e)])] += line.data[size_t(e)];
        for (size_t k = 0; k < cake.bins; ++k)
            for (int32_t e = cake.indptr[k]; e < cake.indptr[k + 1]; ++e) {
                w2[(k % 24) * line.pixels + size_t(cake.indices[size_t(e)])] += cake.data[size_t(e)];
                per_pixel[size_t(cake.indices[size_t(e)])] += cake.data[size_t(e)];
            }
        if (!renormalize)  // clamping a pixel's corners changes its shape
            for (size_t i = 0; i < w1.size(); ++i) CHECK_THAT(w2[i], WithinAbs(w1[i], 1e-5));  // float32 weights
        for (double v : per_pixel) CHECK_THAT(v, WithinAbs(1.0, 1e-5));
    }
}

TEST_CASE("integrate_radial's matrix holds each pixel once per azimuth row", "[cpu][azimuthal][csr]") {
    const Geometry g = split_geometry();
    CsrSpec s;
    s.unit = Radial::two_theta_deg;
    s.bins = 12;
    s.range = std::make_pair(0.5, 2.5);
    s.azimuth_bins = 9;
    s.split = PixelSplit::bbox;
    const Csr cake = build_csr(g, s);
    const Csr m = merge_radial(cake);
    CHECK(m.bins == 9);
    CHECK(m.unit == Radial::chi_deg);
    CHECK(m.bin_centers == cake.azimuth_centers);
    const auto frame = npy("frame");
    const auto [cs, cc] = sums(cake, frame);
    const auto [ms, mc] = sums(m, frame);
    for (size_t a = 0; a < 9; ++a) {
        double s_sum = 0, c_sum = 0;
        for (size_t r = 0; r < 12; ++r) s_sum += cs[a * 12 + r], c_sum += cc[a * 12 + r];
        CHECK_THAT(ms[a], WithinRel(s_sum, 1e-6));
        CHECK_THAT(mc[a], WithinRel(c_sum, 1e-6));
        for (int32_t e = m.indptr[a] + 1; e < m.indptr[a + 1]; ++e)
            CHECK(m.indices[size_t(e)] > m.indices[size_t(e) - 1]);
    }
    CHECK_THROWS_WITH(merge_radial(build_csr(g, Radial::q_nm, 10, std::nullopt, PixelSplit::none)),
                      Catch::Contains("no cake"));
}

TEST_CASE("cake and azimuth range arguments are checked", "[cpu][azimuthal][csr]") {
    const Geometry g = split_geometry();
    CsrSpec s;
    s.bins = 10;
    s.azimuth_bins = 4;
    s.azimuth_range = std::make_pair(150.0, -150.0);
    CHECK_THROWS_WITH(build_csr(g, s), Catch::Contains("lo < hi within [-180, 180]"));
    s.azimuth_range = std::make_pair(0.0, 200.0);
    CHECK_THROWS_AS(build_csr(g, s), InvalidArgument);
    s.azimuth_range = std::make_pair(10.0, 10.0);
    CHECK_THROWS_AS(build_csr(g, s), InvalidArgument);
    s.azimuth_range.reset();
    s.unit = Radial::chi_deg;
    CHECK_THROWS_WITH(build_csr(g, s), Catch::Contains("chi is already the integration axis"));
}
