// The GPU rank and box filters against scipy.ndimage (fixtures of
// tests/data/make_rank_filters.py) and the CPU reference
// (engine/cpu/rank_filters.cpp): every mode, odd and even boxes, non-box
// footprints, origins, 1-, 2- and 3-D, the network and bisection paths,
// integer and float dtypes.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/rank_filters.hpp"
#include "kiln/reference/rank_filters.hpp"
#include "rank_filter_fixture.hpp"
#include "support.hpp"

using namespace kiln;

namespace fx = kiln::test::fixture;

namespace {

std::vector<int64_t> axis_sizes(const fx::UniformCase& c, size_t ndim, const std::vector<int64_t>& v,
                                int64_t fill) {
    if (c.axis == -99) return v;
    std::vector<int64_t> out(ndim, fill);
    out[size_t(c.axis < 0 ? c.axis + int(ndim) : c.axis)] = v[0];
    return out;
}

// The fixture's input on the device, with poisoned memory left for the
// result to land in.
Array device_input(Context& ctx, const test::FixtureArray& fixture) {
    const HostArray in = test::to_host(fixture);
    Array a = Array::from_host(ctx, in);
    test::poison_pool(ctx, in.shape, in.dtype);
    return a;
}

}  // namespace

TEST_CASE("rank filters match scipy.ndimage", "[rank_filters]") {
    Context ctx = test::context();
    for (const fx::RankCase& c : fx::rank_cases) {
        INFO(c.name);
        const Array a = device_input(ctx, fx::rank_inputs[c.input]);
        const Footprint f = fx::footprint_of(c);
        const NdMode mode = parse_nd_mode(c.mode);
        const std::string op = c.op;
        const Array r = op == "median"       ? median_filter(a, f, mode, c.cval)
                        : op == "percentile" ? percentile_filter(a, c.param, f, mode, c.cval)
                                             : rank_filter(a, int64_t(c.param), f, mode, c.cval);
        // Elements of the input (or cval): exact.
        test::require_close(r.to_host(), c.expected, 0, 0);
    }
}

TEST_CASE("uniform filter matches scipy.ndimage", "[rank_filters]") {
    Context ctx = test::context();
    for (const fx::UniformCase& c : fx::uniform_cases) {
        INFO(c.name);
        const Array a = device_input(ctx, fx::rank_inputs[c.input]);
        const size_t nd = a.ndim();
        const Array r = c.axis == -99
                            ? uniform_filter(a, c.sizes, parse_nd_mode(c.mode), c.cval, c.origins)
                            : uniform_filter1d(a, c.sizes[0], c.axis, parse_nd_mode(c.mode), c.cval,
                                               c.origins[0]);
        // Integers: exact sums, truncated as SciPy. Floats: each pass sums
        // `size` products with weights 1/size rounded to the dtype, against
        // SciPy's double sums: each product and addition is within a unit
        // of the dtype at the inputs' scale s, so a pass is within
        // (size + 1) units; the passes' errors add (the mean of errors is
        // no larger), and the fixture's float32 decimal is within half a
        // unit.
        const std::vector<int64_t> sizes = axis_sizes(c, nd, c.sizes, 1);
        double units = 1;
        for (size_t d = 0; d < nd; ++d) units += double(sizes.size() == 1 ? sizes[0] : sizes[d]) + 1;
        const double unit = a.dtype() == DType::float64 ? std::ldexp(1.0, -52) : std::ldexp(1.0, -23);
        test::require_close(r.to_host(), c.expected, 0, units * unit * fx::scale_of(c));
    }
}

TEST_CASE("rank filters match the CPU reference on other dtypes and footprints", "[rank_filters]") {
    Context ctx = test::context();
    // A 3-D ball of 123 elements (bisection with a mask) and a 2-D 3x3 box
    // with an origin (network), over the dtypes the fixtures leave out.
    Footprint ball;
    ball.shape = Shape{7, 7, 7};
    for (int z = -3; z <= 3; ++z)
        for (int y = -3; y <= 3; ++y)
            for (int x = -3; x <= 3; ++x) ball.mask.push_back(x * x + y * y + z * z <= 9);
    Footprint box = Footprint::box({3, 3});
    box.origin = {1, -1};
    for (DType t : {DType::int8, DType::int32, DType::uint32}) {
        const HostArray hv = test::random(Shape{6, 9, 11}, t, 7, -50, 50);
        const Array v = Array::from_host(ctx, hv);
        for (NdMode mode : {NdMode::reflect, NdMode::constant}) {
            INFO(dtype_name(t) << " mode " << int(mode));
            test::poison_pool(ctx, hv.shape, t);
            test::require_close(rank_filter(v, 40, ball, mode, 7).to_host(),
                                cpu::rank_filter(hv, 40, ball, mode, 7), 0, 0);
            test::require_close(rank_filter(v, -3, box, mode, 5).to_host(),
                                cpu::rank_filter(hv, -3, box, mode, 5), 0, 0);
        }
    }
    // float64 (64-bit keys): random values with infinities, signed zeros and
    // values that share their high words (a bisection below bit 32), through
    // the median-of-9 network, a masked network, the bisection over a disc
    // and over a box, and cval in both key halves. (A 7x7x7 box of 64-bit
    // keys needs more shared memory than a workgroup has: refused.)
    if (ctx.device().int64) {
        HostArray hd = test::random(Shape{6, 9, 11}, DType::float64, 11, -3, 3);
        auto d = hd.as<double>();
        d[5] = std::numeric_limits<double>::infinity(), d[17] = -d[5], d[29] = -0.0, d[41] = 0.0;
        for (size_t i = 60; i < 90; ++i) d[i] = 1.0 + double(i) * std::ldexp(1.0, -40);
        const Array v = Array::from_host(ctx, hd);
        Footprint cross, disc;
        cross.shape = Shape{3, 3};
        cross.mask = {0, 1, 0, 1, 1, 1, 0, 1, 0};
        disc.shape = Shape{9, 9};
        for (int y = -4; y <= 4; ++y)
            for (int x = -4; x <= 4; ++x) disc.mask.push_back(x * x + y * y <= 16);
        for (NdMode mode : {NdMode::reflect, NdMode::constant, NdMode::wrap}) {
            INFO("float64 mode " << int(mode));
            test::poison_pool(ctx, hd.shape, DType::float64);
            test::require_close(median_filter(v, Footprint::box({3, 3}), mode, -1.5).to_host(),
                                cpu::rank_filter(hd, 4, Footprint::box({3, 3}), mode, -1.5), 0, 0);
            test::require_close(rank_filter(v, 1, cross, mode, 2.25).to_host(),
                                cpu::rank_filter(hd, 1, cross, mode, 2.25), 0, 0);
            test::require_close(rank_filter(v, 20, disc, mode, 1e300).to_host(),
                                cpu::rank_filter(hd, 20, disc, mode, 1e300), 0, 0);
            test::require_close(rank_filter(v, 60, Footprint::box({9, 9}), mode, -0.5).to_host(),
                                cpu::rank_filter(hd, 60, Footprint::box({9, 9}), mode, -0.5), 0, 0);
        }
        CHECK_THROWS_AS(rank_filter(v, 0, ball), Unsupported);
    }
    // Every key of a tile equal: the bisection has no bit left to find.
    const HostArray flat = test::random(Shape{5, 7, 9}, DType::uint16, 1, 300, 300);
    test::require_close(rank_filter(Array::from_host(ctx, flat), 40, ball, NdMode::constant, 300).to_host(),
                        flat, 0, 0);
}

TEST_CASE("rank and uniform filters refuse what they do not accept", "[rank_filters]") {
    Context ctx = test::context();
    const Array img = Array::from_host(ctx, test::random(Shape{5, 6}, DType::float32, 3));
    const Footprint box = Footprint::box({3, 3});
    CHECK_THROWS_AS(rank_filter(Array{}, 0, box), InvalidArgument);
    CHECK_THROWS_AS(rank_filter(img, 9, box), InvalidArgument);
    CHECK_THROWS_AS(percentile_filter(img, -101, box), InvalidArgument);
    CHECK_THROWS_AS(rank_filter(img, 0, Footprint::box({3, 3, 3})), InvalidArgument);
    CHECK_THROWS_AS(uniform_filter(img, {0}), InvalidArgument);
    CHECK_THROWS_AS(uniform_filter(img, {3, 3}, NdMode::reflect, 0, {0, 2}), InvalidArgument);
    CHECK_THROWS_AS(uniform_filter1d(img, 3, 2), InvalidArgument);
}
