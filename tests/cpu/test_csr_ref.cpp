// The pixel -> bin CSR matrix: structure, weight sums, a histogram computed
// independently, and small detectors checked by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <numbers>

#include "kiln/csr.hpp"
#include "kiln/error.hpp"

using namespace kiln;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// 37 x 41 pixels with the beam near one corner and all rotations non-zero.
Geometry test_geometry() {
    return Geometry{37, 41, 75e-6, 75e-6, 0.05, 3 * 75e-6, 5 * 75e-6, 0.02, -0.03, 0.1, 1.0e-10};
}

// Per-pixel weight sums and the checks every matrix must pass.
std::vector<double> check_structure(const Csr& m) {
    REQUIRE(m.indptr.size() == m.bins + 1);
    REQUIRE(m.indptr.front() == 0);
    REQUIRE(size_t(m.indptr.back()) == m.nnz());
    REQUIRE(m.data.size() == m.nnz());
    REQUIRE(m.bin_centers.size() == m.bins);
    std::vector<double> per_pixel(m.pixels, 0.0);
    for (size_t k = 0; k < m.bins; ++k) {
        REQUIRE(m.indptr[k] <= m.indptr[k + 1]);
        for (int32_t e = m.indptr[k]; e < m.indptr[k + 1]; ++e) {
            if (e > m.indptr[k]) REQUIRE(m.indices[e - 1] < m.indices[e]);
            REQUIRE(m.indices[e] >= 0);
            REQUIRE(size_t(m.indices[e]) < m.pixels);
            REQUIRE(m.data[e] > 0.0f);
            REQUIRE(m.data[e] <= 1.0f + 1e-6f);
            per_pixel[m.indices[e]] += m.data[e];
        }
    }
    return per_pixel;
}

}  // namespace

TEST_CASE("CSR without splitting is a histogram of pixel centres", "[cpu][azimuthal][csr]") {
    const Geometry g = test_geometry();
    const auto centres = radial_centers(g, Radial::q_nm);
    const size_t bins = 23;
    const double lo = 1.0, hi = 4.0;
    const Csr m = build_csr(g, Radial::q_nm, bins, std::make_pair(lo, hi), PixelSplit::none);
    const auto per_pixel = check_structure(m);

    std::vector<size_t> hist(bins, 0);  // numpy.histogram's rule: last bin closed
    size_t inside = 0;
    for (double v : centres) {
        if (v < lo || v > hi) continue;
        ++inside;
        ++hist[std::min(size_t((v - lo) / (hi - lo) * bins), bins - 1)];
    }
    REQUIRE(inside > 100);
    REQUIRE(inside < centres.size());  // the range cuts some pixels off
    for (size_t k = 0; k < bins; ++k) {
        double row_sum = 0;
        for (int32_t e = m.indptr[k]; e < m.indptr[k + 1]; ++e) {
            CHECK(m.data[e] == 1.0f);
            row_sum += m.data[e];
        }
        CHECK(row_sum == double(hist[k]));
        CHECK_THAT(m.bin_centers[k], WithinRel(lo + (k + 0.5) * (hi - lo) / bins, 1e-12));
    }
    CHECK(m.nnz() == inside);
    for (size_t p = 0; p < m.pixels; ++p) {
        const bool in = centres[p] >= lo && centres[p] <= hi;
        CHECK(per_pixel[p] == (in ? 1.0 : 0.0));
    }
}

TEST_CASE("CSR automatic range covers every unmasked pixel", "[cpu][azimuthal][csr]") {
    const Geometry g = test_geometry();
    std::vector<uint8_t> mask(g.rows * g.cols, 0);
    for (size_t p = 0; p < mask.size(); p += 7) mask[p] = 1;
    const Csr m = build_csr(g, Radial::two_theta_deg, 50, std::nullopt, PixelSplit::none, &mask);
    const auto per_pixel = check_structure(m);
    const auto centres = radial_centers(g, Radial::two_theta_deg);
    double lo = 1e9, hi = -1e9;
    for (size_t p = 0; p < mask.size(); ++p) {
        CHECK(per_pixel[p] == (mask[p] ? 0.0 : 1.0));
        if (!mask[p]) lo = std::min(lo, centres[p]), hi = std::max(hi, centres[p]);
    }
    CHECK(m.range_lo == lo);
    CHECK(m.range_hi == hi);
    // The outermost pixel lands in the last bin, not past it.
    CHECK(m.indptr[50] > m.indptr[49]);
}

TEST_CASE("CSR with pixel splitting: weights are overlap fractions", "[cpu][azimuthal][csr]") {
    const Geometry g = test_geometry();
    const auto corners = radial_corners(g, Radial::q_nm);
    SECTION("a range holding every pixel: each pixel's weights sum to 1") {
        const Csr m = build_csr(g, Radial::q_nm, 40, std::nullopt, PixelSplit::bbox);
        const auto per_pixel = check_structure(m);
        for (double s : per_pixel) CHECK_THAT(s, WithinAbs(1.0, 1e-5));
        CHECK(m.nnz() > m.pixels);  // some pixels are shared
    }
    SECTION("a narrower range keeps each pixel's inside fraction") {
        const double lo = 1.5, hi = 3.5;
        const Csr m = build_csr(g, Radial::q_nm, 31, std::make_pair(lo, hi), PixelSplit::bbox);
        const auto per_pixel = check_structure(m);
        const auto centres = radial_centers(g, Radial::q_nm);
        size_t partial = 0;
        for (size_t i = 0; i < g.rows; ++i)
            for (size_t j = 0; j < g.cols; ++j) {
                // pyFAI's box: centre +- the largest |corner - centre|.
                const size_t cw = g.cols + 1;
                const double q = centres[i * g.cols + j];
                double d = 0;
                for (size_t k : {i * cw + j, i * cw + j + 1, (i + 1) * cw + j, (i + 1) * cw + j + 1})
                    d = std::max(d, std::abs(corners[k] - q));
                const double a = q - d, b = q + d;
                const double inside = std::max(0.0, std::min(b, hi) - std::max(a, lo)) / (b - a);
                if (inside > 0 && inside < 1) ++partial;
                CHECK_THAT(per_pixel[i * g.cols + j], WithinAbs(inside, 1e-5));
            }
        CHECK(partial > 10);
    }
}

TEST_CASE("CSR of a 1x4 detector by hand", "[cpu][azimuthal][csr]") {
    // One row of 1 mm pixels starting at the beam, 1 m away; rows so thin that
    // only x matters: pixel j spans 2theta = atan(j mm / 1 m) .. atan((j+1) mm / 1 m).
    Geometry g{1, 4, 1e-9, 1e-3, 1.0, 0.5e-9, 0.0, 0, 0, 0, 1e-10};
    const double deg = 180 / std::numbers::pi;
    const double top = std::atan(4e-3) * deg;
    SECTION("no splitting, 2 bins over [0, top]") {
        const Csr m = build_csr(g, Radial::two_theta_deg, 2, std::make_pair(0.0, top), PixelSplit::none);
        CHECK(m.indptr == std::vector<int32_t>{0, 2, 4});
        CHECK(m.indices == std::vector<int32_t>{0, 1, 2, 3});
        CHECK(m.data == std::vector<float>{1, 1, 1, 1});
        CHECK_THAT(m.bin_centers[0], WithinRel(top / 4, 1e-12));
        CHECK_THAT(m.bin_centers[1], WithinRel(3 * top / 4, 1e-12));
    }
    SECTION("splitting, 8 bins over [0, top]: each pixel halves into two bins") {
        const Csr m = build_csr(g, Radial::two_theta_deg, 8, std::make_pair(0.0, top), PixelSplit::bbox);
        // atan is linear here to 1e-5, so bin edges fall on pixel edges and midpoints.
        std::map<std::pair<int, int>, double> w;
        for (int k = 0; k < 8; ++k)
            for (int32_t e = m.indptr[k]; e < m.indptr[k + 1]; ++e) {
                if (m.data[e] > 1e-3)
                    w[{k, m.indices[e]}] = m.data[e];
                else
                    CHECK(m.data[e] < 1e-4);  // slivers from the nonlinearity only
            }
        REQUIRE(w.size() == 8);
        for (int k = 0; k < 8; ++k) CHECK_THAT(w[std::make_pair(k, k / 2)], WithinAbs(0.5, 1e-4));
    }
    SECTION("splitting, range [top/2, top]: pixels 2 and 3 whole, 0 and 1 dropped") {
        const Csr m = build_csr(g, Radial::two_theta_deg, 1, std::make_pair(top / 2, top), PixelSplit::bbox);
        REQUIRE(m.nnz() >= 2);
        double sum = 0;
        for (size_t e = 0; e < m.nnz(); ++e) {
            if (m.indices[e] < 2) CHECK(m.data[e] < 1e-4);
            sum += m.data[e];
        }
        CHECK_THAT(sum, WithinAbs(2.0, 1e-4));
    }
}

TEST_CASE("CSR pixel holding the direct beam starts at 0", "[cpu][azimuthal][csr]") {
    // Beam in the middle of pixel (1, 1) of a 3x3 detector: its corners all sit
    // at the same 2theta t, its centre at 0; pyFAI's box is 0 +- t, of which
    // the half above 0 lies in the range [0, max].
    Geometry g{3, 3, 1e-4, 1e-4, 0.1, 1.5e-4, 1.5e-4, 0, 0, 0, 1e-10};
    const Csr m = build_csr(g, Radial::two_theta_deg, 10, std::nullopt, PixelSplit::bbox);
    check_structure(m);
    CHECK(m.range_lo == 0.0);
    std::vector<int> bins_of_centre;
    for (int k = 0; k < 10; ++k)
        for (int32_t e = m.indptr[k]; e < m.indptr[k + 1]; ++e)
            if (m.indices[e] == 4) bins_of_centre.push_back(k);
    CHECK(bins_of_centre.front() == 0);
    CHECK(bins_of_centre.size() > 1);
    double sum = 0;
    for (size_t e = 0; e < m.nnz(); ++e) sum += m.indices[e] == 4 ? m.data[e] : 0.0;
    CHECK_THAT(sum, WithinAbs(0.5, 1e-6));
}

TEST_CASE("CSR refuses bad arguments", "[cpu][azimuthal][csr]") {
    const Geometry g = test_geometry();
    CHECK_THROWS_AS(build_csr(g, Radial::q_nm, 0, std::nullopt, PixelSplit::none), InvalidArgument);
    CHECK_THROWS_AS(build_csr(g, Radial::q_nm, 10, std::make_pair(2.0, 2.0), PixelSplit::none), InvalidArgument);
    std::vector<uint8_t> short_mask(10, 0);
    CHECK_THROWS_AS(build_csr(g, Radial::q_nm, 10, std::nullopt, PixelSplit::none, &short_mask), InvalidArgument);
    std::vector<uint8_t> all_masked(g.rows * g.cols, 1);
    CHECK_THROWS_AS(build_csr(g, Radial::q_nm, 10, std::nullopt, PixelSplit::none, &all_masked), InvalidArgument);
    Geometry no_wavelength = g;
    no_wavelength.wavelength = 0;
    CHECK_THROWS_AS(build_csr(no_wavelength, Radial::q_nm, 10, std::nullopt, PixelSplit::none), InvalidArgument);
}
