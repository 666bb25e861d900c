// W60-W64: the exact Euclidean distance transform (2-D and 3-D blobs, and
// 2-D and 3-D with 16 zeros: the sparse worst cases) and the marker watershed. Inputs are integer hashes, so bench/peers_distance.py
// builds the very same arrays with NumPy. Results are checked against the
// CPU references at small size (the references are O(N * extent) and a
// priority queue: too slow for the full sizes).
#include <cstdint>
#include <vector>

#include "bench.hpp"
#include "kiln/distance.hpp"
#include "kiln/reference/distance.hpp"
#include "kiln/reference/watershed.hpp"
#include "kiln/watershed.hpp"

namespace kiln::bench {

namespace {

uint32_t cell_hash(uint32_t a, uint32_t b, uint32_t c) {
    return ((a * 73856093u) ^ (b * 19349663u) ^ (c * 83492791u)) * 2654435761u;
}

// Background blobs (about half the elements): in every 16-wide cell a disc
// or ball of radius 5..10 around a hashed centre, clipped to the cell; zero
// inside it, one elsewhere. 2-D when nz == 1.
std::vector<uint8_t> blob_mask(size_t nz, size_t ny, size_t nx) {
    std::vector<uint8_t> m(nz * ny * nx);
    for (size_t z = 0; z < nz; ++z)
        for (size_t y = 0; y < ny; ++y)
            for (size_t x = 0; x < nx; ++x) {
                const uint32_t h = cell_hash(uint32_t(z / 16), uint32_t(y / 16), uint32_t(x / 16));
                const long cz = nz == 1 ? 0 : long(h >> 20 & 15), cy = long(h & 15), cx = long(h >> 4 & 15);
                const long r = 5 + long((h >> 8) % 6);
                const long dz = long(z % 16) - cz, dy = long(y % 16) - cy, dx = long(x % 16) - cx;
                m[(z * ny + y) * nx + x] = dz * dz * (nz > 1) + dy * dy + dx * dx < r * r ? 0 : 1;
            }
    return m;
}

// Ones but for 16 zeros at hashed places: distances up to about a third of
// the side, where a search per element would walk that far. 2-D when nz == 1.
std::vector<uint8_t> sparse_mask(size_t nz, size_t side) {
    std::vector<uint8_t> m(nz * side * side, 1);
    for (uint32_t k = 0; k < 16; ++k)
        m[(nz == 1 ? 0 : cell_hash(k, 5, 6) % nz) * side * side + cell_hash(k, 1, 2) % side * side +
          cell_hash(k, 3, 4) % side] = 0;
    return m;
}

Result edt(Context& ctx, Size size, int n, size_t nz, size_t side, bool sparse = false) {
    const Shape shape = nz == 1 ? Shape{side, side} : Shape{nz, side, side};
    const std::vector<uint8_t> m = sparse ? sparse_mask(nz, side) : blob_mask(nz, side, side);
    const Array input = Array::from(ctx, shape, m);
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = distance_transform_edt(input); }, n, 3));
    r.metrics["GB/s"] = double(m.size()) * 5.0 / (r.gpu_ms * 1e-3) / 1e9;  // uint8 in, float32 out
    if (size == Size::small) {
        const HostArray want = cpu::distance_transform_edt(HostArray::from(shape, m));
        r.checked = true;
        r.ok = out.to_vector<float>() == std::vector<float>(want.as<float>().begin(), want.as<float>().end());
        if (!r.ok) r.note = "differs from cpu::distance_transform_edt";
    }
    return r;
}

// Bowls 64 wide (squared distance to the bowl's centre, times 4096) plus a
// hashed 12-bit roughness: whole numbers below 2^24, exact in float32. One
// marker per bowl at its centre, labels 1.. in raster order.
Result ws(Context& ctx, Size size, int n) {
    const size_t side = size == Size::full ? 2048 : 256;
    std::vector<float> image(side * side);
    std::vector<int32_t> marks(side * side, 0);
    int32_t next = 1;
    for (size_t y = 0; y < side; ++y)
        for (size_t x = 0; x < side; ++x) {
            const long dy = long(y % 64) - 32, dx = long(x % 64) - 32;
            const uint32_t rough = cell_hash(uint32_t(y), uint32_t(x), 7) >> 20;
            image[y * side + x] = float(double((dy * dy + dx * dx) * 4096 + long(rough)));
            if (dy == 0 && dx == 0) marks[y * side + x] = next++;
        }
    const Shape shape{side, side};
    const Array img = Array::from(ctx, shape, image), mk = Array::from(ctx, shape, marks);
    Array out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = watershed(img, mk); }, n, 2));
    if (size == Size::small) {
        const HostArray want = cpu::watershed(HostArray::from(shape, image), HostArray::from(shape, marks), HostArray());
        r.checked = true;
        r.ok = out.to_vector<int32_t>() ==
               std::vector<int32_t>(want.as<int32_t>().begin(), want.as<int32_t>().end());
        if (!r.ok) r.note = "differs from cpu::watershed";
    }
    return r;
}

}  // namespace

Register w60{{"W60", "distance_transform_edt 2048^2 uint8 blobs -> float32", "distance",
              [](Context& ctx, Size s, int n) { return edt(ctx, s, n, 1, s == Size::full ? 2048 : 256); }}};
Register w61{{"W61", "distance_transform_edt 256^3 uint8 blobs -> float32", "distance",
              [](Context& ctx, Size s, int n) {
                  const size_t side = s == Size::full ? 256 : 32;
                  return edt(ctx, s, n, side, side);
              }}};
Register w63{{"W63", "distance_transform_edt 2048^2 uint8, 16 zeros -> float32", "distance",
              [](Context& ctx, Size s, int n) { return edt(ctx, s, n, 1, s == Size::full ? 2048 : 256, true); }}};
Register w64{{"W64", "distance_transform_edt 256^3 uint8, 16 zeros -> float32", "distance",
              [](Context& ctx, Size s, int n) {
                  const size_t side = s == Size::full ? 256 : 32;
                  return edt(ctx, s, n, side, side, true);
              }}};
Register w62{{"W62", "watershed 2048^2 float32 bowls, 1024 markers, connectivity 1", "distance",
              [](Context& ctx, Size s, int n) { return ws(ctx, s, n); }}};

}  // namespace kiln::bench
