#pragma once
// What the morphology kernels (shaders/morph_*.comp) share: a footprint's
// offsets on the device, as ivec4 (dz, dy, dx, linear step) with their
// extremes per axis, for the kernels' inside-the-array fast path.
#include <array>
#include <vector>

#include "kiln/array.hpp"
#include "ops/kernel.hpp"

namespace kiln::ops::morph {

struct DeviceOffsets {
    Array offsets;  ///< int32, 4 per offset
    uint32_t count = 0;
    std::array<int32_t, 3> lo{}, hi{};  ///< the smallest and largest offset per axis (z, y, x)
};

/// The offsets for an array of `shape` (uploaded as a kernel writes them
/// inside a Graph capture).
DeviceOffsets upload_offsets(const Context& ctx, const std::vector<std::array<int, 3>>& offsets,
                             const Shape& shape);

/// The workgroup of the kernels that loop with FOR_EACH_ZYX (morph.glsl):
/// rows of 64 x 4 for images and volumes, 256 along a 1-D array.
std::array<uint32_t, 3> zyx_local(const Shape& shape);
/// Records `d` over a grid covering `shape` (capped per axis; the kernels
/// loop over the rest).
void record_zyx(Dispatcher& d, const Shape& shape);

/// Element counts up to this are dispatched (the kernels index in 32 bits).
void check_size(const Array& a, const char* op);

}  // namespace kiln::ops::morph
