// GPU error models and sigma clipping against the CPU reference (itself
// checked against pyFAI 0.21.3 in tests/cpu/test_pyfai_stats.cpp): the
// azimuthal model in whole rows, in segments of rows and with pyFAI's two
// kernels; the Poisson variance with and without the dark; sigma clipping
// with Chauvenet's and fixed thresholds in every error model.
#include <algorithm>
#include <random>

#include "azimuthal_support.hpp"
#include "kiln/azimuthal.hpp"
#include "support.hpp"

using namespace kiln;
using EM = kiln::IntegrateParams::ErrorModel;

namespace {

using test::frame_of;
using test::require_profile;
using test::setup_for;

// Poisson counts around 40 with a hot pixel in 97: something to clip.
HostArray hot_frame(const Geometry& g, uint32_t seed) {
    std::mt19937 rng(seed);
    std::poisson_distribution<int> pd(40);
    std::vector<uint32_t> v(g.rows * g.cols);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint32_t(pd(rng)) + (i % 97 == 0 ? 5000u : 0u);
    return HostArray::from(Shape{g.rows, g.cols}, v);
}

}  // namespace

TEST_CASE("azimuthal error model matches cpu::integrate", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = test::small_geometry();
    const Shape shape{g.rows, g.cols};
    for (auto acc : {Accumulation::float64, Accumulation::compensated})
        for (auto kernels : {AzimuthalKernels::fused, AzimuthalKernels::separate})
            for (bool split : {false, true}) {
                INFO("compensated " << (acc == Accumulation::compensated) << " separate "
                                    << (kernels == AzimuthalKernels::separate) << " split " << split);
                AzimuthalSetup s = setup_for(g, split, acc, 19);
                s.kernels = kernels;
                s.error_model = EM::azimuthal;
                s.dark = test::random(shape, DType::float32, 40, 0, 10);
                s.flat = test::random(shape, DType::float32, 41, 0.6, 1.4);
                s.solid_angle = true;
                AzimuthalIntegrator integ(ctx, s);
                const HostArray frame = frame_of(g, DType::uint16, 42);
                const auto want = cpu::integrate(integ.csr(), frame, integ.cpu_params());
                require_profile(integ.integrate(Array::from_host(ctx, frame)), want, 1e-5);
            }
}

TEST_CASE("azimuthal error model in rows cut into segments", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = test::small_geometry();
    for (auto acc : {Accumulation::float64, Accumulation::compensated})
        for (size_t segment : {size_t(7), size_t(40)}) {
            INFO("compensated " << (acc == Accumulation::compensated) << " segment " << segment);
            AzimuthalSetup s = setup_for(g, true, acc, 11);
            s.error_model = EM::azimuthal;
            s.segment_entries = segment;  // rows of 100 to 300 entries: many segments, merged in order
            s.solid_angle = true;
            s.range = std::make_pair(5.0, 60.0);  // some bins past the detector: empty rows
            s.empty = -2;
            AzimuthalIntegrator integ(ctx, s);
            const auto& c = integ.csr();
            int32_t longest = 0;
            for (size_t k = 0; k < c.bins; ++k) longest = std::max(longest, c.indptr[k + 1] - c.indptr[k]);
            REQUIRE(size_t(longest) > 2 * segment);
            std::vector<HostArray> host;
            const Array frames = test::frame_stack(ctx, g, 2, 43, host);
            const AzimuthalResult r = integ.integrate(frames);
            for (size_t k = 0; k < 2; ++k) {
                INFO("frame " << k);
                const auto want = cpu::integrate(integ.csr(), host[k], integ.cpu_params());
                CHECK(want.intensity.back() == -2);
                require_profile(r, want, 1e-5, k);
            }
        }
}

TEST_CASE("Poisson variance with and without the dark", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = test::small_geometry();
    const Shape shape{g.rows, g.cols};
    for (bool dark_variance : {true, false})
        for (auto kernels : {AzimuthalKernels::fused, AzimuthalKernels::separate}) {
            INFO("dark variance " << dark_variance << " separate " << (kernels == AzimuthalKernels::separate));
            AzimuthalSetup s = setup_for(g, false, Accumulation::automatic, 17);
            s.kernels = kernels;
            s.dark = test::random(shape, DType::float32, 50, 0, 30);
            s.dark_variance = dark_variance;
            AzimuthalIntegrator integ(ctx, s);
            CHECK(integ.cpu_params().dark_variance == dark_variance);
            const HostArray frame = frame_of(g, DType::int32, 51);
            const Array f = Array::from_host(ctx, frame);
            const auto want = cpu::integrate(integ.csr(), frame, integ.cpu_params());
            require_profile(integ.integrate(f), want, 1e-5);
            require_profile(integ.sigma_clip(f, 2.0, 3), cpu::sigma_clip(integ.csr(), frame, integ.cpu_params(), 2.0, 3),
                            1e-5);
            // The pre-processed variance is max(raw, 1), plus the dark when asked.
            const auto pre = integ.preprocess(f).to_vector<float>();
            const auto terms = cpu::preprocess(frame, integ.pixels(), integ.cpu_params());
            for (size_t i = 0; i < integ.pixels(); i += 37) {
                INFO("pixel " << i);
                const double raw = frame.at(i), dark = s.dark->at(i);
                CHECK(terms.variance[i] == std::max(raw, 1.0) + (dark_variance ? dark : 0.0));
                CHECK(pre[4 * i + 1] == Approx(terms.variance[i]).epsilon(1e-6));
            }
        }
}

TEST_CASE("sigma clipping with Chauvenet's and fixed thresholds in every error model", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = test::small_geometry();
    const Shape shape{g.rows, g.cols};
    const HostArray frame = hot_frame(g, 60);
    const Array f = Array::from_host(ctx, frame);
    for (auto acc : {Accumulation::float64, Accumulation::compensated})
        for (EM model : {EM::poisson, EM::variance, EM::azimuthal}) {
            AzimuthalSetup s = setup_for(g, false, acc, 13);
            s.error_model = model;
            s.solid_angle = true;
            s.flat = test::random(shape, DType::float32, 61, 0.6, 1.4);
            if (model == EM::variance) s.variance = test::random(shape, DType::float32, 62, 20, 80);
            AzimuthalIntegrator integ(ctx, s);
            const auto plain = cpu::integrate(integ.csr(), frame, integ.cpu_params());
            for (auto threshold : {ClipThreshold::chauvenet, ClipThreshold::fixed})
                for (double kappa : {0.0, 1.5, 3.0})
                    for (int iters : {1, 5}) {
                        if (threshold == ClipThreshold::fixed && kappa == 0) continue;
                        INFO("compensated " << (acc == Accumulation::compensated) << " model " << int(model)
                                            << " chauvenet " << (threshold == ClipThreshold::chauvenet) << " kappa "
                                            << kappa << " max_iter " << iters);
                        const auto want =
                            cpu::sigma_clip(integ.csr(), frame, integ.cpu_params(), kappa, iters, threshold);
                        double dropped = 0;
                        for (size_t k = 0; k < plain.count.size(); ++k) dropped += plain.count[k] - want.count[k];
                        CHECK(dropped > 0);
                        require_profile(integ.sigma_clip(f, kappa, iters, threshold), want, 1e-5);
                    }
        }
}
