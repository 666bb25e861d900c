// Stress cases for the whole-array reductions (a partial per workgroup,
// then one final workgroup): ties and NaN placed in many workgroups, where
// the first index must win, and integer sums, which are exact in any order;
// every result exactly kiln::cpu's.
#include <limits>
#include <vector>

#include "cpu/reduce.hpp"
#include "kiln/reduce.hpp"
#include "stress/stress_support.hpp"

using namespace kiln;
using namespace kiln::test::stress;
using test::check_same;

namespace {

void check_reductions(const Context& ctx, const HostArray& h) {
    const Array a = Array::from_host(ctx, h);
    CHECK(argmin(a) == cpu::argmin(h));
    CHECK(argmax(a) == cpu::argmax(h));
    check_same(min(a), cpu::min(h));
    check_same(max(a), cpu::max(h));
    CHECK(count_nonzero(a) == cpu::count_nonzero(h));
    if (!dtype_is_float(h.dtype)) check_same(sum(a), cpu::sum(h));  // integers: exact in float64
}

}  // namespace

TEST_CASE("stress reduce: ties and NaN across workgroups, exact integer sums", "[stress][reduce]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape s{scaled(509), scaled(1031)};
        const uint64_t seed = 100 + rep;
        {
            INFO("int16 values -3..3: ties everywhere");
            check_reductions(ctx, test::random(s, DType::int16, seed, -3, 3));
        }
        {
            INFO("all equal");
            check_reductions(ctx, test::random(s, DType::int32, seed, -7, -7));
            check_reductions(ctx, HostArray::from(s, std::vector<float>(s.size(), 0.0f)));
        }
        // The extremes at a handful of places far apart, later ones in
        // earlier-finishing workgroups as likely as not.
        HostArray f = test::random(s, DType::float32, seed + 1, -1, 1);
        auto v = f.as<float>();
        for (size_t k = 0; k < 5; ++k) {
            const size_t i = (rep * 7919 + k * v.size() / 5 + k * 4099) % v.size();
            v[i] = k % 2 ? 2.0f : -2.0f;
            v[v.size() - 1 - i] = k % 2 ? -2.0f : 2.0f;
        }
        {
            INFO("extremes repeated in many workgroups");
            check_reductions(ctx, f);
        }
        for (size_t k = 0; k < 3; ++k)
            v[(rep * 104729 + (k + 1) * v.size() / 4) % v.size()] = std::numeric_limits<float>::quiet_NaN();
        {
            INFO("NaN in three workgroups");
            check_reductions(ctx, f);
        }
    });
}
