#pragma once
// Where scipy.ndimage's boundary modes read outside an axis, for the CPU
// references (convolve, rank filters).
#include <cstddef>
#include <cstdlib>

#include "kiln/conv_types.hpp"

namespace kiln::cpu {

using Index = ptrdiff_t;

// Symmetric extension including the edge (SciPy's 'symm', ndimage's
// 'reflect'), periodic with period 2n so any distance is defined.
inline Index symm_index(Index i, Index n) {
    const Index k = (i >= 0 ? i : -(i + 1)) % (2 * n);
    return k >= n ? 2 * n - 1 - k : k;
}

inline Index wrap_index(Index i, Index n) {
    return ((i % n) + n) % n;
}

// The position ndimage reads for i under mode, or -1 where it reads cval.
inline Index nd_index(Index i, Index n, NdMode mode) {
    if (i >= 0 && i < n) return i;
    switch (mode) {
        case NdMode::reflect:
            return symm_index(i, n);
        case NdMode::constant:
            return -1;
        case NdMode::nearest:
            return i < 0 ? 0 : n - 1;
        case NdMode::wrap:
            return wrap_index(i, n);
        case NdMode::mirror: {
            if (n == 1) return 0;
            const Index period = 2 * n - 2;
            const Index k = std::abs(i) % period;
            return k >= n ? period - k : k;
        }
    }
    return -1;
}

}  // namespace kiln::cpu
