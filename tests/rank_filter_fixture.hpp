#pragma once
// scipy.ndimage's rank and box filters of tests/data/make_rank_filters.py,
// shared by the CPU reference test and the GPU test of the rank filters.
#include <cstdint>
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/footprint.hpp"
#include "kiln/rank_filters.hpp"

namespace kiln::test::fixture {

// The generated tables name their arrays' type Array.
using Array = FixtureArray;

/// A median_filter / percentile_filter / rank_filter case (op "median",
/// "percentile" or "rank", param the percentile or rank): input by index
/// into rank_inputs, the footprint's shape, mask (C order) and origin.
struct RankCase {
    const char* name;
    int input;
    const char* op;
    double param;
    std::vector<size_t> fshape;
    std::vector<int> mask;
    std::vector<int> origin;
    const char* mode;
    double cval;
    Array expected;
};

/// A uniform_filter case, or uniform_filter1d along `axis` (-99: none).
struct UniformCase {
    const char* name;
    int input;
    std::vector<int64_t> sizes, origins;
    int axis;
    const char* mode;
    double cval;
    Array expected;
};

// The generated tables (rank_inputs, rank_cases, uniform_cases) are const,
// so each test file gets its own copy.
#include "data/rank_filters/rank_filter_cases.inc"

inline Footprint footprint_of(const RankCase& c) {
    Footprint f;
    f.shape = Shape::of(c.fshape.size(), c.fshape.data());
    f.mask.assign(c.mask.begin(), c.mask.end());
    f.origin = c.origin;
    return f;
}

/// The rank SciPy selects for the case.
inline int64_t rank_of(const RankCase& c) {
    const size_t n = footprint_of(c).count();
    const std::string op = c.op;
    if (op == "median") return int64_t(n / 2);
    if (op == "percentile") return percentile_rank(c.param, n);
    return int64_t(c.param);
}

/// Largest |value| of the case's input and cval: the scale of a box mean's
/// rounding errors.
inline double scale_of(const UniformCase& c) {
    double m = std::abs(c.cval);
    for (double v : rank_inputs[c.input].values) m = std::max(m, std::abs(v));
    return m;
}

}  // namespace kiln::test::fixture
