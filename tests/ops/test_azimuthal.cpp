// GPU azimuthal integration against the CPU reference (cpu::integrate and
// cpu::sigma_clip, themselves checked against a plain loop over pixels):
// every frame dtype, both accumulations (float64 and compensated float32),
// fused and separate kernels, with and without pixel splitting, every
// correction, dummy values at the edges of the integer and float types,
// stacks of frames in a Graph, the matrix cache, and the errors.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include <unistd.h>

#include "azimuthal_support.hpp"
#include "kiln/azimuthal.hpp"
#include "support.hpp"

using namespace kiln;
using EM = kiln::IntegrateParams::ErrorModel;
namespace fs = std::filesystem;

namespace {

using test::frame_of;
using test::frame_stack;
using test::larger_geometry;
using test::require_profile;
using test::setup_for;
using test::small_geometry;

void every_dtype(Accumulation acc) {
    Context ctx = test::context();
    const auto g = small_geometry();
    const DType dtypes[] = {DType::uint8,  DType::int8,  DType::uint16,  DType::int16,
                            DType::uint32, DType::int32, DType::float32, DType::float64};
    for (bool split : {false, true}) {
        AzimuthalIntegrator integ(ctx, setup_for(g, split, acc));
        CHECK(integ.float64() == (acc == Accumulation::float64));
        uint64_t seed = 10;
        for (DType t : dtypes) {
            INFO("split " << split << " dtype " << dtype_name(t));
            const HostArray frame = frame_of(g, t, seed++);
            const AzimuthalResult r = integ.integrate(Array::from_host(ctx, frame));
            require_profile(r, cpu::integrate(integ.csr(), frame, integ.cpu_params()), 1e-5);
        }
    }
}

} // namespace

TEST_CASE("azimuthal integration of every dtype, float64 sums", "[ops][azimuthal]") {
    every_dtype(Accumulation::float64);
}

TEST_CASE("azimuthal integration of every dtype, compensated float32 sums", "[ops][azimuthal]") {
    every_dtype(Accumulation::compensated);
}

TEST_CASE("azimuthal integration with dark, flat, solid angle, polarization, mask and dummy",
          "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = larger_geometry();
    const Shape shape{g.rows, g.cols};
    HostArray mask = test::random(shape, DType::uint8, 1, 0, 1);
    for (auto& m : mask.as<uint8_t>()) m = m && (&m - mask.as<uint8_t>().data()) % 7 == 0;  // about 1 in 14
    for (auto kernels : {AzimuthalKernels::fused, AzimuthalKernels::separate})
        for (bool split : {false, true})
            for (DType t : {DType::uint32, DType::float32, DType::uint16}) {
                INFO("separate " << (kernels == AzimuthalKernels::separate) << " split " << split << " dtype "
                                 << dtype_name(t));
                AzimuthalSetup s = setup_for(g, split, Accumulation::automatic, 101);
                s.unit = kiln::Radial::two_theta_deg;
                s.kernels = kernels;
                s.dark = test::random(shape, DType::float32, 2, 0, 10);
                s.flat = test::random(shape, DType::float32, 3, 0.5, 1.5);
                s.mask = mask;
                s.solid_angle = true;
                s.polarization_factor = 0.95;
                s.dummy = 77;
                s.delta_dummy = 1.5;  // 76, 77 and 78 are dummies
                AzimuthalIntegrator integ(ctx, s);
                HostArray frame = frame_of(g, t, 4);
                // Plant dummies and values just outside the tolerance.
                for (size_t i = 0; i < 300; ++i) {
                    const double v = 75.0 + double(i % 5);  // 75 .. 79
                    visit_dtype(t, [&](auto z) { frame.as<decltype(z)>()[i * 53 % frame.size()] = decltype(z)(v); });
                }
                const auto want = cpu::integrate(integ.csr(), frame, integ.cpu_params());
                require_profile(integ.integrate(Array::from_host(ctx, frame)), want, 1e-5);
            }
}

TEST_CASE("dummy values are matched exactly at the ends of uint32 and float32", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    AzimuthalSetup s = setup_for(g, false, Accumulation::float64);
    s.dummy = 4294967295.0;  // Eiger's marker of a dead pixel: float32 cannot tell it from its neighbours
    AzimuthalIntegrator integ(ctx, s);
    HostArray frame = frame_of(g, DType::uint32, 5);
    auto v = frame.as<uint32_t>();
    for (size_t i = 0; i < v.size(); i += 3) v[i] = i % 2 ? 4294967295u : 4294967294u - uint32_t(i % 5);
    require_profile(integ.integrate(Array::from_host(ctx, frame)),
                    cpu::integrate(integ.csr(), frame, integ.cpu_params()), 1e-5);

    // A float dummy whose tolerance takes in one ulp (1/16 at 1e6) either side, not two.
    s.dummy = 1e6;
    s.delta_dummy = 0.07;
    AzimuthalIntegrator fi(ctx, s);
    HostArray ff = frame_of(g, DType::float32, 6);
    auto fv = ff.as<float>();
    const float near[] = {1e6f, 1e6f + 0.0625f, 1e6f - 0.0625f, 1e6f + 0.125f, 1e6f - 0.125f};
    for (size_t i = 0; i < fv.size(); i += 2) fv[i] = near[i % 5];
    const auto want = cpu::integrate(fi.csr(), ff, fi.cpu_params());
    require_profile(fi.integrate(Array::from_host(ctx, ff)), want, 1e-5);
}

TEST_CASE("azimuthal integration with given variance and without errors", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    const Shape shape{g.rows, g.cols};
    for (auto acc : {Accumulation::float64, Accumulation::compensated}) {
        AzimuthalSetup s = setup_for(g, true, acc, 17);
        s.error_model = EM::variance;
        s.variance = test::random(shape, DType::float32, 7, 1, 50);
        s.range = std::make_pair(1.0, 40.0);
        AzimuthalIntegrator integ(ctx, s);
        const HostArray frame = frame_of(g, DType::int32, 8);
        require_profile(integ.integrate(Array::from_host(ctx, frame)),
                        cpu::integrate(integ.csr(), frame, integ.cpu_params()), 1e-5);

        s.error_model = EM::none;
        s.empty = -1;
        s.range = std::make_pair(1.0, 400.0);  // bins past the detector's q stay empty
        AzimuthalIntegrator none(ctx, s);
        const auto want = cpu::integrate(none.csr(), frame, none.cpu_params());
        CHECK(want.intensity.back() == -1);
        require_profile(none.integrate(Array::from_host(ctx, frame)), want, 1e-5);
    }
}

TEST_CASE("bin centres are the matrix's, at lo + (k + 1/2) width", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    AzimuthalSetup s = setup_for(g, false, Accumulation::automatic, 10);
    s.unit = kiln::Radial::two_theta_deg;
    s.range = std::make_pair(2.0, 12.0);
    AzimuthalIntegrator integ(ctx, s);
    const auto ref = kiln::build_csr(g, s.unit, 10, s.range, kiln::PixelSplit::none);
    const auto r = integ.integrate(Array::from_host(ctx, frame_of(g, DType::uint16, 3)));
    REQUIRE(r.radial == ref.bin_centers);
    for (size_t k = 0; k < 10; ++k) CHECK(r.radial[k] == Approx(2.5 + double(k)).epsilon(1e-12));
    CHECK(integ.csr().indices == ref.indices);
    CHECK(integ.bins() == 10);
    CHECK(integ.pixels() == 37 * 41);
}

TEST_CASE("pre-processing alone matches cpu::preprocess", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    const Shape shape{g.rows, g.cols};
    AzimuthalSetup s = setup_for(g, false, Accumulation::automatic);
    s.dark = test::random(shape, DType::uint16, 11, 0, 5);
    s.flat = test::random(shape, DType::float32, 12, -0.1, 2);  // some negative, a few near zero
    s.mask = test::random(shape, DType::uint8, 13, 0, 8);       // mostly nonzero: most pixels masked
    for (auto& m : s.mask->as<uint8_t>()) m = m == 0;
    s.dummy = 3;
    AzimuthalIntegrator integ(ctx, s);
    HostArray frame = frame_of(g, DType::float32, 14);
    frame.as<float>()[5] = std::numeric_limits<float>::quiet_NaN();
    frame.as<float>()[6] = std::numeric_limits<float>::infinity();
    frame.as<float>()[7] = 3.0f;
    const auto pre = integ.preprocess(Array::from_host(ctx, frame)).to_vector<float>();
    const auto want = cpu::preprocess(frame, integ.pixels(), integ.cpu_params());
    REQUIRE(pre.size() == 4 * integ.pixels());
    size_t valid = 0;
    for (size_t i = 0; i < integ.pixels(); ++i) {
        INFO("pixel " << i);
        REQUIRE(pre[4 * i + 3] == float(want.valid[i]));
        valid += want.valid[i];
        CHECK(pre[4 * i] == Approx(want.signal[i]).epsilon(1e-6).margin(1e-6));
        CHECK(pre[4 * i + 1] == Approx(want.variance[i]).epsilon(1e-6).margin(1e-6));
        CHECK(pre[4 * i + 2] == Approx(want.normalization[i]).epsilon(1e-6));
    }
    CHECK(valid > 100);
    CHECK(valid < integ.pixels() - 100);
}

TEST_CASE("a stack of frames integrates in one dispatch, in a graph run per batch", "[ops][azimuthal][graph]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    const size_t n = 5;
    AzimuthalSetup s = setup_for(g, true, Accumulation::compensated, 31);
    s.dark = test::random(Shape{g.rows, g.cols}, DType::float32, 20, 0, 3);
    AzimuthalIntegrator integ(ctx, s);
    Array frames = Array::empty(ctx, Shape{n, g.rows, g.cols}, DType::uint32);
    AzimuthalResult r;
    Graph graph(ctx);
    {
        auto capture = graph.capture();
        r = integ.integrate(frames);
    }
    REQUIRE(r.intensity.shape() == Shape{n, 31});
    for (int run = 0; run < 2; ++run) {
        std::vector<HostArray> host;
        std::vector<uint32_t> all;
        for (size_t k = 0; k < n; ++k) {
            host.push_back(frame_of(g, DType::uint32, 100 * run + k));
            all.insert(all.end(), host.back().as<uint32_t>().begin(), host.back().as<uint32_t>().end());
        }
        frames.push(std::span<const uint32_t>(all));
        graph.run();
        for (size_t k = 0; k < n; ++k) {
            INFO("run " << run << " frame " << k);
            require_profile(r, cpu::integrate(integ.csr(), host[k], integ.cpu_params()), 1e-5, k);
        }
    }
    // (n, pixels) is a stack too.
    const auto flat = integ.integrate(frames.reshape(Shape{n, g.rows * g.cols}));
    CHECK(flat.intensity.to_vector<float>() == r.intensity.to_vector<float>());
}

TEST_CASE("rows longer than a segment are integrated in segments merged by the last", "[ops][azimuthal][graph]") {
    Context ctx = test::context();
    const auto g = larger_geometry();
    const Shape shape{g.rows, g.cols};
    const size_t n = 3;
    HostArray mask = test::random(shape, DType::uint8, 61, 0, 1);
    for (auto& m : mask.as<uint8_t>()) m = m && (&m - mask.as<uint8_t>().data()) % 5 == 0;
    for (auto acc : {Accumulation::float64, Accumulation::compensated})
        for (auto kernels : {AzimuthalKernels::fused, AzimuthalKernels::separate})
            for (size_t segment : {size_t(61), size_t(300)}) {
                INFO("compensated " << (acc == Accumulation::compensated) << " separate "
                                    << (kernels == AzimuthalKernels::separate) << " segment " << segment);
                AzimuthalSetup s = setup_for(g, true, acc, 43);
                s.kernels = kernels;
                s.segment_entries = segment;  // rows of several hundred entries: 2 to 20 segments each
                s.range = std::make_pair(0.5, 60.0);  // the last bins lie past the detector: no segments
                s.dark = test::random(shape, DType::float32, 62, 0, 4);
                s.mask = mask;
                s.solid_angle = true;
                s.dummy = 7;
                s.empty = -3;
                AzimuthalIntegrator integ(ctx, s);
                const auto& c = integ.csr();
                size_t longest = 0, empty = 0;
                for (size_t k = 0; k < c.bins; ++k) {
                    longest = std::max<size_t>(longest, size_t(c.indptr[k + 1] - c.indptr[k]));
                    empty += c.indptr[k + 1] == c.indptr[k];
                }
                REQUIRE(longest > 2 * segment);
                REQUIRE(empty > 0);
                std::vector<HostArray> host;
                Array frames = frame_stack(ctx, g, n, 70, host);
                AzimuthalResult r;
                Graph graph(ctx);
                {
                    auto capture = graph.capture();
                    r = integ.integrate(frames);
                }
                graph.run();
                for (size_t k = 0; k < n; ++k) {
                    INFO("frame " << k);
                    const auto want = cpu::integrate(c, host[k], integ.cpu_params());
                    CHECK(want.intensity.back() == -3);
                    require_profile(r, want, 1e-5, k);
                }
                // One frame, eagerly: the same numbers as frame 1 of the stack.
                const auto one = integ.integrate(Array::from_host(ctx, host[1]));
                require_profile(one, cpu::integrate(c, host[1], integ.cpu_params()), 1e-5);
            }
}

TEST_CASE("sigma clipping matches cpu::sigma_clip", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = larger_geometry();
    for (auto acc : {Accumulation::float64, Accumulation::compensated})
        for (bool split : {false, true}) {
            INFO("compensated " << (acc == Accumulation::compensated) << " split " << split);
            AzimuthalSetup s = setup_for(g, split, acc, 41);
            s.solid_angle = true;
            AzimuthalIntegrator integ(ctx, s);
            // Poisson rings with hot pixels: clipping has something to drop.
            std::mt19937 rng(31 + split);
            std::poisson_distribution<int> pd(40);
            std::vector<uint32_t> v(g.rows * g.cols);
            for (size_t i = 0; i < v.size(); ++i) v[i] = uint32_t(pd(rng)) + (i % 97 == 0 ? 5000u : 0u);
            const HostArray frame = HostArray::from(Shape{g.rows, g.cols}, v);
            for (int iters : {0, 1, 5}) {
                INFO("max_iter " << iters);
                const auto want = cpu::sigma_clip(integ.csr(), frame, integ.cpu_params(), 3.0, iters);
                require_profile(integ.sigma_clip(Array::from_host(ctx, frame), 3.0, iters), want, 1e-5);
            }
            // Clipping dropped the hot pixels: fewer counted than without.
            const auto plain = cpu::integrate(integ.csr(), frame, integ.cpu_params());
            const auto clipped = cpu::sigma_clip(integ.csr(), frame, integ.cpu_params(), 3.0, 5);
            double kept = 0, all = 0;
            for (size_t k = 0; k < plain.count.size(); ++k) kept += clipped.count[k], all += plain.count[k];
            CHECK(kept < all);
        }
}

TEST_CASE("an integrator over a matrix given without a geometry", "[ops][azimuthal]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    AzimuthalSetup s;
    s.csr = std::make_shared<const kiln::Csr>(
        kiln::build_csr(g, kiln::Radial::two_theta_deg, 19, std::nullopt, kiln::PixelSplit::bbox));
    s.error_model = EM::none;
    AzimuthalIntegrator integ(ctx, s);
    CHECK(integ.shared_csr() == s.csr);
    CHECK(integ.pixels() == g.rows * g.cols);
    const HostArray frame = frame_of(g, DType::uint16, 40);
    require_profile(integ.integrate(Array::from_host(ctx, frame)),
                    cpu::integrate(*s.csr, frame, integ.cpu_params()), 1e-5);
    s.solid_angle = true;  // needs the geometry the matrix came from
    CHECK_THROWS_AS(AzimuthalIntegrator(ctx, s), InvalidArgument);
    s.geometry = g;
    s.geometry.rows = 36;
    CHECK_THROWS_WITH(AzimuthalIntegrator(ctx, s), Catch::Contains("1476") && Catch::Contains("1517"));
}

TEST_CASE("CSR matrices are cached in memory and on disk", "[ops][azimuthal]") {
    const auto g = small_geometry();
    clear_csr_cache();
    const auto a = cached_csr(g, kiln::Radial::q_nm, 50, std::nullopt, kiln::PixelSplit::bbox);
    const auto b = cached_csr(g, kiln::Radial::q_nm, 50, std::nullopt, kiln::PixelSplit::bbox);
    CHECK(a == b);  // the same matrix, not rebuilt
    const auto c = cached_csr(g, kiln::Radial::q_nm, 51, std::nullopt, kiln::PixelSplit::bbox);
    CHECK(c != a);
    CHECK(c->bins == 51);
    std::vector<uint8_t> mask(g.rows * g.cols, 0);
    mask[100] = 1;
    const auto d = cached_csr(g, kiln::Radial::q_nm, 50, std::nullopt, kiln::PixelSplit::bbox, &mask);
    CHECK(d != a);
    CHECK(d->nnz() < a->nnz());

    const fs::path dir = fs::temp_directory_path() / ("kiln_csr_cache_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const auto e = cached_csr(g, kiln::Radial::two_theta_deg, 20, std::make_pair(1.0, 9.0), kiln::PixelSplit::none, nullptr,
                              dir.string());
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
    clear_csr_cache();
    const auto f = cached_csr(g, kiln::Radial::two_theta_deg, 20, std::make_pair(1.0, 9.0), kiln::PixelSplit::none, nullptr,
                              dir.string());
    CHECK(f != e);  // a new object, read back from the file
    CHECK(f->indptr == e->indptr);
    CHECK(f->indices == e->indices);
    CHECK(f->data == e->data);
    CHECK(f->bin_centers == e->bin_centers);
    CHECK(f->range_lo == e->range_lo);
    CHECK(f->unit == e->unit);
    fs::remove_all(dir);
}

TEST_CASE("azimuthal integration refuses bad input and the context stays usable", "[ops][azimuthal][errors]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    const Shape shape{g.rows, g.cols};
    AzimuthalIntegrator integ(ctx, setup_for(g, false, Accumulation::automatic));
    CHECK_THROWS_WITH(integ.integrate(Array::zeros(ctx, Shape{37, 40})),
                      Catch::Contains("(37, 40)") && Catch::Contains("1517 pixels"));
    CHECK_THROWS_AS(integ.integrate(Array::zeros(ctx, Shape{3, 37 * 41 + 1})), InvalidArgument);
    CHECK_THROWS_AS(integ.integrate(Array()), InvalidArgument);
    CHECK_THROWS_WITH(integ.sigma_clip(Array::zeros(ctx, shape), -1.0), Catch::Contains("kappa"));
    // kappa 0 is Chauvenet's criterion alone; a fixed threshold needs kappa > 0.
    CHECK_THROWS_WITH(integ.sigma_clip(Array::zeros(ctx, shape), 0.0, 5, ClipThreshold::fixed),
                      Catch::Contains("kappa"));
    CHECK_THROWS_WITH(integ.sigma_clip(Array::zeros(ctx, shape), 3.0, 65), Catch::Contains("max_iter"));

    AzimuthalSetup s = setup_for(g, false, Accumulation::automatic);
    s.mask = HostArray(Shape{10}, DType::uint8);
    CHECK_THROWS_WITH(AzimuthalIntegrator(ctx, s), Catch::Contains("mask") && Catch::Contains("1517"));
    s = setup_for(g, false, Accumulation::automatic);
    s.error_model = EM::variance;
    CHECK_THROWS_WITH(AzimuthalIntegrator(ctx, s), Catch::Contains("variance"));
    s = setup_for(g, false, Accumulation::automatic);
    s.error_model = EM::none;
    CHECK_THROWS_WITH(AzimuthalIntegrator(ctx, s).sigma_clip(Array::zeros(ctx, shape)), Catch::Contains("none"));
    s = setup_for(g, false, Accumulation::automatic);
    s.bins = 0;
    CHECK_THROWS_AS(AzimuthalIntegrator(ctx, s), InvalidArgument);
    s = setup_for(g, false, Accumulation::automatic);
    s.dummy = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_AS(AzimuthalIntegrator(ctx, s), InvalidArgument);
    s = setup_for(g, false, Accumulation::automatic);
    s.geometry.dist = -1;
    CHECK_THROWS_AS(AzimuthalIntegrator(ctx, s), InvalidArgument);
    ctx.set_workgroup_size("azim_integrate_float32_float64", {100, 1, 1});  // not a multiple of 8 or 32
    if (integ.float64())
        CHECK_THROWS_WITH(integ.integrate(Array::zeros(ctx, shape)), Catch::Contains("subgroup"));
    ctx.set_workgroup_size("azim_integrate_float32_float64", {0, 0, 0});

    const HostArray frame = frame_of(g, DType::float32, 1);
    require_profile(integ.integrate(Array::from_host(ctx, frame)),
                    cpu::integrate(integ.csr(), frame, integ.cpu_params()), 1e-5);
}

TEST_CASE("stacks larger than one binding are refused with the frame count that fits", "[ops][azimuthal][errors]") {
    ContextOptions o;
    o.max_binding_range = 64 << 10;  // 10 frames of 37 x 41 uint32 fit, 11 do not
    Context ctx = test::context(o);
    const auto g = small_geometry();
    AzimuthalIntegrator integ(ctx, setup_for(g, false, Accumulation::automatic));
    CHECK_THROWS_AS(integ.integrate(Array::zeros(ctx, Shape{20, g.rows, g.cols}, DType::uint32)), Unsupported);
    CHECK_THROWS_WITH(integ.integrate(Array::zeros(ctx, Shape{20, g.rows, g.cols}, DType::uint32)),
                      Catch::Contains("at most 10 frames"));
    const HostArray frame = frame_of(g, DType::uint32, 2);
    std::vector<uint32_t> ten;
    for (int k = 0; k < 10; ++k) ten.insert(ten.end(), frame.as<uint32_t>().begin(), frame.as<uint32_t>().end());
    const auto r = integ.integrate(Array::from(ctx, Shape{10, g.rows, g.cols}, ten));
    require_profile(r, cpu::integrate(integ.csr(), frame, integ.cpu_params()), 1e-5, 9);
}
