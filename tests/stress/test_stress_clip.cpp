// Stress cases for kappa-sigma clipping and its radix sort (sort_count,
// sort_scan, sort_scatter over many tiles, clip_tree's partial sums):
// constant and nearly constant images, values on a coarse grid (long runs
// of equal keys in every digit), every key width; the passes, count,
// median and kept mask as kiln::cpu::kappa_sigma_clip's.
#include <cmath>
#include <limits>
#include <vector>

#include "clip_support.hpp"
#include "kiln/reference/clip.hpp"
#include "kiln/statistics.hpp"
#include "stress/stress_support.hpp"

using namespace kiln;
using namespace kiln::test::stress;
using test::check_clip;
using test::noisy;

namespace {

// Many sort tiles (16 keys per invocation, 64..256 invocations a workgroup).
Shape elements() {
    return Shape{scaled(127), scaled(1031)};
}

void clip_both_ways(const Context& ctx, const HostArray& h) {
    const Array a = Array::from_host(ctx, h);
    check_clip(a, h, 3.0, 100, true);
    check_clip(a, h, 1.5, 100, true);
    check_clip(a, h, 3.0, 2, false);
}

}  // namespace

TEST_CASE("stress kappa_sigma_clip: constant and nearly constant images", "[stress][clip]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape s = elements();
        {
            INFO("float32 constant: the second pass keeps nothing");
            clip_both_ways(ctx, HostArray::from(s, std::vector<float>(s.size(), 2.5f)));
        }
        {
            INFO("float32 constant with outliers");
            std::vector<float> v(s.size(), 2.5f);
            for (size_t i = rep % 997; i < v.size(); i += 997) v[i] = i % 2 ? 1000.0f : -1000.0f;
            clip_both_ways(ctx, HostArray::from(s, v));
        }
        {
            INFO("float64 constant but for one ulp here and there, signed zeros and NaN");
            std::vector<double> v(s.size(), 1.0);
            for (size_t i = rep % 13; i < v.size(); i += 13) v[i] = std::nextafter(1.0, 2.0);
            for (size_t i = rep % 101; i < v.size(); i += 101) v[i] = i % 2 ? -0.0 : 0.0;
            v[(rep * 7919) % v.size()] = std::numeric_limits<double>::quiet_NaN();
            clip_both_ways(ctx, HostArray::from(s, v));
        }
        {
            INFO("uint32 constant");
            clip_both_ways(ctx, HostArray::from(s, std::vector<uint32_t>(s.size(), 4000000000u)));
        }
    });
}

TEST_CASE("stress kappa_sigma_clip: many equal values in every key width", "[stress][clip]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape s = elements();
        const uint64_t seed = 100 + rep;
        {
            INFO("float32 on a grid of quarters");
            HostArray h = noisy(s, DType::float32, seed, 2, 10);
            for (float& x : h.as<float>()) x = std::round(x * 4) / 4;
            clip_both_ways(ctx, h);
        }
        {
            INFO("float64 on a grid of 1/64 around 1e6");
            HostArray h = noisy(s, DType::float64, seed + 1, 2, 1e6, 0.05);
            for (double& x : h.as<double>()) x = std::round(x * 64) / 64;
            clip_both_ways(ctx, h);
        }
        for (DType t : {DType::uint8, DType::int16, DType::int32}) {
            INFO(dtype_name(t) << ", sigma 1.5: a handful of distinct values");
            clip_both_ways(ctx, noisy(s, t, seed + 2, 1.5, t == DType::uint8 ? 100 : -3));
        }
    });
}
