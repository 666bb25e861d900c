#include "azimuthal_support.hpp"

#include <cmath>
#include <utility>
#include <vector>

namespace kiln::test {

kiln::Geometry small_geometry() {
    return kiln::Geometry{37, 41, 1e-3, 1e-3, 0.1, 12.3e-3, 20.7e-3, 0.01, -0.02, 0.03, 1.0e-10};
}

kiln::Geometry larger_geometry() {
    return kiln::Geometry{127, 131, 172e-6, 172e-6, 0.12, -3e-3, 4e-3, 0.02, 0.01, 0, 0.8e-10};
}

HostArray frame_of(const kiln::Geometry& g, DType t, uint64_t seed) {
    const double hi = t == DType::int8 ? 120 : t == DType::uint8 ? 250 : t == DType::int16 ? 30000 : 60000;
    return random(Shape{g.rows, g.cols}, t, seed, 0, hi);
}

Array frame_stack(const Context& ctx, const kiln::Geometry& g, size_t n, uint64_t seed,
                  std::vector<HostArray>& host) {
    std::vector<uint16_t> all;
    for (size_t k = 0; k < n; ++k) {
        host.push_back(frame_of(g, DType::uint16, seed + k));
        all.insert(all.end(), host.back().as<uint16_t>().begin(), host.back().as<uint16_t>().end());
    }
    return Array::from(ctx, Shape{n, g.rows, g.cols}, all);
}

void require_profile(const AzimuthalResult& r, const kiln::Profile1d& want, double rtol, size_t frame) {
    const kiln::Profile1d got = r.to_host(frame);
    REQUIRE(got.radial == want.radial);
    const std::pair<const char*, std::pair<const std::vector<double>*, const std::vector<double>*>> fields[] =
        {
            {"intensity", {&got.intensity, &want.intensity}},
            {"sem", {&got.sem, &want.sem}},
            {"sigma", {&got.sigma, &want.sigma}},
            {"std", {&got.std, &want.std}},
            {"sum_signal", {&got.sum_signal, &want.sum_signal}},
            {"sum_variance", {&got.sum_variance, &want.sum_variance}},
            {"sum_normalization", {&got.sum_normalization, &want.sum_normalization}},
            {"sum_normalization_sq", {&got.sum_normalization_sq, &want.sum_normalization_sq}},
            {"count", {&got.count, &want.count}},
        };
    for (const auto& [name, v] : fields) {
        const auto& g = *v.first;
        const auto& w = *v.second;
        REQUIRE(g.size() == w.size());
        for (size_t k = 0; k < g.size(); ++k) {
            INFO(name << "[" << k << "]: got " << g[k] << " want " << w[k]);
            // float32 results: a relative tolerance, and room for float32's
            // own rounding of numbers that are zero in double.
            REQUIRE(std::abs(g[k] - w[k]) <= rtol * std::abs(w[k]) + 1e-30);
        }
    }
}

AzimuthalSetup setup_for(const kiln::Geometry& g, bool split, Accumulation acc, size_t bins) {
    AzimuthalSetup s;
    s.geometry = g;
    s.unit = kiln::Radial::q_nm;
    s.bins = bins;
    s.split = split ? kiln::PixelSplit::bbox : kiln::PixelSplit::none;
    s.accumulation = acc;
    return s;
}

}  // namespace kiln::test
