#include "clip_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "kiln/reference/clip.hpp"
#include "kiln/statistics.hpp"

namespace kiln::test {

HostArray noisy(Shape s, DType t, uint64_t seed, double sigma, double offset, double tail) {
    HostArray u = random(Shape{s.size() * 3}, DType::float64, seed, 0, 1);
    auto v = u.as<double>();
    HostArray h(s, t);
    for (size_t i = 0; i < s.size(); ++i) {
        const double a = std::max(v[3 * i], 1e-300), b = v[3 * i + 1], c = v[3 * i + 2];
        double x = std::sqrt(-2 * std::log(a)) * std::cos(2 * std::numbers::pi * b) * sigma;
        if (c < tail) x = std::tan(std::numbers::pi * (c / tail - 0.5)) * 5 * sigma;
        x += offset;
        visit_dtype(t, [&](auto z) {
            using T = decltype(z);
            if constexpr (std::is_integral_v<T>)
                x = std::clamp(std::round(x), double(std::numeric_limits<T>::min()),
                               double(std::numeric_limits<T>::max()));
            h.as<T>()[i] = static_cast<T>(x);
        });
    }
    return h;
}

void check_close(double got, double want, double rtol) {
    INFO("got " << got << " want " << want);
    if (std::isnan(want))
        CHECK(std::isnan(got));
    else
        CHECK(std::abs(got - want) <= rtol * std::abs(want));
}

void check_clip(const Array& a, const HostArray& h, double kappa, int max_iters, bool mask) {
    const ClipResult got = kappa_sigma_clip(a, kappa, max_iters, mask);
    const cpu::ClipResult want = cpu::kappa_sigma_clip(h, kappa, max_iters, mask);
    CHECK(got.iterations == want.iterations);
    CHECK(got.count == want.count);
    check_close(got.median, want.median, 1e-15);
    check_close(got.std, want.std, 1e-12);
    check_close(got.mean, want.mean, 1e-12);
    REQUIRE(got.mask.has_value() == mask);
    if (mask) require_close(got.mask->to_host(), *want.mask);
}

}  // namespace kiln::test
