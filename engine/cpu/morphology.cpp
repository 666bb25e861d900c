// CPU reference of the morphology (kiln/reference/morphology.hpp).
#include "kiln/reference/morphology.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "kiln/error.hpp"

namespace kiln::cpu {

namespace {

using Offsets = std::vector<std::array<int, 3>>;

// The position ndimage reads for i on an axis of n under mode; -1: cval.
int64_t extend(int64_t i, int64_t n, NdMode mode) {
    if (i >= 0 && i < n) return i;
    switch (mode) {
        case NdMode::constant:
            return -1;
        case NdMode::nearest:
            return i < 0 ? 0 : n - 1;
        case NdMode::wrap:
            return ((i % n) + n) % n;
        case NdMode::mirror: {
            if (n == 1) return 0;
            const int64_t period = 2 * n - 2, k = std::llabs(i) % period;
            return k >= n ? period - k : k;
        }
        case NdMode::reflect: {
            const int64_t k = (i < 0 ? -1 - i : i) % (2 * n);
            return k < n ? k : 2 * n - 1 - k;
        }
    }
    return -1;
}

// Where each offset reads for position (z, y, x); -1: outside.
template <typename F>
void for_each_element(const Shape& s, F&& f) {
    const int64_t nz = int64_t(s.z()), ny = int64_t(s.y()), nx = int64_t(s.x());
    for (int64_t z = 0; z < nz; ++z)
        for (int64_t y = 0; y < ny; ++y)
            for (int64_t x = 0; x < nx; ++x) f(z, y, x, size_t((z * ny + y) * nx + x));
}

int64_t source(const Shape& s, int64_t z, int64_t y, int64_t x, const std::array<int, 3>& o, NdMode mode) {
    const int64_t iz = extend(z + o[0], int64_t(s.z()), mode), iy = extend(y + o[1], int64_t(s.y()), mode),
                  ix = extend(x + o[2], int64_t(s.x()), mode);
    if (iz < 0 || iy < 0 || ix < 0) return -1;
    return (iz * int64_t(s.y()) + iy) * int64_t(s.x()) + ix;
}

// SciPy's C cast of a double to an integer element: truncation, then the
// low bits (what x86 gives for values within int64).
template <typename T>
T convert(double v) {
    if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(v);
    else
        return static_cast<T>(static_cast<int64_t>(std::trunc(v)));
}

// v + T(s) as C computes `T v; v += (T)s;`: integers wrap, float32 adds
// in float.
template <typename T>
T add_in_type(T v, double s) {
    if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(v + static_cast<T>(s));
    else
        return convert<T>(double(v) + std::trunc(s));
}

// The structure values in the order offsets() lists the footprint's elements.
std::vector<double> heights_in_offset_order(const Footprint& f, const std::vector<double>& structure) {
    if (structure.empty()) return {};
    if (structure.size() != f.mask.size())
        throw InvalidArgument("grey morphology: " + std::to_string(structure.size()) +
                              " structure values for a footprint of " + std::to_string(f.mask.size()) +
                              " elements; give one per element");
    std::vector<double> h;
    for (size_t i = 0; i < f.mask.size(); ++i)
        if (f.mask[i]) h.push_back(structure[i]);
    return h;
}

std::vector<uint8_t> truth(const HostArray& a) {
    std::vector<uint8_t> t(a.size());
    for (size_t i = 0; i < a.size(); ++i) t[i] = a.at(i) != 0;
    return t;
}

Footprint structure_or_default(const Footprint& s, size_t ndim) {
    return s.ndim() == 0 ? Footprint::binary_structure(ndim, 1) : s;
}

// One erosion (all of the offsets' values true) of `in`; `dilate`: one
// dilation (any true) instead. Returns whether anything changed.
bool binary_step(const Shape& shape, const std::vector<uint8_t>& in, std::vector<uint8_t>& out,
                 const Offsets& offsets, const std::vector<uint8_t>* mask, bool border, bool dilate) {
    bool changed = false;
    for_each_element(shape, [&](int64_t z, int64_t y, int64_t x, size_t i) {
        uint8_t v = in[i];
        if (!mask || (*mask)[i]) {
            bool all = true, any = false;
            for (const auto& o : offsets) {
                const int64_t j = source(shape, z, y, x, o, NdMode::constant);
                const bool b = j < 0 ? border : in[size_t(j)] != 0;
                all = all && b;
                any = any || b;
            }
            v = dilate ? any : all;
        }
        changed = changed || v != in[i];
        out[i] = v;
    });
    return changed;
}

HostArray binary_op(const HostArray& input, const Footprint& structure, int iterations,
                    const HostArray* mask, bool border_value, bool dilate) {
    const Footprint s = structure_or_default(structure, input.shape.ndim());
    Offsets offsets = s.offsets(input.shape.ndim());
    if (dilate)
        for (auto& o : offsets) o = {-o[0], -o[1], -o[2]};
    std::vector<uint8_t> m;
    if (mask) {
        if (!(mask->shape == input.shape))
            throw InvalidArgument("binary morphology: mask " + mask->shape.str() + " for input " +
                                  input.shape.str() + "; give a mask of the input's shape");
        m = truth(*mask);
    }
    std::vector<uint8_t> a = truth(input), b(a.size());
    for (int i = 0; iterations < 1 || i < iterations; ++i) {
        const bool changed = binary_step(input.shape, a, b, offsets, mask ? &m : nullptr, border_value, dilate);
        a.swap(b);
        if (!changed) break;
    }
    return HostArray::from(input.shape, std::span<const uint8_t>(a));
}

}  // namespace

HostArray min_or_max_filter(const HostArray& input, const Footprint& footprint,
                            const std::vector<double>& structure, NdMode mode, double cval,
                            bool minimum) {
    const Offsets offsets = footprint.offsets(input.shape.ndim());
    std::vector<double> h = heights_in_offset_order(footprint, structure);
    if (minimum)
        for (double& v : h) v = -v;
    HostArray out(input.shape, input.dtype);
    visit_dtype(input.dtype, [&](auto t) {
        using T = decltype(t);
        auto src = input.as<T>();
        auto dst = out.as<T>();
        const T border = convert<T>(cval);
        for_each_element(input.shape, [&](int64_t z, int64_t y, int64_t x, size_t i) {
            double best = 0;
            for (size_t k = 0; k < offsets.size(); ++k) {
                const int64_t j = source(input.shape, z, y, x, offsets[k], mode);
                const T v = j < 0 ? border : src[size_t(j)];
                // SciPy's C loop: the first element plus its value in double,
                // every other one plus its value converted to T, in T.
                double d = double(v);
                if (!h.empty()) d = k == 0 ? d + h[0] : double(add_in_type<T>(v, h[k]));
                if (k == 0 || (minimum ? d < best : d > best)) best = d;
            }
            dst[i] = convert<T>(best);
        });
    });
    return out;
}

HostArray grey_erosion(const HostArray& input, const Footprint& footprint,
                       const std::vector<double>& structure, NdMode mode, double cval) {
    return min_or_max_filter(input, footprint, structure, mode, cval, true);
}

HostArray grey_dilation(const HostArray& input, const Footprint& footprint,
                        const std::vector<double>& structure, NdMode mode, double cval) {
    return min_or_max_filter(input, footprint.reflected(),
                             std::vector<double>(structure.rbegin(), structure.rend()), mode, cval, false);
}

HostArray binary_erosion(const HostArray& input, const Footprint& structure, int iterations,
                         const HostArray* mask, bool border_value) {
    return binary_op(input, structure, iterations, mask, border_value, false);
}

HostArray binary_dilation(const HostArray& input, const Footprint& structure, int iterations,
                          const HostArray* mask, bool border_value) {
    return binary_op(input, structure, iterations, mask, border_value, true);
}

HostArray binary_fill_holes(const HostArray& input, const Footprint& structure) {
    HostArray background(input.shape, DType::uint8);
    auto bg = background.as<uint8_t>();
    for (size_t i = 0; i < input.size(); ++i) bg[i] = input.at(i) == 0;
    const HostArray reached =
        binary_dilation(HostArray(input.shape, DType::uint8), structure, -1, &background, true);
    HostArray out(input.shape, DType::uint8);
    auto r = reached.as<uint8_t>();
    auto o = out.as<uint8_t>();
    for (size_t i = 0; i < out.size(); ++i) o[i] = !r[i];
    return out;
}

}  // namespace kiln::cpu
