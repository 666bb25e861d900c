// Rules of the rank and box filters shared by the GPU ops and the CPU
// references (engine/host/rank_rules.hpp, kiln/rank_filters.hpp).
#include "host/rank_rules.hpp"

#include <cmath>
#include <string>

#include "kiln/error.hpp"
#include "kiln/rank_filters.hpp"

namespace kiln {

int64_t percentile_rank(double percentile, size_t n) {
    if (n == 0) throw InvalidArgument("percentile_filter: the footprint has no element");
    if (!(percentile >= -100 && percentile <= 100))
        throw InvalidArgument("percentile_filter: percentile " + std::to_string(percentile) +
                              " is not accepted; -100 to 100 (negative ones count from 100)");
    // As scipy's _rank_filter: truncation of the double n * p / 100.
    const double p = percentile < 0 ? percentile + 100 : percentile;
    if (p == 100) return int64_t(n) - 1;
    return int64_t(double(n) * p / 100.0);
}

size_t resolve_rank(int64_t rank, size_t n, const char* op) {
    const int64_t sn = int64_t(n), r = rank < 0 ? rank + sn : rank;
    if (r < 0 || r >= sn)
        throw InvalidArgument(std::string(op) + ": rank " + std::to_string(rank) +
                              " is not within the footprint's " + std::to_string(n) +
                              " elements; -" + std::to_string(n) + " to " + std::to_string(n - 1));
    return size_t(r);
}

std::vector<UniformPass> uniform_passes(const Shape& shape, const std::vector<int64_t>& sizes,
                                        const std::vector<int64_t>& origins, const char* op) {
    const size_t nd = shape.ndim();
    auto per_axis = [&](const std::vector<int64_t>& v, const char* what) {
        if (v.size() != 1 && v.size() != nd)
            throw InvalidArgument(std::string(op) + ": " + std::to_string(v.size()) + " " + what +
                                  " for a " + std::to_string(nd) +
                                  "-D array; give one, or one per axis");
    };
    per_axis(sizes, "sizes");
    if (!origins.empty()) per_axis(origins, "origins");
    std::vector<UniformPass> passes;
    for (size_t a = 0; a < nd; ++a) {
        const int64_t s = sizes.size() == 1 ? sizes[0] : sizes[a];
        const int64_t o = origins.empty() ? 0 : origins.size() == 1 ? origins[0] : origins[a];
        if (s < 1 || s > (int64_t(1) << 20))
            throw InvalidArgument(std::string(op) + ": size " + std::to_string(s) +
                                  " is not accepted; 1 to 2^20");
        if (o < -(s / 2) || o > (s - 1) / 2)
            throw InvalidArgument(std::string(op) + ": origin " + std::to_string(o) +
                                  " for size " + std::to_string(s) + " is not accepted; " +
                                  std::to_string(-(s / 2)) + " to " + std::to_string((s - 1) / 2));
        if (s > 1) passes.push_back({a, s, o});
    }
    return passes;
}

size_t uniform_axis(const Shape& shape, int64_t axis, const char* op) {
    const int64_t nd = int64_t(shape.ndim());
    if (axis < -nd || axis >= nd)
        throw InvalidArgument(std::string(op) + ": axis " + std::to_string(axis) + " of a " +
                              std::to_string(nd) + "-D array; " + std::to_string(-nd) + " to " +
                              std::to_string(nd - 1));
    return size_t(axis < 0 ? axis + nd : axis);
}

}  // namespace kiln
