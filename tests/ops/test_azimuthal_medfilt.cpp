// The GPU quantile filter per bin (AzimuthalIntegrator::medfilt1d) and the
// separation into Bragg and amorphous parts (separate) against the CPU
// reference (cpu::medfilt and cpu::separate, themselves checked against
// pyFAI 0.21 and a NumPy implementation of pyFAI's rule in
// tests/cpu/test_medfilt.cpp): the kept entries must be the same ones (the
// counts equal exactly), with and without pixel splitting, equal values
// (integer frames), quantile ranges, rows longer than the kernel keeps in
// shared memory, stacks of frames and both accumulations.
#include <cmath>
#include <random>

#include "azimuthal_support.hpp"
#include "kiln/azimuthal.hpp"
#include "kiln/reference/medfilt.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

using test::frame_of;
using test::larger_geometry;
using test::require_profile;
using test::setup_for;
using test::small_geometry;

// Poisson counts with hot pixels: many equal values, outliers to filter out.
HostArray counts(const Geometry& g, uint64_t seed) {
    std::mt19937 rng{uint32_t(seed)};
    std::poisson_distribution<int> pd(30);
    std::vector<uint32_t> v(g.rows * g.cols);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint32_t(pd(rng)) + (i % 61 == 0 ? 9000u : 0u);
    return HostArray::from(Shape{g.rows, g.cols}, v);
}

// About one pixel in 2 * every masked.
HostArray sparse_mask(const Shape& shape, uint64_t seed, size_t every) {
    HostArray mask = test::random(shape, DType::uint8, seed, 0, 1);
    for (auto& m : mask.as<uint8_t>()) m = m && (&m - mask.as<uint8_t>().data()) % every == 0;
    return mask;
}

// s with a dark, a sparse mask and the solid angle.
AzimuthalSetup with_corrections(AzimuthalSetup s, uint64_t seed) {
    const Shape shape{s.geometry.rows, s.geometry.cols};
    s.dark = test::random(shape, DType::float32, seed, 0, 4);
    s.mask = sparse_mask(shape, seed + 1, 9);
    s.solid_angle = true;
    return s;
}

// GPU against CPU: the same entries kept (counts exact), sums to float32's
// rounding of the float32 results (1e-5 as for integrate).
void require_medfilt(const AzimuthalIntegrator& integ, const Array& frames, const HostArray& frame, double q_lo,
                     double q_hi, size_t index = 0) {
    INFO("quantiles " << q_lo << " " << q_hi << " frame " << index);
    const Profile1d want = cpu::medfilt(integ.csr(), frame, integ.cpu_params(), q_lo, q_hi);
    const AzimuthalResult r = integ.medfilt1d(frames, q_lo, q_hi);
    REQUIRE(r.to_host(index).count == want.count);
    require_profile(r, want, 1e-5, index);
}

} // namespace

TEST_CASE("medfilt1d matches cpu::medfilt: median and quantile ranges, split or not", "[ops][azimuthal][medfilt]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    for (auto acc : {Accumulation::float64, Accumulation::compensated})
        for (bool split : {false, true}) {
            INFO("compensated " << (acc == Accumulation::compensated) << " split " << split);
            AzimuthalSetup s = setup_for(g, split, acc, 23);
            s.solid_angle = true;
            s.polarization_factor = 0.9;
            AzimuthalIntegrator integ(ctx, s);
            const HostArray frame = counts(g, 3 + split);
            const Array dev = Array::from_host(ctx, frame);
            for (auto [lo, hi] : {std::pair{0.5, 0.5}, {0.1, 0.9}, {0.25, 0.75}, {0.0, 1.0}, {0.0, 0.0}, {1.0, 1.0}})
                require_medfilt(integ, dev, frame, lo, hi);
        }
}

TEST_CASE("medfilt1d keeps the same entries among equal values", "[ops][azimuthal][medfilt]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    // Without corrections every normalization is 1: integer frames give
    // runs of equal values, and the median falls inside them.
    for (bool split : {false, true}) {
        AzimuthalIntegrator integ(ctx, setup_for(g, split, Accumulation::automatic, 9));
        std::vector<uint16_t> v(g.rows * g.cols);
        for (size_t i = 0; i < v.size(); ++i) v[i] = uint16_t(i % 5 == 0 ? 7 : i % 3);  // values 0, 1, 2, 7
        const HostArray frame = HostArray::from(Shape{g.rows, g.cols}, v);
        const Array dev = Array::from_host(ctx, frame);
        for (auto [lo, hi] : {std::pair{0.5, 0.5}, {0.3, 0.6}, {0.2, 0.2}})
            require_medfilt(integ, dev, frame, lo, hi);
    }
}

TEST_CASE("medfilt1d over rows longer than shared memory holds, with every correction", "[ops][azimuthal][medfilt]") {
    Context ctx = test::context();
    const auto g = larger_geometry();
    // 3 bins of about 5500 entries: beyond the 1024 the kernel caches.
    AzimuthalSetup s = with_corrections(setup_for(g, false, Accumulation::automatic, 3), 5);
    s.dummy = 31;
    s.error_model = IntegrateParams::ErrorModel::poisson;
    REQUIRE(s.dark);
    for (bool dark_variance : {true, false}) {  // the Poisson variance with the dark's or without
        INFO("dark_variance " << dark_variance);
        s.dark_variance = dark_variance;
        AzimuthalIntegrator integ(ctx, s);
        size_t longest = 0;
        for (size_t k = 0; k < integ.bins(); ++k)
            longest = std::max<size_t>(longest, size_t(integ.csr().indptr[k + 1] - integ.csr().indptr[k]));
        REQUIRE(longest > 2048);
        const HostArray frame = counts(g, 8);
        const Array dev = Array::from_host(ctx, frame);
        for (auto [lo, hi] : {std::pair{0.5, 0.5}, {0.1, 0.9}}) require_medfilt(integ, dev, frame, lo, hi);
    }
}

TEST_CASE("medfilt1d of a stack filters each frame", "[ops][azimuthal][medfilt]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    AzimuthalSetup s = setup_for(g, true, Accumulation::automatic, 17);
    s.error_model = IntegrateParams::ErrorModel::none;
    AzimuthalIntegrator integ(ctx, s);
    std::vector<HostArray> host;
    const Array stack = test::frame_stack(ctx, g, 3, 70, host);
    for (size_t k = 0; k < host.size(); ++k) require_medfilt(integ, stack, host[k], 0.2, 0.7, k);
}

TEST_CASE("medfilt1d refuses quantiles outside 0 <= q_lo <= q_hi <= 1", "[ops][azimuthal][medfilt]") {
    Context ctx = test::context();
    AzimuthalIntegrator integ(ctx, setup_for(small_geometry(), false, Accumulation::automatic));
    const Array frame = Array::from_host(ctx, frame_of(small_geometry(), DType::uint16, 1));
    CHECK_THROWS_AS(integ.medfilt1d(frame, 0.6, 0.4), InvalidArgument);
    CHECK_THROWS_AS(integ.medfilt1d(frame, -0.1, 0.5), InvalidArgument);
    CHECK_THROWS_AS(integ.medfilt1d(frame, 0.5, 1.5), InvalidArgument);
    CHECK_THROWS_AS(integ.medfilt1d(frame, NAN, 0.5), InvalidArgument);
    AzimuthalSetup s = setup_for(small_geometry(), false, Accumulation::automatic);
    s.error_model = IntegrateParams::ErrorModel::azimuthal;
    AzimuthalIntegrator azimuthal(ctx, s);
    CHECK_THROWS_WITH(azimuthal.medfilt1d(frame), Catch::Contains("azimuthal error model"));
    AzimuthalSetup cake = setup_for(small_geometry(), false, Accumulation::automatic);
    cake.azimuth_bins = 4;
    CHECK_THROWS_WITH(AzimuthalIntegrator(ctx, cake).separate(frame), Catch::Contains("1-D profile"));
    CHECK_THROWS_AS(cpu::medfilt(azimuthal.csr(), frame_of(small_geometry(), DType::uint16, 1), azimuthal.cpu_params()),
                    InvalidArgument);
}

TEST_CASE("separate matches cpu::separate, masked pixels restored or not", "[ops][azimuthal][medfilt]") {
    Context ctx = test::context();
    const auto g = small_geometry();
    AzimuthalSetup s = with_corrections(setup_for(g, false, Accumulation::automatic, 19), 11);
    s.flat = test::random(Shape{g.rows, g.cols}, DType::float32, 13, 0.8, 1.2);
    s.polarization_factor = 0.95;
    AzimuthalIntegrator integ(ctx, s);
    const std::vector<double> radial = radial_centers(g, Radial::q_nm);
    std::vector<HostArray> host;
    const Array stack = test::frame_stack(ctx, g, 2, 90, host);
    for (bool restore : {true, false}) {
        const AzimuthalSeparation sep = integ.separate(stack, 0.5, 0.5, restore);
        REQUIRE(sep.bragg.shape() == stack.shape());
        const auto bragg = sep.bragg.to_vector<float>(), amorphous = sep.amorphous.to_vector<float>();
        for (size_t k = 0; k < host.size(); ++k) {
            INFO("restore " << restore << " frame " << k);
            // The expansion alone: the GPU's own profile into the CPU's.
            const auto want = cpu::separate(host[k], radial, sep.background.to_host(k), integ.cpu_params(), restore);
            const size_t off = k * integ.pixels();
            for (size_t i = 0; i < integ.pixels(); ++i) {
                INFO("pixel " << i);
                // float32 arithmetic on values up to 6e4 (frame_stack's
                // range): amorphous to float32's relative rounding of a few
                // operations, bragg as the difference of two such numbers.
                REQUIRE(std::abs(amorphous[off + i] - want.amorphous[i]) <= 1e-6 * std::abs(want.amorphous[i]) + 1e-6);
                REQUIRE(std::abs(bragg[off + i] - want.bragg[i]) <= 1e-6 * (std::abs(host[k].at(i)) + std::abs(want.amorphous[i])) + 1e-6);
            }
        }
    }
    // A background of its own: sigma clipping's, one profile for both frames.
    const AzimuthalResult clipped = integ.sigma_clip(Array::from_host(ctx, host[0]), 3.0, 3);
    const AzimuthalSeparation sep = integ.separate(stack, clipped);
    const auto want = cpu::separate(host[1], radial, clipped.to_host(), integ.cpu_params(), true);
    const auto bragg = sep.bragg.to_vector<float>();
    for (size_t i = 0; i < integ.pixels(); ++i)
        REQUIRE(std::abs(bragg[integ.pixels() + i] - want.bragg[i]) <=
                1e-6 * (std::abs(host[1].at(i)) + std::abs(want.amorphous[i])) + 1e-6);
    // A matrix without a geometry has no pixel positions.
    AzimuthalSetup bare;
    bare.csr = integ.shared_csr();
    AzimuthalIntegrator no_geometry(ctx, bare);
    CHECK_THROWS_AS(no_geometry.separate(Array::from_host(ctx, host[0])), InvalidArgument);
}
