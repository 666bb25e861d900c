// Dummy values as intervals of the raw dtype: the kernels compare raw
// values with exact bounds rather than |raw - dummy| <= delta in float, which
// cannot tell 4294967295 (Eiger's dead-pixel marker) from 4294967294.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kiln/azimuthal.hpp"

namespace kiln {

namespace {

// The interval of values x of a type (stepped by `next`/`prev`) for which
// |x - dummy| <= delta holds in double, starting from a rounded guess.
template <typename X, typename Next, typename Prev>
std::optional<std::pair<X, X>> interval(X lo, X hi, double dummy, double delta, Next next, Prev prev, X min, X max) {
    auto in = [&](X x) { return std::abs(double(x) - dummy) <= delta; };
    // Rounding moves a bound by an ulp or two at most.
    for (int i = 0; i < 8 && lo > min && in(prev(lo)); ++i) lo = prev(lo);
    for (int i = 0; i < 8 && lo < hi && !in(lo); ++i) lo = next(lo);
    for (int i = 0; i < 8 && hi < max && in(next(hi)); ++i) hi = next(hi);
    for (int i = 0; i < 8 && hi > lo && !in(hi); ++i) hi = prev(hi);
    if (lo > hi || !in(lo) || !in(hi)) return std::nullopt;
    return std::pair<X, X>{lo, hi};
}

template <typename X> std::array<uint32_t, 4> bits_of(X lo, X hi) {
    std::array<uint32_t, 4> b{0, 0, 0, 0};
    std::memcpy(&b[0], &lo, sizeof(X));
    std::memcpy(&b[2], &hi, sizeof(X));
    return b;
}

template <typename I> std::optional<std::array<uint32_t, 4>> int_bounds(double dummy, double delta) {
    using L = std::numeric_limits<I>;
    const double lo_d = std::ceil(dummy - delta), hi_d = std::floor(dummy + delta);
    if (lo_d > double(L::max()) || hi_d < double(L::min())) return std::nullopt;
    const int64_t lo = int64_t(std::max(lo_d, double(L::min()))), hi = int64_t(std::min(hi_d, double(L::max())));
    auto r = interval<int64_t>(lo, hi, dummy, delta, [](int64_t x) { return x + 1; }, [](int64_t x) { return x - 1; },
                               int64_t(L::min()), int64_t(L::max()));
    if (!r) return std::nullopt;
    // The shaders compare 8- and 16-bit values widened to int or uint.
    if constexpr (std::is_signed_v<I>) return bits_of(int32_t(r->first), int32_t(r->second));
    else return bits_of(uint32_t(r->first), uint32_t(r->second));
}

template <typename F> std::optional<std::array<uint32_t, 4>> float_bounds(double dummy, double delta) {
    using L = std::numeric_limits<F>;
    auto clamp = [](double v) { return F(std::clamp(v, double(L::lowest()), double(L::max()))); };
    auto r = interval<F>(clamp(dummy - delta), clamp(dummy + delta), dummy, delta,
                         [](F x) { return std::nextafter(x, L::infinity()); },
                         [](F x) { return std::nextafter(x, -L::infinity()); }, L::lowest(), L::max());
    if (!r) return std::nullopt;
    return bits_of(r->first, r->second);
}

} // namespace

std::optional<std::array<uint32_t, 4>> AzimuthalIntegrator::dummy_bounds(DType t, double dummy, double delta) {
    switch (t) {
    case DType::int8: return int_bounds<int8_t>(dummy, delta);
    case DType::uint8: return int_bounds<uint8_t>(dummy, delta);
    case DType::int16: return int_bounds<int16_t>(dummy, delta);
    case DType::uint16: return int_bounds<uint16_t>(dummy, delta);
    case DType::int32: return int_bounds<int32_t>(dummy, delta);
    case DType::uint32: return int_bounds<uint32_t>(dummy, delta);
    case DType::float32: return float_bounds<float>(dummy, delta);
    case DType::float64: return float_bounds<double>(dummy, delta);
    case DType::int64:
    case DType::uint64:
    case DType::complex64:
    case DType::complex128: break;
    }
    throw Unsupported("AzimuthalIntegrator: " + std::string(dtype_name(t)) +
                      " frames are not integrated; cast them to float64, float32 or a 32-bit integer type first");
}

} // namespace kiln
