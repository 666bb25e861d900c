#pragma once
// PNG output for the samples (quick looks at images and masks) and PNG input
// of gray images, through Debian's stb_image and stb_image_write.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kiln/host_array.hpp"

namespace kiln::io {

/// How values map to gray levels. With x = (v - min) / (max - min) clamped to
/// [0, 1], linear gives x and log gives log10(1 + 1000 x) / log10(1001), which
/// spreads the faint end (astropy's LogStretch with a = 1000). The level is
/// round(255 * result).
enum class Stretch { linear, log };

/// Optional (min, max) of the stretch; without it, the min and max of the
/// finite values are used.
using Range = std::optional<std::pair<double, double>>;

/// One gray level per pixel, row by row, for a 2-D image of any dtype. NaN is
/// 0 (black); -inf and values below min are 0, +inf and values above max 255.
/// When min == max (a constant image) every finite pixel is 0. Throws
/// InvalidArgument for an image that is not 2-D or a range that is not finite
/// with min < max.
std::vector<uint8_t> to_gray8(const HostArray& image2d, Stretch stretch, Range range = {});

/// Writes a 2-D image of any dtype as an 8-bit gray PNG (see to_gray8),
/// atomically. Throws IoError when the file cannot be written.
void write_png_gray(const std::string& path, const HostArray& image2d, Stretch stretch,
                    Range range = {});

/// Writes width x height RGB pixels (3 bytes each, row by row) as a PNG,
/// atomically. Throws InvalidArgument when rgb.size() != width * height * 3.
void write_png_rgb(const std::string& path, int width, int height,
                   std::span<const uint8_t> rgb);

/// The image as gray RGB (see to_gray8) with label boundaries drawn in color.
/// A boundary pixel has a nonzero label and a 4-neighbour inside the image
/// with a different label (skimage's find_boundaries, mode "inner"); a label
/// touching the image edge is not closed along the edge. labels_int32 must be
/// int32 with the image's shape (else InvalidArgument).
std::vector<uint8_t> gray_to_rgb_with_outlines(const HostArray& image2d,
                                               const HostArray& labels_int32, Stretch stretch,
                                               std::array<uint8_t, 3> color, Range range = {});

/// Reads a single-channel gray PNG: 8-bit (and 1/2/4-bit, scaled to 0..255)
/// as uint8, 16-bit as uint16, shape (height, width). Colour, paletted and
/// gray+alpha PNGs throw IoError (convert them to gray first), as do files
/// that are not PNG or are corrupt.
HostArray read_png(const std::string& path);

/// read_png on bytes already in memory; name_for_errors stands in for the
/// path in messages (the fuzz harness feeds it).
HostArray parse_png(std::span<const std::byte> bytes, const std::string& name_for_errors);

} // namespace kiln::io
