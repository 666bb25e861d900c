// Stress cases for the CSR azimuthal integration with rows cut into
// segments (azim_integrate: a workgroup per segment, the last segment of a
// bin to finish merges the partial sums in segment order): segments of a
// few entries, so every bin has tens to hundreds of them, for both
// accumulations and both kernel layouts, stacks of frames in a Graph and
// single frames; every bin as kiln::cpu::integrate's to the op tests'
// tolerance.
#include <algorithm>
#include <vector>

#include "azimuthal_support.hpp"
#include "kiln/azimuthal.hpp"
#include "kiln/graph.hpp"
#include "stress/stress_support.hpp"

using namespace kiln;
using namespace kiln::test::stress;
using test::frame_of;
using test::frame_stack;
using test::require_profile;

TEST_CASE("stress azimuthal: rows in many short segments merged by the last one", "[stress][azimuthal]") {
    Context ctx = test::context();
    kiln::Geometry g = test::larger_geometry();
    g.rows = scaled(g.rows);
    g.cols = scaled(g.cols);
    const Shape shape{g.rows, g.cols};
    struct Layout {
        Accumulation acc;
        AzimuthalKernels kernels;
        size_t segment, bins;
    };
    // Few long rows (7 bins: hundreds of segments each) to many short ones.
    const Layout layouts[] = {{Accumulation::float64, AzimuthalKernels::fused, 16, 43},
                              {Accumulation::float64, AzimuthalKernels::separate, 61, 7},
                              {Accumulation::compensated, AzimuthalKernels::fused, 61, 43},
                              {Accumulation::compensated, AzimuthalKernels::separate, 16, 7},
                              {Accumulation::float64, AzimuthalKernels::fused, 24, 500}};
    const size_t n = 3;
    repeat([&](uint64_t rep) {
        HostArray mask = test::random(shape, DType::uint8, 100 + rep, 0, 1);
        for (size_t i = 0; i < mask.size(); ++i) mask.as<uint8_t>()[i] &= i % 5 == 0;
        for (const Layout& l : layouts) {
            INFO("compensated " << (l.acc == Accumulation::compensated) << " separate "
                                << (l.kernels == AzimuthalKernels::separate) << " segment " << l.segment
                                << " bins " << l.bins);
            AzimuthalSetup s = test::setup_for(g, true, l.acc, l.bins);
            s.kernels = l.kernels;
            s.segment_entries = l.segment;
            s.range = std::make_pair(0.5, 60.0);  // the last bins lie past the detector: no segments
            s.dark = test::random(shape, DType::float32, 200 + rep, 0, 4);
            s.mask = mask;
            s.solid_angle = true;
            s.dummy = 7;
            s.empty = -3;
            AzimuthalIntegrator integ(ctx, s);
            const kiln::Csr& c = integ.csr();
            size_t longest = 0;
            for (size_t k = 0; k < c.bins; ++k)
                longest = std::max<size_t>(longest, size_t(c.indptr[k + 1] - c.indptr[k]));
            REQUIRE(longest > 10 * l.segment);
            std::vector<HostArray> host;
            Array frames = frame_stack(ctx, g, n, 300 + 10 * rep, host);
            AzimuthalResult r;
            Graph graph(ctx);
            {
                auto capture = graph.capture();
                r = integ.integrate(frames);
            }
            for (int run = 0; run < 2; ++run) {
                graph.run();
                for (size_t k = 0; k < n; ++k) {
                    INFO("graph run " << run << " frame " << k);
                    require_profile(r, cpu::integrate(c, host[k], integ.cpu_params()), 1e-5, k);
                }
            }
            const HostArray one = frame_of(g, DType::float32, 400 + rep);
            require_profile(integ.integrate(Array::from_host(ctx, one)),
                            cpu::integrate(c, one, integ.cpu_params()), 1e-5);
        }
    });
}
