#pragma once
// The copies around an FFT plan's work buffer (shaders/complex_copy.comp):
// between real and complex boxes, padding, cropping and scaling.
#include <array>
#include <cstdint>

#include "kiln/array.hpp"

namespace kiln::ops {

/// A (z, y, x) box of real or complex elements, rows `pitch` elements apart.
struct FftBox {
    std::array<uint64_t, 3> extent{1, 1, 1};  // z, y, x
    uint64_t pitch = 0;                       // 0: extent[2]
    bool complex = false;
};

enum class PartOf { value, imag, abs };

/// dst box (in dst) = src box (in src, from `origin` (z, y, x) on, zero past
/// its end) times scale; `part` takes a complex source's imaginary part or
/// magnitude. Both arrays of one precision.
void complex_copy(const Array& src, const FftBox& sbox, const Array& dst, const FftBox& dbox, double scale,
                  std::array<uint64_t, 3> origin = {0, 0, 0}, PartOf part = PartOf::value);

/// The box of a whole array (3-D, leading extents 1).
FftBox box_of(const Array& a);

} // namespace kiln::ops
