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
    }
}
