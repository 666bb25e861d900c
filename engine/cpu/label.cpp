#include "kiln/reference/label.hpp"

#include <limits>
#include <string>
#include <vector>

#include "host/op_rules.hpp"
#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

struct Offset {
    long dz, dy, dx;
};

// Neighbours that come earlier in raster order: a single forward scan that
// joins each pixel with these sees every adjacent pair exactly once.
std::vector<Offset> earlier_neighbours(size_t ndim, int reach) {
    std::vector<Offset> offsets;
    const long zr = ndim >= 3 ? 1 : 0, yr = ndim >= 2 ? 1 : 0;
    for (long dz = -zr; dz <= zr; ++dz)
        for (long dy = -yr; dy <= yr; ++dy)
            for (long dx = -1; dx <= 1; ++dx) {
                const bool earlier = dz < 0 || (dz == 0 && (dy < 0 || (dy == 0 && dx < 0)));
                const int nonzero = (dz != 0) + (dy != 0) + (dx != 0);
                if (earlier && nonzero <= reach) offsets.push_back({dz, dy, dx});
            }
    return offsets;
}

std::vector<uint8_t> foreground(const HostArray& mask) {
    std::vector<uint8_t> fg(mask.size());
    visit_dtype(mask.dtype, [&](auto t) {
        using T = decltype(t);
        const auto values = mask.as<T>();
        // `!= 0` keeps NaN as foreground, as NumPy's nonzero does.
        for (size_t i = 0; i < values.size(); ++i) fg[i] = values[i] != T(0);
    });
    return fg;
}

uint32_t find_root(std::vector<uint32_t>& parent, uint32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

}  // namespace

LabelResult label(const HostArray& mask, int connectivity) {
    if (mask.shape.empty()) throw InvalidArgument("label: the mask has no shape; give a 1-, 2- or 3-D array");
    if (mask.size() >= std::numeric_limits<uint32_t>::max())
        throw InvalidArgument("label: the mask has " + std::to_string(mask.size()) +
                              " elements; at most 4294967294 are accepted");
    const size_t ndim = mask.shape.ndim();
    const auto offsets = earlier_neighbours(ndim, neighbour_reach(ndim, connectivity));
    const std::vector<uint8_t> fg = foreground(mask);
    const long nz = long(mask.shape.z()), ny = long(mask.shape.y()), nx = long(mask.shape.x());

    // Every union links the larger root under the smaller, so each root is its
    // component's first pixel in raster order: the order SciPy numbers them in.
    std::vector<uint32_t> parent(mask.size());
    for (long z = 0; z < nz; ++z)
        for (long y = 0; y < ny; ++y)
            for (long x = 0; x < nx; ++x) {
                const uint32_t i = uint32_t((z * ny + y) * nx + x);
                if (!fg[i]) continue;
                parent[i] = i;
                for (const Offset& o : offsets) {
                    const long qz = z + o.dz, qy = y + o.dy, qx = x + o.dx;
                    if (qz < 0 || qy < 0 || qx < 0 || qy >= ny || qx >= nx) continue;
                    const uint32_t q = uint32_t((qz * ny + qy) * nx + qx);
                    if (!fg[q]) continue;
                    const uint32_t a = find_root(parent, i), b = find_root(parent, q);
                    if (a < b) parent[b] = a;
                    if (b < a) parent[a] = b;
                }
            }

    LabelResult result{HostArray(mask.shape, DType::int32), 0};
    auto out = result.labels.as<int32_t>();
    for (uint32_t i = 0; i < uint32_t(fg.size()); ++i) {
        if (!fg[i]) continue;
        const uint32_t root = find_root(parent, i);
        out[i] = root == i ? ++result.count : out[root];
    }
    return result;
}

}  // namespace kiln::cpu
