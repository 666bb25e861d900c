#pragma once
// NumPy's pairwise summation, shared by the host layer (Gaussian weights)
// and the CPU references (reductions, clipping): sums taken this way equal
// NumPy's float64 results bit for bit.
#include <algorithm>
#include <cstddef>
#include <span>

namespace kiln {
namespace numpy_sum {

// NumPy's PW_BLOCKSIZE (largest leaf of the pairwise recursion) and its ufunc
// buffer size (a contiguous reduction is fed to the loop in blocks this long,
// whose pairwise sums are then added in turn). Using both keeps whole-array
// sums identical to NumPy's.
constexpr size_t leaf_size = 128;
constexpr size_t block_size = 8192;

// numpy's pairwise_sum over f(p[i]).
template <typename T, typename F>
double pairwise(const T* p, size_t n, const F& f) {
    if (n < 8) {
        double r = 0.;
        for (size_t i = 0; i < n; ++i) r += f(p[i]);
        return r;
    }
    if (n <= leaf_size) {
        double r[8];
        for (size_t j = 0; j < 8; ++j) r[j] = f(p[j]);
        size_t i = 8;
        for (; i < n - n % 8; i += 8)
            for (size_t j = 0; j < 8; ++j) r[j] += f(p[i + j]);
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) res += f(p[i]);
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise(p, n2, f) + pairwise(p + n2, n - n2, f);
}

template <typename T, typename F>
double blocked_sum(const T* p, size_t n, const F& f) {
    double s = 0.;
    for (size_t i = 0; i < n; i += block_size) s += pairwise(p + i, std::min(block_size, n - i), f);
    return s;
}

}  // namespace numpy_sum

/// Sum of values as numpy.add.reduce on a contiguous float64 array: blocks of
/// 8192 values added in turn, each summed pairwise (8-way unrolled leaves of
/// at most 128 values).
inline double pairwise_sum(std::span<const double> values) {
    return numpy_sum::blocked_sum(values.data(), values.size(), [](double v) { return v; });
}

}  // namespace kiln
