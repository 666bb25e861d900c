// The CPU reference of the rank and box filters against scipy.ndimage
// (fixtures of tests/data/make_rank_filters.py).
#include <cmath>

#include "kiln/reference/rank_filters.hpp"
#include "rank_filter_fixture.hpp"

using namespace kiln;

namespace fx = kiln::test::fixture;

TEST_CASE("rank filter reference matches scipy.ndimage", "[rank_filters][cpu]") {
    for (const fx::RankCase& c : fx::rank_cases) {
        INFO(c.name);
        const HostArray got = cpu::rank_filter(test::to_host(fx::rank_inputs[c.input]), fx::rank_of(c),
                                               fx::footprint_of(c), parse_nd_mode(c.mode), c.cval);
        // Elements of the input (or cval): exact.
        test::require_close(got, c.expected, 0, 0);
    }
}

TEST_CASE("uniform filter reference matches scipy.ndimage", "[rank_filters][cpu]") {
    for (const fx::UniformCase& c : fx::uniform_cases) {
        INFO(c.name);
        const HostArray in = test::to_host(fx::rank_inputs[c.input]);
        std::vector<int64_t> sizes = c.sizes, origins = c.origins;
        if (c.axis != -99) {
            const size_t a = size_t(c.axis < 0 ? c.axis + int(in.shape.ndim()) : c.axis);
            sizes.assign(in.shape.ndim(), 1), origins.assign(in.shape.ndim(), 0);
            sizes[a] = c.sizes[0], origins[a] = c.origins[0];
        }
        const HostArray got = cpu::uniform_filter(in, sizes, parse_nd_mode(c.mode), c.cval, origins);
        // Both sum in double and round each pass to the dtype: integers
        // exact; floats apart by the double sums' order (SciPy keeps a
        // running sum), which may move a rounding by one unit: one float32
        // unit of the inputs' scale per pass (two passes at most), and a
        // float32 decimal read back as double is within half a unit.
        const bool f32 = got.dtype == DType::float32;
        test::require_close(got, c.expected, f32 ? 2.5e-7 : 1e-14,
                            (f32 ? std::ldexp(1.0, -22) : 1e-13) * fx::scale_of(c));
    }
}

TEST_CASE("rank filter reference refuses bad ranks and percentiles", "[rank_filters][cpu]") {
    const HostArray in = test::random(Shape{5, 6}, DType::float32, 3);
    const Footprint box = Footprint::box({3, 3});
    CHECK_THROWS_AS(cpu::rank_filter(in, 9, box), InvalidArgument);
    CHECK_THROWS_AS(cpu::rank_filter(in, -10, box), InvalidArgument);
    CHECK_THROWS_AS(percentile_rank(100.5, 9), InvalidArgument);
    CHECK(percentile_rank(-25, 9) == 6);
    CHECK_THROWS_AS(cpu::uniform_filter(in, {3, 3, 3}), InvalidArgument);
    CHECK_THROWS_AS(cpu::uniform_filter(in, {3}, NdMode::reflect, 0, {2}), InvalidArgument);
}
