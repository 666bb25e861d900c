// CPU azimuthal integration against a plain loop over pixels, hand cases for
// each correction and error model, and sigma clipping.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "kiln/error.hpp"
#include "kiln/reference/integrate.hpp"

using namespace kiln;
using namespace kiln::cpu;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using EM = IntegrateParams::ErrorModel;

namespace {

// 37 x 41 pixels, beam off the detector (so no pixel needs the beam case).
Geometry test_geometry() {
    return Geometry{37, 41, 75e-6, 75e-6, 0.05, -20 * 75e-6, 5 * 75e-6, 0.02, -0.03, 0.1, 1.0e-10};
}

// One row of four 1 mm pixels, 1 m away: in one bin they are a hand-sized case.
Geometry row_of_four() {
    return Geometry{1, 4, 1e-9, 1e-3, 1.0, 0.5e-9, 0.0, 0, 0, 0, 1e-10};
}

template <typename T>
HostArray random_frame(const Geometry& g, uint32_t seed, double mean) {
    std::mt19937 rng(seed);
    std::poisson_distribution<int> pd(mean);
    std::vector<T> v(g.rows * g.cols);
    for (auto& x : v) x = T(pd(rng));
    return HostArray::from(Shape{g.rows, g.cols}, v);
}

// The reference: for each pixel, its weight in each bin (dense, from the
// definition), then the sums of the issue, pixel by pixel.
std::vector<std::vector<double>> dense_weights(const Geometry& g, Radial unit, size_t bins, double lo,
                                               double hi, bool split) {
    const size_t n = g.rows * g.cols;
    std::vector<std::vector<double>> w(n, std::vector<double>(bins, 0.0));
    const auto centres = radial_centers(g, unit);
    const auto corners = radial_corners(g, unit);
    const double width = (hi - lo) / bins;
    for (size_t i = 0; i < g.rows; ++i)
        for (size_t j = 0; j < g.cols; ++j) {
            const size_t p = i * g.cols + j, cw = g.cols + 1;
            if (!split) {
                const double v = centres[p];
                if (v >= lo && v <= hi) w[p][std::min(size_t((v - lo) / width), bins - 1)] = 1;
                continue;
            }
            // pyFAI's box: the centre +- the largest |corner - centre|.
            double d = 0;
            for (size_t k : {i * cw + j, i * cw + j + 1, (i + 1) * cw + j, (i + 1) * cw + j + 1})
                d = std::max(d, std::abs(corners[k] - centres[p]));
            const double a = centres[p] - d, b = centres[p] + d;
            for (size_t k = 0; k < bins; ++k) {
                const double e0 = lo + k * width, e1 = lo + (k + 1) * width;
                w[p][k] = std::max(0.0, std::min(b, e1) - std::max(a, e0)) / (b - a);
            }
        }
    return w;
}

Profile1d plain_loop(const std::vector<std::vector<double>>& w, size_t bins, const HostArray& frame,
                     const IntegrateParams& p) {
    Profile1d r;
    for (auto* v : {&r.sum_signal, &r.sum_variance, &r.sum_normalization, &r.sum_normalization_sq, &r.count})
        v->assign(bins, 0.0);
    for (size_t i = 0; i < frame.size(); ++i) {
        const double raw = frame.at(i);
        if (p.mask && (*p.mask)[i]) continue;
        if (p.dummy && std::abs(raw - *p.dummy) <= p.delta_dummy) continue;
        const double dark = p.dark ? p.dark->at(i) : 0.0;
        const double norm = (p.flat ? p.flat->at(i) : 1.0) * (p.solid_angle ? (*p.solid_angle)[i] : 1.0) *
                            (p.polarization ? (*p.polarization)[i] : 1.0);
        const double var = p.error_model == EM::poisson    ? std::max(raw, 1.0) + dark
                           : p.error_model == EM::variance ? p.variance->at(i)
                                                           : 0.0;
        if (!std::isfinite(raw - dark) || !std::isfinite(norm) || norm == 0) continue;
        for (size_t k = 0; k < bins; ++k) {
            const double c = w[i][k];
            if (c == 0) continue;
            r.sum_signal[k] += c * (raw - dark);
            r.sum_variance[k] += c * c * var;
            r.sum_normalization[k] += c * norm;
            r.sum_normalization_sq[k] += c * c * norm * norm;
            r.count[k] += c;
        }
    }
    return r;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double rel) {
    REQUIRE(got.size() == want.size());
    for (size_t k = 0; k < got.size(); ++k) {
        INFO("bin " << k);
        CHECK_THAT(got[k], WithinRel(want[k], rel) || WithinAbs(want[k], 1e-9));
    }
}

}  // namespace

TEST_CASE("integration matches a plain loop over pixels", "[cpu][azimuthal][integrate]") {
    const Geometry g = test_geometry();
    const size_t n = g.rows * g.cols, bins = 29;
    const double lo = 4.5, hi = 8.0;  // q spans 3.9 to 8.5 nm^-1: some pixels fall outside
    const auto sa = solid_angle(g);
    const auto pol = polarization(g, 0.9);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(0.8f, 1.2f);
    std::vector<float> flat_v(n), dark_v(n);
    std::vector<uint8_t> mask(n);
    for (size_t i = 0; i < n; ++i) {
        flat_v[i] = u(rng);
        dark_v[i] = u(rng) * 2.0f;
        mask[i] = (rng() % 20) == 0;
    }
    const HostArray flat = HostArray::from(Shape{g.rows, g.cols}, flat_v);
    const HostArray dark = HostArray::from(Shape{g.rows, g.cols}, dark_v);

    std::vector<HostArray> frames = {random_frame<uint8_t>(g, 1, 9.0), random_frame<uint16_t>(g, 2, 300.0),
                                     random_frame<uint32_t>(g, 3, 5.0), random_frame<int32_t>(g, 4, 40.0),
                                     random_frame<float>(g, 5, 70.0)};
    frames.back().as<float>()[17] = std::numeric_limits<float>::quiet_NaN();

    for (bool split : {false, true}) {
        const Csr m = build_csr(g, Radial::q_nm, bins, std::make_pair(lo, hi), split ? PixelSplit::bbox : PixelSplit::none);
        const auto w = dense_weights(g, Radial::q_nm, bins, lo, hi, split);
        for (const HostArray& f : frames) {
            IntegrateParams p;
            p.dark = &dark;
            p.flat = &flat;
            p.solid_angle = &sa;
            p.polarization = &pol;
            p.mask = &mask;
            p.dummy = 7.0;  // Poisson draws hit 7 often enough to matter
            INFO("dtype " << dtype_name(f.dtype) << (split ? " split" : " no split"));
            const Profile1d got = integrate(m, f, p);
            const Profile1d want = plain_loop(w, bins, f, p);
            // Weights are float32 in the matrix and double in the reference.
            const double rel = split ? 1e-6 : 1e-12;
            check_close(got.sum_signal, want.sum_signal, rel);
            check_close(got.sum_variance, want.sum_variance, rel);
            check_close(got.sum_normalization, want.sum_normalization, rel);
            check_close(got.sum_normalization_sq, want.sum_normalization_sq, rel);
            check_close(got.count, want.count, rel);
            for (size_t k = 0; k < bins; ++k) {
                REQUIRE(want.sum_normalization[k] > 0);
                CHECK_THAT(got.intensity[k], WithinRel(want.sum_signal[k] / want.sum_normalization[k], 1e-6));
                CHECK_THAT(got.sem[k],
                           WithinRel(std::sqrt(want.sum_variance[k]) / want.sum_normalization[k], 1e-6));
                CHECK_THAT(got.std[k],
                           WithinRel(std::sqrt(want.sum_variance[k] / want.sum_normalization_sq[k]), 1e-6));
                CHECK(got.sigma[k] == got.sem[k]);
                CHECK(got.radial[k] == m.bin_centers[k]);
            }
        }
    }
}

TEST_CASE("integration of four pixels by hand", "[cpu][azimuthal][integrate]") {
    const Geometry g = row_of_four();
    const double top = std::atan(4e-3) * 180 / std::numbers::pi;
    // Two bins: all four pixels fall in the first, the second stays empty.
    const Csr m = build_csr(g, Radial::two_theta_deg, 2, std::make_pair(0.0, 2 * top), PixelSplit::none);
    REQUIRE(m.indptr == std::vector<int32_t>{0, 4, 4});
    const HostArray frame = HostArray::from(Shape{1, 4}, std::vector<uint16_t>{1, 2, 3, 4});
    IntegrateParams p;
    p.empty = -1;

    SECTION("no corrections, Poisson variance") {
        const Profile1d r = integrate(m, frame, p);
        CHECK(r.intensity[0] == 2.5);
        CHECK(r.sum_signal[0] == 10);
        CHECK(r.sum_variance[0] == 10);
        CHECK(r.sum_normalization[0] == 4);
        CHECK(r.count[0] == 4);
        CHECK_THAT(r.sem[0], WithinRel(std::sqrt(10.0) / 4, 1e-15));
        CHECK_THAT(r.std[0], WithinRel(std::sqrt(10.0 / 4), 1e-15));
        CHECK(r.intensity[1] == -1);
        CHECK(r.sigma[1] == -1);
        CHECK(r.count[1] == 0);
    }
    SECTION("dummy, mask and flat") {
        p.dummy = 4.0;
        CHECK(integrate(m, frame, p).intensity[0] == 2.0);
        p.dummy = 3.9;
        p.delta_dummy = 0.2;
        CHECK(integrate(m, frame, p).count[0] == 3);
        p.dummy.reset();
        const std::vector<uint8_t> mask = {1, 0, 0, 0};
        p.mask = &mask;
        CHECK(integrate(m, frame, p).intensity[0] == 3.0);
        p.mask = nullptr;
        const HostArray flat = HostArray::from(Shape{1, 4}, std::vector<float>{1, 1, 1, 2});
        p.flat = &flat;
        const Profile1d r = integrate(m, frame, p);
        CHECK(r.intensity[0] == 2.0);  // 10 / (1 + 1 + 1 + 2)
        CHECK(r.sum_normalization_sq[0] == 7);
        CHECK_THAT(r.std[0], WithinRel(std::sqrt(10.0 / 7), 1e-15));
    }
    SECTION("dark current") {
        const HostArray dark = HostArray::from(Shape{1, 4}, std::vector<float>{1, 1, 1, 1});
        p.dark = &dark;
        const Profile1d r = integrate(m, frame, p);
        CHECK(r.intensity[0] == 1.5);    // (0 + 1 + 2 + 3) / 4
        CHECK(r.sum_variance[0] == 14);  // Poisson: raw + dark per pixel
    }
    SECTION("zero counts still carry Poisson variance 1") {
        const HostArray zeros = HostArray::from(Shape{1, 4}, std::vector<int32_t>{0, 0, 0, 0});
        const Profile1d r = integrate(m, zeros, p);
        CHECK(r.intensity[0] == 0);
        CHECK(r.sem[0] == 0.5);  // sqrt(4) / 4
    }
    SECTION("given variance, and no error model") {
        const HostArray var = HostArray::from(Shape{1, 4}, std::vector<double>{4, 4, 4, 4});
        p.error_model = EM::variance;
        p.variance = &var;
        CHECK(integrate(m, frame, p).sem[0] == 1.0);
        p.error_model = EM::none;
        const Profile1d r = integrate(m, frame, p);
        CHECK(r.sem[0] == 0);
        CHECK(r.intensity[0] == 2.5);
    }
    SECTION("wrong sizes and a missing variance are refused") {
        const HostArray small = HostArray::from(Shape{3}, std::vector<uint16_t>{1, 2, 3});
        CHECK_THROWS_AS(integrate(m, small, p), InvalidArgument);
        p.dark = &small;
        CHECK_THROWS_AS(integrate(m, frame, p), InvalidArgument);
        p.dark = nullptr;
        p.error_model = EM::variance;
        CHECK_THROWS_AS(integrate(m, frame, p), InvalidArgument);
        p.error_model = EM::poisson;
        Csr bad = m;
        bad.indices[2] = 4;  // a pixel the 1x4 detector does not have
        CHECK_THROWS_AS(integrate(bad, frame, p), InvalidArgument);
    }
}

TEST_CASE("sigma clipping drops outliers per ring", "[cpu][azimuthal][integrate][sigma_clip]") {
    SECTION("one ring by hand: 99 pixels at 100, one at 1000") {
        // 10 x 10 pixels, one bin holding them all.
        const Geometry g{10, 10, 1e-4, 1e-4, 0.1, 0, 0, 0, 0, 0, 1e-10};
        const Csr m = build_csr(g, Radial::two_theta_deg, 1, std::nullopt, PixelSplit::none);
        std::vector<uint32_t> v(100, 100);
        v[37] = 1000;
        const HostArray frame = HostArray::from(Shape{10, 10}, v);
        // Pass 1: mean 109, std sqrt(10900 / 100) = 10.4; only 1000 lies
        // beyond 3 std. Pass 2: mean 100, std 10, nothing more to drop.
        const Profile1d r = sigma_clip(m, frame, IntegrateParams{}, 3.0, 5);
        CHECK(r.count[0] == 99);
        CHECK(r.intensity[0] == 100);
        CHECK(r.sum_signal[0] == 9900);
        CHECK(sigma_clip(m, frame, IntegrateParams{}, 3.0, 0).count[0] == 100);
    }
    SECTION("clipping injected outliers equals masking them") {
        const Geometry g = test_geometry();
        const auto sa = solid_angle(g);
        HostArray frame = random_frame<uint32_t>(g, 8, 1000.0);
        std::vector<uint8_t> outliers(g.rows * g.cols, 0);
        auto values = frame.as<uint32_t>();
        for (size_t i = 11; i < values.size(); i += 149) {
            values[i] = 3000;  // ~60 std out, yet too small to drag the mean past the cut
            outliers[i] = 1;
        }
        for (bool split : {false, true}) {
            const Csr m = build_csr(g, Radial::q_nm, 17, std::nullopt, split ? PixelSplit::bbox : PixelSplit::none);
            IntegrateParams p;
            p.solid_angle = &sa;
            const Profile1d clipped = sigma_clip(m, frame, p, 5.0, 5);
            p.mask = &outliers;
            const Profile1d masked = integrate(m, frame, p);
            INFO((split ? "split" : "no split"));
            check_close(clipped.intensity, masked.intensity, 1e-12);
            check_close(clipped.count, masked.count, 1e-12);
            check_close(clipped.sem, masked.sem, 1e-12);
        }
    }
    SECTION("clipping needs an error model") {
        const Geometry g = row_of_four();
        const Csr m = build_csr(g, Radial::two_theta_deg, 1, std::nullopt, PixelSplit::none);
        const HostArray frame = HostArray::from(Shape{1, 4}, std::vector<uint16_t>{1, 2, 3, 4});
        IntegrateParams p;
        p.error_model = EM::none;
        CHECK_THROWS_AS(sigma_clip(m, frame, p), InvalidArgument);
    }
}
