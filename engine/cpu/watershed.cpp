#include "kiln/reference/watershed.hpp"

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "kiln/error.hpp"

namespace kiln::cpu {

HostArray watershed(const HostArray& image, const HostArray& markers, const HostArray& mask, int connectivity) {
    const size_t ndim = image.shape.ndim();
    const bool has_mask = !mask.shape.empty();
    if (ndim < 1 || ndim > 3 || markers.shape != image.shape || (has_mask && mask.shape != image.shape))
        throw InvalidArgument("cpu::watershed: image " + image.shape.str() + ", markers " +
                              markers.shape.str() + " and mask " + mask.shape.str() +
                              " must share one 1-, 2- or 3-D shape");
    if (connectivity < 1 || connectivity > static_cast<int>(ndim))
        throw InvalidArgument("cpu::watershed: connectivity " + std::to_string(connectivity) + " is not in 1.." +
                              std::to_string(ndim));
    const long nz = static_cast<long>(image.shape.z()), ny = static_cast<long>(image.shape.y()),
               nx = static_cast<long>(image.shape.x());
    const size_t n = image.size();
    std::vector<std::array<long, 3>> offsets;
    for (long dz = -1; dz <= 1; ++dz)
        for (long dy = -1; dy <= 1; ++dy)
            for (long dx = -1; dx <= 1; ++dx) {
                const int moved = (dz != 0) + (dy != 0) + (dx != 0);
                if (moved > 0 && moved <= connectivity) offsets.push_back({dz, dy, dx});
            }
    auto neighbours = [&](size_t i, auto&& visit) {
        const long z = long(i) / (ny * nx), y = (long(i) / nx) % ny, x = long(i) % nx;
        for (const auto& o : offsets) {
            const long qz = z + o[0], qy = y + o[1], qx = x + o[2];
            if (qz >= 0 && qz < nz && qy >= 0 && qy < ny && qx >= 0 && qx < nx) visit(size_t((qz * ny + qy) * nx + qx));
        }
    };
    std::vector<double> v(n);
    std::vector<int32_t> seed(n);
    std::vector<bool> inside(n, true);
    for (size_t i = 0; i < n; ++i) {
        v[i] = image.at(i);
        if (has_mask) inside[i] = mask.at(i) != 0;
        seed[i] = inside[i] ? static_cast<int32_t>(markers.at(i)) : 0;
    }
    // F: the least largest value on a path from a marker.
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> f(n, inf);
    using Item = std::pair<double, size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> flood;
    for (size_t i = 0; i < n; ++i)
        if (seed[i] != 0) f[i] = v[i], flood.push({v[i], i});
    while (!flood.empty()) {
        const auto [fi, i] = flood.top();
        flood.pop();
        if (fi > f[i]) continue;
        neighbours(i, [&](size_t q) {
            if (!inside[q] || seed[q] != 0) return;
            const double fq = std::max(v[q], fi);
            if (fq < f[q]) f[q] = fq, flood.push({fq, q});
        });
    }
    // Labels: smallest first along edges q <- i where i is a least-F neighbour of q.
    std::vector<double> low(n, inf);
    for (size_t i = 0; i < n; ++i) neighbours(i, [&](size_t q) { low[i] = std::min(low[i], f[q]); });
    HostArray out(image.shape, DType::int32);
    auto label = out.as<int32_t>();
    using Arrival = std::pair<int32_t, size_t>;
    std::priority_queue<Arrival, std::vector<Arrival>, std::greater<Arrival>> spread;
    std::vector<bool> done(n, false);
    for (size_t i = 0; i < n; ++i)
        if (seed[i] != 0) spread.push({seed[i], i});
    while (!spread.empty()) {
        const auto [l, i] = spread.top();
        spread.pop();
        if (done[i]) continue;
        done[i] = true;
        label[i] = l;
        neighbours(i, [&](size_t q) {
            if (!done[q] && inside[q] && seed[q] == 0 && f[q] != inf && f[i] == low[q]) spread.push({l, q});
        });
    }
    return out;
}

}  // namespace kiln::cpu
