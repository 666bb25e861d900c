#include "stress/stress_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace kiln::test::stress {

namespace {

uint64_t positive_env(const char* name) {
    const char* s = std::getenv(name);
    if (!s || !*s) return 1;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (*end != '\0' || v < 1 || s[0] == '-')
        throw InvalidArgument(std::string(name) + "='" + s + "' is not a positive integer (e.g. 1, 8, 50)");
    return v;
}

}  // namespace

uint64_t repeat_count() {
    return positive_env("KILN_STRESS_REPEAT");
}

size_t scale() {
    return static_cast<size_t>(positive_env("KILN_STRESS_SCALE"));
}

size_t scaled(size_t n) {
    return n * scale();
}

void repeat(const std::function<void(uint64_t)>& body) {
    const uint64_t n = repeat_count();
    for (uint64_t r = 0; r < n; ++r) {
        INFO("repetition " << r << " of " << n << " (scale " << scale() << ")");
        body(r);
    }
}

HostArray comb(size_t ny, size_t nx) {
    return from_rows(ny, nx, [ny](size_t y, size_t x) { return x % 2 == 0 || y == ny - 1; });
}

HostArray dots(size_t ny, size_t nx, size_t step) {
    return from_rows(ny, nx, [step](size_t y, size_t x) { return y % step == 0 && x % step == 0; });
}

HostArray one_pixel(Shape shape, size_t i) {
    HostArray m(shape, DType::uint8);
    m.as<uint8_t>()[i] = 1;
    return m;
}

HostArray full(Shape shape) {
    HostArray m(shape, DType::uint8);
    for (auto& v : m.as<uint8_t>()) v = 1;
    return m;
}

HostArray serpentine_3d(size_t nz, size_t ny, size_t nx) {
    const HostArray slab = serpentine(ny, nx);
    HostArray m(Shape{nz, ny, nx}, DType::uint8);
    auto v = m.as<uint8_t>();
    const size_t plane = ny * nx;
    for (size_t z = 0; z < nz; ++z) {
        if (z % 2 == 0) {
            std::copy(slab.as<uint8_t>().begin(), slab.as<uint8_t>().end(), v.begin() + long(z * plane));
        } else {
            // Both neighbouring slabs hold their first and last pixel (rows 0
            // and ny - 1 are full for odd ny).
            v[z * plane + (z % 4 == 1 ? plane - 1 : 0)] = 1;
        }
    }
    return m;
}

HostArray checkerboard_3d(size_t nz, size_t ny, size_t nx) {
    HostArray m(Shape{nz, ny, nx}, DType::uint8);
    auto v = m.as<uint8_t>();
    for (size_t z = 0; z < nz; ++z)
        for (size_t y = 0; y < ny; ++y)
            for (size_t x = 0; x < nx; ++x) v[(z * ny + y) * nx + x] = (z + y + x) % 2 == 0;
    return m;
}

}  // namespace kiln::test::stress
