// The CPU reference of the quantile filter per bin (cpu::medfilt) and of
// separate (cpu::interp, cpu::separate) against the fixtures of
// tests/data/pyfai/make_medfilt_fixtures.py: pyFAI 0.21.3's calcfrom1d and
// separate, and a NumPy implementation of pyFAI's medfilt1d_ng rule on pyFAI's
// own matrices; and the rule's corner cases by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "cpu_support.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"
#include "kiln/reference/integrate.hpp"
#include "kiln/reference/medfilt.hpp"

using namespace kiln;
using Catch::Matchers::WithinRel;

namespace {

HostArray fixture(const std::string& name) { return test::npy_fixture("pyfai/medfilt/" + name + ".npy"); }

std::vector<double> doubles(const std::string& name) {
    return test::npy_values(std::filesystem::path("pyfai") / "medfilt" / (name + ".npy"));
}

template <typename T> std::vector<T> values(const std::string& name) {
    const std::vector<double> d = doubles(name);
    return std::vector<T>(d.begin(), d.end());
}

// make_medfilt_fixtures.py's integrator().
Geometry fixture_geometry() { return Geometry{24, 28, 1e-3, 1e-3, 0.1, 9.3e-3, 11.6e-3, 0.05, -0.04, 0.0, 1.0e-10}; }

// pyFAI's matrix of the fixtures ("no" or "full" splitting).
Csr pyfai_csr(const std::string& split) {
    Csr c;
    c.indptr = values<int32_t>("medfilt_csr_" + split + "_indptr");
    c.indices = values<int32_t>("medfilt_csr_" + split + "_indices");
    c.data = values<float>("medfilt_csr_" + split + "_data");
    c.bin_centers = doubles("medfilt_csr_" + split + "_centers");
    c.bins = c.bin_centers.size();
    c.pixels = 24 * 28;
    c.unit = Radial::q_nm;
    c.split = split == "full" ? PixelSplit::full : PixelSplit::none;
    return c;
}

// A one-bin matrix of unit weights over n pixels.
Csr one_bin(size_t n) {
    Csr c;
    c.indptr = {0, int32_t(n)};
    for (size_t i = 0; i < n; ++i) c.indices.push_back(int32_t(i)), c.data.push_back(1.0f);
    c.bins = 1;
    c.pixels = n;
    c.bin_centers = {0.5};
    return c;
}

Profile1d median_of(const std::vector<double>& v, double lo = 0.5, double hi = 0.5) {
    IntegrateParams p;
    p.error_model = IntegrateParams::ErrorModel::none;
    return cpu::medfilt(one_bin(v.size()), HostArray::from(Shape{v.size()}, v), p, lo, hi);
}

}  // namespace

TEST_CASE("medfilt's rule: the median entry, both entries meeting at it, quantile ranges", "[cpu][azimuthal][medfilt]") {
    // Odd count: the middle value; even: the two middle ones, averaged.
    CHECK(median_of({5, 1, 3}).intensity[0] == 3);
    CHECK(median_of({5, 1, 3}).count[0] == 1);
    CHECK(median_of({4, 1, 3, 2}).intensity[0] == 2.5);
    CHECK(median_of({4, 1, 3, 2}).count[0] == 2);
    // Equal values: entries keep their row order, two of four are kept.
    CHECK(median_of({4, 4, 4, 4}).count[0] == 2);
    // Inside [0.25, 0.75] of 4 unit weights: the second and third values.
    CHECK(median_of({40, 10, 30, 20}, 0.25, 0.75).intensity[0] == 25);
    // An entry straddling a bound is left out: [0.1, 0.9] of 4 keeps 2 too.
    CHECK(median_of({40, 10, 30, 20}, 0.1, 0.9).count[0] == 2);
    CHECK(median_of({40, 10, 30, 20}, 0.0, 1.0).count[0] == 4);
    // Decimal quantiles are exact: 0.1 and 0.9 of 10 entries are 1 and 9,
    // so the entries from the second to the ninth lie inside.
    CHECK(median_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.1, 0.9).count[0] == 8);
    CHECK(median_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.1, 0.9).intensity[0] == 5.5);
    // Two entries of half the weight each: neither lies inside [0.1, 0.9]
    // nor covers it, so the bin keeps nothing and is empty.
    CHECK(median_of({1, 2}, 0.1, 0.9).count[0] == 0);
    CHECK(median_of({1, 2}, 0.1, 0.9).sum_normalization[0] == 0);
    // The lowest and highest quantiles: the smallest and the largest entry.
    CHECK(median_of({3, 9, 1}, 0, 0).intensity[0] == 1);
    CHECK(median_of({3, 9, 1}, 1, 1).intensity[0] == 9);
    CHECK_THROWS_AS(median_of({1}, 0.6, 0.4), InvalidArgument);
    CHECK_THROWS_AS(median_of({1}, 0.5, 1.01), InvalidArgument);
}

TEST_CASE("medfilt's fixed-point weights and keys", "[cpu][azimuthal][medfilt]") {
    const int K = cpu::medfilt_scale_exponent(1.0f, 1.0f);
    CHECK(K == 31);
    CHECK(cpu::medfilt_fixed_weight(1.0f, 1.0f, K) == 0x80000000u);
    CHECK(cpu::medfilt_fixed_weight(0.5f, 1.0f, K) == 0x40000000u);
    CHECK(cpu::medfilt_fixed_weight(0.3f, 0.7f, K) == uint32_t(std::floor(double(0.3f) * double(0.7f) * 0x1p31)));
    CHECK(cpu::medfilt_fixed_weight(0.0f, 1.0f, K) == 0);
    CHECK(cpu::medfilt_fixed_weight(1.0f, -1.0f, K) == 0);
    CHECK(cpu::medfilt_fixed_weight(1e-30f, 1.0f, K) == 0);  // below 2^-K: no weight
    // Large normalizations: K goes negative and the largest weight still fits.
    const int big = cpu::medfilt_scale_exponent(1.0f, 3e20f);
    CHECK(cpu::medfilt_fixed_weight(1.0f, 3e20f, big) >= 0x80000000u);
    CHECK(cpu::medfilt_order_key(-1.0f) < cpu::medfilt_order_key(-0.5f));
    CHECK(cpu::medfilt_order_key(-0.0f) == cpu::medfilt_order_key(0.0f));
    CHECK(cpu::medfilt_order_key(0.0f) < cpu::medfilt_order_key(1e-40f));
    CHECK(cpu::medfilt_order_key(-INFINITY) < cpu::medfilt_order_key(-3e38f));
    CHECK(cpu::medfilt_fixed_quantile(0.5) == 500000000u);
    CHECK(cpu::medfilt_fixed_quantile(0.1) == 100000000u);
    CHECK(cpu::medfilt_fixed_quantile(1.0) == 1000000000u);
}

TEST_CASE("medfilt matches a NumPy implementation of pyFAI's medfilt1d_ng rule", "[cpu][azimuthal][medfilt][pyfai]") {
    const HostArray frame = fixture("medfilt_frame");
    const auto mask = values<uint8_t>("medfilt_mask");
    const auto solid = values<float>("medfilt_solid");
    const auto polar = values<float>("medfilt_polar");
    for (const std::string split : {"no", "full"})
        for (const std::string name : {"plain", "corrected"})
            for (auto [lo, hi] : {std::pair{50, 50}, {10, 90}, {25, 75}, {0, 100}}) {
                INFO(split << " " << name << " " << lo << " " << hi);
                const Csr csr = pyfai_csr(split);
                IntegrateParams p;
                p.mask = &mask;
                if (name == "corrected") p.solid_angle = &solid, p.polarization = &polar;
                const Profile1d got = cpu::medfilt(csr, frame, p, lo / 100.0, hi / 100.0);
                char file[64];
                std::snprintf(file, sizeof file, "medfilt_%s_%s_%02d_%02d", split.c_str(), name.c_str(), lo, hi);
                const auto want = doubles(file);  // per bin: signal, norm, norm^2, count
                REQUIRE(want.size() == 4 * csr.bins);
                for (size_t k = 0; k < csr.bins; ++k) {
                    INFO("bin " << k);
                    // The same entries (the count exactly), summed in double
                    // in another order (NumPy's pairwise sums).
                    REQUIRE(got.count[k] == want[4 * k + 3]);
                    REQUIRE_THAT(got.sum_signal[k], WithinRel(want[4 * k], 1e-12));
                    REQUIRE_THAT(got.sum_normalization[k], WithinRel(want[4 * k + 1], 1e-12));
                    REQUIRE_THAT(got.sum_normalization_sq[k], WithinRel(want[4 * k + 2], 1e-12));
                }
                // The filter removes the hot pixels: the median stays near the
                // counts' mean 50 where integration is pulled up.
                if (lo == 50 && name == "plain") {
                    const Profile1d mean = cpu::integrate(csr, frame, p);
                    for (size_t k = 0; k < csr.bins; ++k)
                        if (got.sum_normalization[k] > 0) CHECK(got.intensity[k] < 70);
                    double pulled = 0;
                    for (size_t k = 0; k < csr.bins; ++k) pulled = std::max(pulled, mean.intensity[k]);
                    CHECK(pulled > 200);
                }
            }
}

TEST_CASE("a profile expanded to an image matches pyFAI's calcfrom1d", "[cpu][azimuthal][medfilt][pyfai]") {
    const auto curve = doubles("calcfrom1d_curve");
    const size_t n = curve.size() / 2;
    const std::vector<double> xp(curve.begin(), curve.begin() + long(n)), fp(curve.begin() + long(n), curve.end());
    const auto pos = doubles("calcfrom1d_pos");
    const auto solid64 = doubles("calcfrom1d_solid");  // float64 in pyFAI
    const auto polar64 = doubles("calcfrom1d_polar");  // float32 in pyFAI
    const auto image = doubles("calcfrom1d_image");
    // The interpolation with pyFAI's positions and corrections, multiplied
    // in pyFAI's order: the same numbers.
    const auto curve_at = cpu::interp(pos, xp, fp);
    size_t clamped = 0;
    for (size_t i = 0; i < pos.size(); ++i) {
        INFO("pixel " << i);
        REQUIRE(curve_at[i] * solid64[i] * polar64[i] == image[i]);
        clamped += pos[i] < xp.front() || pos[i] > xp.back();
        if (pos[i] < xp.front()) REQUIRE(curve_at[i] == fp.front());
    }
    CHECK(clamped > 10);  // both ends of the curve are used
    // cpu::separate takes the solid angle as float32 (IntegrateParams):
    // pyFAI's float64 solid angle rounded, 6e-8 relative at most.
    const std::vector<float> solid(solid64.begin(), solid64.end()), polar(polar64.begin(), polar64.end());
    Profile1d background;
    background.radial = xp;
    background.intensity = fp;
    IntegrateParams p;
    p.solid_angle = &solid;
    p.polarization = &polar;
    const HostArray zeros = HostArray::from(Shape{pos.size()}, std::vector<double>(pos.size(), 0.0));
    const cpu::Separation s = cpu::separate(zeros, pos, background, p);
    for (size_t i = 0; i < pos.size(); ++i) {
        INFO("pixel " << i);
        REQUIRE_THAT(s.amorphous[i], WithinRel(image[i], 1e-7));
        REQUIRE(s.bragg[i] == -s.amorphous[i]);
    }
    // kiln's own positions and corrections of that geometry: pyFAI computes
    // positions and solid angles partly in float32 (6e-7 relative, as
    // test_pyfai_ref.cpp measured); through the curve's slope that stays
    // below 1e-5 of the image.
    const Geometry g = fixture_geometry();
    const auto own_solid = solid_angle(g);
    const auto own_polar = polarization(g, 0.9);
    IntegrateParams own;
    own.solid_angle = &own_solid;
    own.polarization = &own_polar;
    const cpu::Separation t = cpu::separate(zeros, radial_centers(g, Radial::q_nm), background, own);
    for (size_t i = 0; i < pos.size(); ++i) REQUIRE_THAT(t.amorphous[i], WithinRel(image[i], 1e-5));
}

TEST_CASE("separate matches pyFAI 0.21's, given its background curve", "[cpu][azimuthal][medfilt][pyfai]") {
    // pyFAI 0.21's curve comes from its legacy medfilt1d (see the fixture
    // script); the expansion, the subtraction and the restored mask are
    // compared.
    const HostArray frame = fixture("separate_frame");
    const auto mask = values<uint8_t>("separate_mask");
    const auto pos = doubles("separate_pos");
    const auto curve = doubles("separate_curve");
    const auto solid = values<float>("separate_solid");  // pyFAI's float64, rounded: 6e-8 relative
    const auto bragg = doubles("separate_bragg");
    const auto amorphous = doubles("separate_amorphous");
    const size_t n = curve.size() / 2;
    Profile1d background;
    background.radial.assign(curve.begin(), curve.begin() + long(n));
    background.intensity.assign(curve.begin() + long(n), curve.end());
    IntegrateParams p;
    p.solid_angle = &solid;
    p.mask = &mask;
    const cpu::Separation s = cpu::separate(frame, pos, background, p, true);
    size_t masked = 0;
    for (size_t i = 0; i < pos.size(); ++i) {
        INFO("pixel " << i);
        REQUIRE_THAT(s.amorphous[i], WithinRel(amorphous[i], 1e-7));
        // bragg = frame - amorphous: the same absolute difference.
        REQUIRE(std::abs(s.bragg[i] - bragg[i]) <= 1e-7 * std::abs(amorphous[i]));
        if (mask[i]) {
            ++masked;
            REQUIRE(s.bragg[i] == frame.at(i));
            REQUIRE(s.amorphous[i] == frame.at(i));
        }
    }
    CHECK(masked == 21);
    const cpu::Separation kept = cpu::separate(frame, pos, background, p, false);
    for (size_t i = 0; i < pos.size(); ++i)
        if (mask[i]) REQUIRE(kept.bragg[i] == frame.at(i) - kept.amorphous[i]);
}
