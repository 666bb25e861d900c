// CPU references for the label tools: plain loops over int32 label images.
#include "kiln/reference/label_tools.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "kiln/error.hpp"
#include "kiln/reference/gaussian.hpp"
#include "kiln/reference/label.hpp"
#include "kiln/reference/threshold.hpp"

namespace kiln::cpu {

namespace {

std::span<const int32_t> values(const HostArray& labels, const char* op) {
    if (labels.dtype != DType::int32)
        throw InvalidArgument(std::string(op) + ": labels must be int32, not " + std::string(dtype_name(labels.dtype)));
    return labels.as<int32_t>();
}

std::vector<int64_t> counts_of(std::span<const int32_t> v, const char* op) {
    int32_t top = 0;
    for (int32_t l : v) {
        if (l < 0) throw InvalidArgument(std::string(op) + ": label " + std::to_string(l) + " is negative");
        top = std::max(top, l);
    }
    std::vector<int64_t> c(size_t(top) + 1, 0);
    for (int32_t l : v) ++c[size_t(l)];
    return c;
}

HostArray renumbered(const HostArray& labels, const std::vector<bool>& keep) {
    std::vector<int32_t> map(keep.size(), 0);
    int32_t next = 1;
    for (size_t l = 1; l < keep.size(); ++l)
        if (keep[l]) map[l] = next++;
    HostArray out(labels.shape, DType::int32);
    auto in = labels.as<int32_t>();
    auto o = out.as<int32_t>();
    for (size_t i = 0; i < in.size(); ++i) o[i] = map[size_t(in[i])];
    return out;
}

// (z, y, x) extents and whether each axis is one of the array's.
struct Dims {
    std::array<size_t, 3> n;
    size_t ndim;
};
Dims dims_of(const HostArray& a) { return {{a.shape.z(), a.shape.y(), a.shape.x()}, a.shape.ndim()}; }

// One onlyzero_overwrite_maximum step; returns whether a pixel changed.
bool grow(const Dims& d, const std::vector<int32_t>& src, std::vector<int32_t>& dst, bool box) {
    const auto [nz, ny, nx] = d.n;
    const int rz = nz > 1, ry = ny > 1, rx = nx > 1;
    bool changed = false;
    for (size_t z = 0; z < nz; ++z)
        for (size_t y = 0; y < ny; ++y)
            for (size_t x = 0; x < nx; ++x) {
                const size_t i = (z * ny + y) * nx + x;
                int32_t best = src[i];
                if (best == 0)
                    for (int dz = -rz; dz <= rz; ++dz)
                        for (int dy = -ry; dy <= ry; ++dy)
                            for (int dx = -rx; dx <= rx; ++dx) {
                                if (!box && std::abs(dx) + std::abs(dy) + std::abs(dz) > 1) continue;
                                const long zz = long(z) + dz, yy = long(y) + dy, xx = long(x) + dx;
                                if (zz < 0 || yy < 0 || xx < 0 || zz >= long(nz) || yy >= long(ny) || xx >= long(nx))
                                    continue;
                                best = std::max(best, src[(size_t(zz) * ny + size_t(yy)) * nx + size_t(xx)]);
                            }
                dst[i] = best;
                changed = changed || best != src[i];
            }
    return changed;
}

}  // namespace

HostArray relabel_sequential(const HostArray& labels) {
    const auto c = counts_of(values(labels, "relabel_sequential"), "relabel_sequential");
    std::vector<bool> keep(c.size());
    for (size_t l = 1; l < c.size(); ++l) keep[l] = c[l] > 0;
    return renumbered(labels, keep);
}

HostArray exclude_labels_on_edges(const HostArray& labels) {
    auto v = values(labels, "exclude_labels_on_edges");
    const auto c = counts_of(v, "exclude_labels_on_edges");
    std::vector<bool> keep(c.size(), true);
    const Dims d = dims_of(labels);
    const auto [nz, ny, nx] = d.n;
    for (size_t z = 0; z < nz; ++z)
        for (size_t y = 0; y < ny; ++y)
            for (size_t x = 0; x < nx; ++x) {
                const bool edge = (nx > 1 && (x == 0 || x == nx - 1)) ||
                                  (d.ndim >= 2 && ny > 1 && (y == 0 || y == ny - 1)) ||
                                  (d.ndim == 3 && nz > 1 && (z == 0 || z == nz - 1));
                if (edge) keep[size_t(v[(z * ny + y) * nx + x])] = false;
            }
    return renumbered(labels, keep);
}

HostArray exclude_labels_outside_size_range(const HostArray& labels, double minimum_size, double maximum_size) {
    const auto c = counts_of(values(labels, "exclude_labels_outside_size_range"), "exclude_labels_outside_size_range");
    std::vector<bool> keep(c.size());
    for (size_t l = 1; l < c.size(); ++l) keep[l] = double(c[l]) >= minimum_size && double(c[l]) <= maximum_size;
    return renumbered(labels, keep);
}

HostArray label_sizes(const HostArray& labels) {
    const auto c = counts_of(values(labels, "label_sizes"), "label_sizes");
    HostArray out(Shape{c.size() - 1}, DType::int32);
    for (size_t l = 1; l < c.size(); ++l) out.as<int32_t>()[l - 1] = static_cast<int32_t>(c[l]);
    return out;
}

HostArray find_objects(const HostArray& labels) {
    auto v = values(labels, "find_objects");
    int32_t top = 0;
    for (int32_t l : v) top = std::max(top, l);
    const Dims d = dims_of(labels);
    const size_t nd = d.ndim;
    HostArray out(Shape{size_t(top), 2 * nd}, DType::int32);
    auto o = out.as<int32_t>();
    std::fill(o.begin(), o.end(), -1);
    const auto [nz, ny, nx] = d.n;
    for (size_t z = 0; z < nz; ++z)
        for (size_t y = 0; y < ny; ++y)
            for (size_t x = 0; x < nx; ++x) {
                const int32_t l = v[(z * ny + y) * nx + x];
                if (l <= 0) continue;
                const size_t coord[3] = {z, y, x};
                for (size_t a = 3 - nd, k = 0; a < 3; ++a, ++k) {
                    int32_t* box = &o[(size_t(l) - 1) * 2 * nd + 2 * k];
                    const auto c = static_cast<int32_t>(coord[a]);
                    if (box[0] < 0 || c < box[0]) box[0] = c;
                    box[1] = std::max(box[1], c + 1);
                }
            }
    return out;
}

HostArray dilate_labels(const HostArray& labels, int radius) {
    auto v = values(labels, "dilate_labels");
    if (radius < 0) throw InvalidArgument("dilate_labels: radius must be >= 0");
    std::vector<int32_t> a(v.begin(), v.end()), b(a.size());
    const Dims d = dims_of(labels);
    for (int k = 0; k < radius; ++k) {
        const bool changed = grow(d, a, b, k % 2 == 0);
        std::swap(a, b);
        if (!changed) break;
    }
    return HostArray::from(labels.shape, a);
}

HostArray masked_voronoi_labeling(const HostArray& seeds, const HostArray& mask) {
    auto v = values(seeds, "masked_voronoi_labeling");
    std::vector<int32_t> a(v.size()), b(v.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = mask.at(i) != 0 ? v[i] : -1;
    const Dims d = dims_of(seeds);
    for (int k = 0;; ++k) {
        const bool changed = grow(d, a, b, k % 2 == 0);
        std::swap(a, b);
        if (!changed) break;
    }
    for (int32_t& x : a) x = std::max(x, 0);
    return HostArray::from(seeds.shape, a);
}

HostArray voronoi_otsu_labeling(const HostArray& image, double spot_sigma, double outline_sigma) {
    auto blur = [&](double s) {
        const size_t nd = image.shape.ndim();
        return gaussian_filter(image, {nd == 3 ? s : 0, nd >= 2 ? s : 0, s});
    };
    const HostArray spot = blur(spot_sigma), outline = blur(outline_sigma);
    const double t = threshold_otsu(outline);
    HostArray binary(image.shape, DType::uint8), spots(image.shape, DType::uint8);
    for (size_t i = 0; i < image.size(); ++i) binary.as<uint8_t>()[i] = outline.at(i) > t;
    const Dims d = dims_of(image);
    const auto [nz, ny, nx] = d.n;
    const int rz = nz > 1, ry = ny > 1, rx = nx > 1;
    auto clampi = [](long c, size_t n) { return size_t(std::clamp<long>(c, 0, long(n) - 1)); };
    for (size_t z = 0; z < nz; ++z)
        for (size_t y = 0; y < ny; ++y)
            for (size_t x = 0; x < nx; ++x) {
                const size_t i = (z * ny + y) * nx + x;
                const double c = spot.at(i);
                bool is_max = binary.as<uint8_t>()[i] != 0;
                for (int dz = -rz; dz <= rz; ++dz)
                    for (int dy = -ry; dy <= ry; ++dy)
                        for (int dx = -rx; dx <= rx; ++dx) {
                            if (dx == 0 && dy == 0 && dz == 0) continue;
                            const size_t j = (clampi(long(z) + dz, nz) * ny + clampi(long(y) + dy, ny)) * nx +
                                             clampi(long(x) + dx, nx);
                            if (spot.at(j) >= c) is_max = false;
                        }
                spots.as<uint8_t>()[i] = is_max;
            }
    const int box = d.ndim == 1 ? 2 : d.ndim == 2 ? 8 : 26;
    return masked_voronoi_labeling(label(spots, box).labels, binary);
}

}  // namespace kiln::cpu
