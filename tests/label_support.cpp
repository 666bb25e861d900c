#include "label_support.hpp"

#include "kiln/reference/label.hpp"

namespace kiln::test {

int32_t require_label_same(const Context& ctx, const HostArray& mask, int connectivity) {
    poison_pool(ctx, mask.shape, DType::int32);
    Labels got = label(Array::from_host(ctx, mask), connectivity);
    cpu::LabelResult want = cpu::label(mask, connectivity);
    CHECK(got.count == want.count);
    require_close(got.labels.to_host(), want.labels);
    return got.count;
}

HostArray random_mask(Shape shape, DType t, double density, uint64_t seed) {
    HostArray u = random(shape, DType::float64, seed, 0, 1);
    HostArray m(shape, t);
    visit_dtype(t, [&](auto z) {
        using T = decltype(z);
        auto out = m.as<T>();
        for (size_t i = 0; i < out.size(); ++i) out[i] = u.as<double>()[i] < density ? T(1 + i % 3) : T(0);
    });
    return m;
}

HostArray from_rows(size_t ny, size_t nx, const std::function<bool(size_t, size_t)>& f) {
    HostArray m(Shape{ny, nx}, DType::uint8);
    auto v = m.as<uint8_t>();
    for (size_t y = 0; y < ny; ++y)
        for (size_t x = 0; x < nx; ++x) v[y * nx + x] = f(y, x) ? 1 : 0;
    return m;
}

HostArray spiral(size_t n) {
    HostArray m(Shape{n, n}, DType::uint8);
    auto v = m.as<uint8_t>();
    auto inside = [&](long y, long x) { return y >= 0 && x >= 0 && y < long(n) && x < long(n); };
    auto set = [&](long y, long x) -> uint8_t& { return v[size_t(y) * n + size_t(x)]; };
    const long dy[4] = {0, 1, 0, -1}, dx[4] = {1, 0, -1, 0};
    long y = 0, x = 0;
    int dir = 0, turns = 0;
    set(0, 0) = 1;
    while (turns < 2) {
        long y2 = y + 2 * dy[dir], x2 = x + 2 * dx[dir], y3 = y + 3 * dy[dir], x3 = x + 3 * dx[dir];
        if (inside(y2, x2) && !set(y2, x2) && !(inside(y3, x3) && set(y3, x3))) {
            set(y + dy[dir], x + dx[dir]) = 1;
            set(y2, x2) = 1;
            y = y2, x = x2, turns = 0;
        } else {
            dir = (dir + 1) % 4;
            ++turns;
        }
    }
    return m;
}

HostArray serpentine(size_t ny, size_t nx) {
    return from_rows(ny, nx, [nx](size_t y, size_t x) {
        return y % 2 == 0 || (y % 4 == 1 && x == nx - 1) || (y % 4 == 3 && x == 0);
    });
}

HostArray checkerboard(size_t ny, size_t nx) {
    return from_rows(ny, nx, [](size_t y, size_t x) { return (y + x) % 2 == 0; });
}

}  // namespace kiln::test
