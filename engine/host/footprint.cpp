// Footprints (kiln/footprint.hpp): boxes, scipy's binary structures and
// arrays, and their offsets from the centre.
#include "kiln/footprint.hpp"

#include <cstdlib>
#include <string>

#include "kiln/error.hpp"

namespace kiln {

namespace {

Shape shape_of(const std::vector<size_t>& dims) { return Shape::of(dims.size(), dims.data()); }

}  // namespace

Footprint Footprint::box(const std::vector<int64_t>& sizes) {
    if (sizes.empty() || sizes.size() > 3)
        throw InvalidArgument("footprint: " + std::to_string(sizes.size()) +
                              " sizes given; give one size per axis, 1 to 3 of them");
    std::vector<size_t> dims;
    for (int64_t s : sizes) {
        if (s < 1 || s > (int64_t(1) << 20))
            throw InvalidArgument("footprint: size " + std::to_string(s) +
                                  " is not accepted; sizes are whole numbers from 1 to 2^20");
        dims.push_back(size_t(s));
    }
    Footprint f;
    f.shape = shape_of(dims);
    f.mask.assign(f.shape.size(), 1);
    return f;
}

Footprint Footprint::binary_structure(size_t rank, int connectivity) {
    if (rank < 1 || rank > 3)
        throw InvalidArgument("binary structure: rank " + std::to_string(rank) + " is not accepted; 1 to 3");
    if (connectivity < 1 || size_t(connectivity) > rank)
        throw InvalidArgument("binary structure: connectivity " + std::to_string(connectivity) +
                              " is not accepted; 1 to the rank (" + std::to_string(rank) + ")");
    Footprint f;
    f.shape = shape_of(std::vector<size_t>(rank, 3));
    f.mask.resize(f.shape.size());
    for (size_t i = 0; i < f.mask.size(); ++i) {
        int steps = 0;
        for (size_t d = 0, rest = i; d < rank; ++d, rest /= 3) steps += (rest % 3) != 1;
        f.mask[i] = steps <= connectivity;
    }
    return f;
}

Footprint Footprint::from_host(const HostArray& array) {
    Footprint f;
    f.shape = array.shape;
    f.mask.resize(array.size());
    for (size_t i = 0; i < array.size(); ++i) f.mask[i] = array.at(i) != 0;
    if (f.count() == 0)
        throw InvalidArgument("footprint: the array " + array.shape.str() +
                              " has no nonzero element; a footprint needs at least one");
    return f;
}

size_t Footprint::count() const {
    size_t n = 0;
    for (uint8_t m : mask) n += m != 0;
    return n;
}

bool Footprint::is_box() const { return count() == mask.size(); }

std::vector<std::array<int, 3>> Footprint::offsets(size_t ndim) const {
    const size_t k = shape.ndim();
    if (k > ndim)
        throw InvalidArgument("footprint: a " + std::to_string(k) + "-D footprint " + shape.str() +
                              " for a " + std::to_string(ndim) + "-D array; give at most " +
                              std::to_string(ndim) + " dimensions");
    if (!origin.empty() && origin.size() != k)
        throw InvalidArgument("footprint: " + std::to_string(origin.size()) + " origins for a " +
                              std::to_string(k) + "-D footprint; give one per axis");
    std::array<int, 3> centre{0, 0, 0};
    for (size_t d = 0; d < k; ++d) {
        const int n = int(shape[d]), o = origin.empty() ? 0 : origin[d];
        if (o < -(n / 2) || o > (n - 1) / 2)
            throw InvalidArgument("footprint: origin " + std::to_string(o) + " on an axis of " +
                                  std::to_string(n) + " is not accepted; " + std::to_string(-(n / 2)) +
                                  " to " + std::to_string((n - 1) / 2));
        centre[3 - k + d] = n / 2 + o;
    }
    std::vector<std::array<int, 3>> out;
    const int nz = int(shape.z()), ny = int(shape.y()), nx = int(shape.x());
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x)
                if (mask[(size_t(z) * ny + y) * nx + x])
                    out.push_back({z - centre[0], y - centre[1], x - centre[2]});
    return out;
}

Footprint Footprint::reflected() const {
    Footprint f = *this;
    for (size_t i = 0; i < mask.size(); ++i) f.mask[i] = mask[mask.size() - 1 - i];
    // SciPy's dilations negate the origin and move it one back along even
    // axes: the centre lands on the mirror of the old one, so every offset
    // is negated exactly.
    if (!origin.empty() && origin.size() != shape.ndim()) return f;  // offsets() says what is wrong
    f.origin.assign(shape.ndim(), 0);
    for (size_t d = 0; d < shape.ndim(); ++d)
        f.origin[d] = -(origin.empty() ? 0 : origin[d]) - (shape[d] % 2 == 0 ? 1 : 0);
    return f;
}

}  // namespace kiln
