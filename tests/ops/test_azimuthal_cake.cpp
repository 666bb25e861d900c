// GPU integration through 2-D cakes, 1-D sectors and integrate_radial's
// matrix against cpu::integrate over the same matrix (the matrices
// themselves are checked against pyFAI in tests/cpu/test_pyfai_split.cpp).
#include "azimuthal_support.hpp"
#include "kiln/azimuthal.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

AzimuthalSetup cake_setup(const kiln::Geometry& g, PixelSplit split) {
    AzimuthalSetup s;
    s.geometry = g;
    s.unit = Radial::two_theta_deg;
    s.bins = 13;
    s.azimuth_bins = 7;
    s.split = split;
    return s;
}

}  // namespace

TEST_CASE("cakes integrate as cpu::integrate over the same matrix, shaped (azimuth, radial)",
          "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = test::small_geometry();
    for (const PixelSplit split : {PixelSplit::none, PixelSplit::bbox, PixelSplit::full})
        for (const bool renormalize : {false, true}) {
            INFO(split_name(split) << " renormalize " << renormalize);
            AzimuthalSetup s = cake_setup(g, split);
            s.renormalize = renormalize;
            s.azimuth_range = std::make_pair(-120.0, 150.0);
            AzimuthalIntegrator integ(ctx, s);
            const Csr& m = integ.csr();
            CHECK(m.azimuth_bins == 7);
            CHECK(m.split == split);
            const HostArray frame = test::frame_of(g, DType::uint16, 50);
            const AzimuthalResult r = integ.integrate(Array::from_host(ctx, frame));
            CHECK(r.intensity.shape() == Shape{7, 13});
            CHECK(r.count.shape() == Shape{7, 13});
            CHECK(r.radial == std::vector<double>(m.bin_centers.begin(), m.bin_centers.begin() + 13));
            CHECK(r.azimuthal == m.azimuth_centers);
            test::require_profile(r, cpu::integrate(m, frame, integ.cpu_params()), 1e-5);

            std::vector<HostArray> host;
            const AzimuthalResult stack = integ.integrate(test::frame_stack(ctx, g, 2, 60, host));
            CHECK(stack.intensity.shape() == Shape{2, 7, 13});
            for (size_t f = 0; f < 2; ++f)
                test::require_profile(stack, cpu::integrate(m, host[f], integ.cpu_params()), 1e-5, f);
        }
}

TEST_CASE("sectors and integrate_radial's matrix integrate as cpu::integrate", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = test::small_geometry();
    const HostArray frame = test::frame_of(g, DType::float32, 70);
    SECTION("a 1-D sector") {
        AzimuthalSetup s = cake_setup(g, PixelSplit::full);
        s.azimuth_bins = 0;
        s.azimuth_range = std::make_pair(-30.0, 60.0);
        AzimuthalIntegrator integ(ctx, s);
        CHECK(integ.csr().azimuth_lo == -30.0);
        const AzimuthalResult r = integ.integrate(Array::from_host(ctx, frame));
        CHECK(r.intensity.shape() == Shape{13});
        CHECK(r.azimuthal.empty());
        test::require_profile(r, cpu::integrate(integ.csr(), frame, integ.cpu_params()), 1e-5);
    }
    SECTION("integrate_radial: a cake's radial bins merged") {
        CsrSpec spec{Radial::q_nm, 11, std::make_pair(2.0, 5.0), 9, std::nullopt, PixelSplit::bbox, false};
        AzimuthalSetup s;
        s.geometry = g;
        s.csr = std::make_shared<const Csr>(merge_radial(build_csr(g, spec)));
        AzimuthalIntegrator integ(ctx, s);
        const AzimuthalResult r = integ.integrate(Array::from_host(ctx, frame));
        CHECK(r.intensity.shape() == Shape{9});
        CHECK(r.radial == s.csr->bin_centers);  // chi, degrees
        test::require_profile(r, cpu::integrate(*s.csr, frame, integ.cpu_params()), 1e-5);

        // The same from the set-up's fields: the integrator merges its cake.
        AzimuthalSetup own = cake_setup(g, PixelSplit::bbox);
        own.unit = Radial::q_nm, own.bins = 11, own.range = std::make_pair(2.0, 5.0), own.azimuth_bins = 9;
        own.radial_sum = true;
        AzimuthalIntegrator merged(ctx, own);
        CHECK(merged.csr().indptr == s.csr->indptr);
        CHECK(merged.csr().indices == s.csr->indices);
        CHECK(merged.csr().data == s.csr->data);
        own.azimuth_bins = 0;
        CHECK_THROWS_WITH(AzimuthalIntegrator(ctx, own), Catch::Contains("radial_sum"));
    }
}

TEST_CASE("short rows, a subgroup each: every error model and accumulation as cpu::integrate", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = test::small_geometry();
    const HostArray frame = test::frame_of(g, DType::uint16, 70);
    // A detector's dark: a few counts (a dark as large as the frame would
    // leave signals that float32 sums cannot hold to 1e-5).
    std::vector<uint16_t> dark_counts(g.rows * g.cols);
    for (size_t i = 0; i < dark_counts.size(); ++i) dark_counts[i] = uint16_t((i * 7) % 10);
    const HostArray dark = HostArray::from(Shape{g.rows, g.cols}, dark_counts);
    using EM = IntegrateParams::ErrorModel;
    for (const EM model : {EM::none, EM::poisson, EM::azimuthal})
        for (const bool dark_variance : {true, false})
            for (const auto acc : {Accumulation::float64, Accumulation::compensated}) {
                if (acc == Accumulation::float64 && !ctx.device().float64) continue;
                // Float32 sums cannot give a bin of one pixel (or of equal
                // values) the azimuthal spread 0 exactly: its mean differs
                // from the value by an ulp, so sem is ~1e-7 of the value where
                // double gives 0. The model's float32 path is tested on
                // longer bins in test_azimuthal_models.cpp.
                if (model == EM::azimuthal && acc == Accumulation::compensated) continue;
                INFO("model " << int(model) << " dark_variance " << dark_variance << " compensated "
                              << (acc == Accumulation::compensated));
                AzimuthalSetup s = cake_setup(g, PixelSplit::bbox);
                s.bins = 40;
                s.azimuth_bins = 36;  // 1440 rows of about 1.3 entries
                s.error_model = model;
                s.dark = dark;
                s.dark_variance = dark_variance;
                s.solid_angle = true;
                s.accumulation = acc;
                AzimuthalIntegrator integ(ctx, s);
                // Short enough for integrate()'s subgroup-per-row mode
                // (azimuthal.cpp's subgroup_rows_below: 4 entries a lane).
                REQUIRE(integ.csr().nnz() < 4 * size_t(ctx.device().subgroup_size) * integ.bins());
                const AzimuthalResult r = integ.integrate(Array::from_host(ctx, frame));
                test::require_profile(r, cpu::integrate(integ.csr(), frame, integ.cpu_params()), 1e-5);
                std::vector<HostArray> host;
                const AzimuthalResult stack = integ.integrate(test::frame_stack(ctx, g, 3, 80, host));
                for (size_t f = 0; f < 3; ++f)
                    test::require_profile(stack, cpu::integrate(integ.csr(), host[f], integ.cpu_params()), 1e-5, f);
            }
}
