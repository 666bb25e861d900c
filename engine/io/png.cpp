#include "kiln/io.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "io/file.hpp"
#include "kiln/error.hpp"

// The stb implementations are compiled here with internal linkage, so kiln
// needs no link flag for them and cannot clash with another copy of stb (for
// example Debian's libstb) linked into the same program.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image_write.h>
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_NO_STDIO
#define STBI_ONLY_PNG
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

namespace kiln::io {
namespace {

void check_image(const char* fn, const HostArray& image) {
    if (image.shape.ndim() != 2)
        throw InvalidArgument(std::string(fn) + ": the image has shape " + image.shape.str() +
                              "; a 2-D (height, width) image is needed");
    if (image.bytes.size() != image.shape.size() * dtype_size(image.dtype))
        throw InvalidArgument(std::string(fn) + ": the image holds " +
                              std::to_string(image.bytes.size()) + " bytes, but shape " +
                              image.shape.str() + " of " + std::string(dtype_name(image.dtype)) +
                              " needs " +
                              std::to_string(image.shape.size() * dtype_size(image.dtype)));
    // stb takes sizes as int.
    if (image.shape.x() > (1u << 24) || image.shape.y() > (1u << 24))
        throw InvalidArgument(std::string(fn) + ": the image is " + image.shape.str() +
                              "; PNG output accepts at most 16777216 pixels per side");
}

std::pair<double, double> stretch_range(const HostArray& image, Range range) {
    if (range) {
        auto [lo, hi] = *range;
        if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
            throw InvalidArgument("PNG stretch range (" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + ") is invalid; min and max must be "
                                  "finite with min < max");
        return *range;
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (size_t i = 0; i < image.size(); ++i) {
        double v = image.at(i);
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    return {lo, hi};
}

void write_png(const std::string& path, int width, int height, int channels,
               const uint8_t* pixels) {
    std::vector<std::byte> out;
    auto append = [](void* context, void* data, int size) {
        auto* v = static_cast<std::vector<std::byte>*>(context);
        auto* p = static_cast<const std::byte*>(data);
        v->insert(v->end(), p, p + size);
    };
    if (!stbi_write_png_to_func(append, &out, width, height, channels, pixels,
                                width * channels))
        throw IoError(path + ": PNG encoding failed (out of memory?)");
    std::span<const std::byte> parts[] = {out};
    write_file_atomically(path, parts);
}

} // namespace

std::vector<uint8_t> to_gray8(const HostArray& image2d, Stretch stretch, Range range) {
    check_image("to_gray8", image2d);
    auto [lo, hi] = stretch_range(image2d, range);
    std::vector<uint8_t> gray(image2d.size(), 0);
    if (!(lo < hi)) return gray; // constant, or no finite value at all
    const double log_norm = std::log10(1001.0);
    for (size_t i = 0; i < gray.size(); ++i) {
        double v = image2d.at(i);
        if (std::isnan(v)) continue;
        double x = std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
        if (stretch == Stretch::log) x = std::log10(1.0 + 1000.0 * x) / log_norm;
        gray[i] = uint8_t(std::lround(255.0 * x));
    }
    return gray;
}

void write_png_gray(const std::string& path, const HostArray& image2d, Stretch stretch,
                    Range range) {
    std::vector<uint8_t> gray = to_gray8(image2d, stretch, range);
    write_png(path, int(image2d.shape.x()), int(image2d.shape.y()), 1, gray.data());
}

void write_png_rgb(const std::string& path, int width, int height,
                   std::span<const uint8_t> rgb) {
    if (width < 1 || height < 1 || width > (1 << 24) || height > (1 << 24) ||
        rgb.size() != size_t(width) * size_t(height) * 3)
        throw InvalidArgument("write_png_rgb: " + std::to_string(rgb.size()) +
                              " bytes given for " + std::to_string(width) + " x " +
                              std::to_string(height) +
                              " pixels; width and height must be >= 1 and the bytes "
                              "width * height * 3 (R, G, B per pixel, row by row)");
    write_png(path, width, height, 3, rgb.data());
}

std::vector<uint8_t> gray_to_rgb_with_outlines(const HostArray& image2d,
                                               const HostArray& labels_int32, Stretch stretch,
                                               std::array<uint8_t, 3> color, Range range) {
    std::vector<uint8_t> gray = to_gray8(image2d, stretch, range);
    if (labels_int32.dtype != DType::int32 || labels_int32.shape != image2d.shape ||
        labels_int32.bytes.size() != labels_int32.shape.size() * 4)
        throw InvalidArgument("gray_to_rgb_with_outlines: labels are " +
                              labels_int32.shape.str() + " " +
                              std::string(dtype_name(labels_int32.dtype)) + " but the image is " +
                              image2d.shape.str() + "; labels must be int32 of the image's shape");
    auto labels = labels_int32.as<int32_t>();
    size_t h = image2d.shape.y(), w = image2d.shape.x();
    std::vector<uint8_t> rgb(h * w * 3);
    for (size_t y = 0; y < h; ++y) {
        for (size_t x = 0; x < w; ++x) {
            size_t i = y * w + x;
            int32_t l = labels[i];
            bool edge = l != 0 && ((x > 0 && labels[i - 1] != l) ||
                                   (x + 1 < w && labels[i + 1] != l) ||
                                   (y > 0 && labels[i - w] != l) ||
                                   (y + 1 < h && labels[i + w] != l));
            for (size_t c = 0; c < 3; ++c) rgb[3 * i + c] = edge ? color[c] : gray[i];
        }
    }
    return rgb;
}

HostArray read_png(const std::string& path) { return parse_png(read_file_bytes(path), path); }

HostArray parse_png(std::span<const std::byte> file, const std::string& path) {
    static constexpr unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (file.size() < 8 || std::memcmp(file.data(), signature, 8) != 0)
        throw IoError(path + ": not a PNG file (bad signature)");
    if (file.size() > size_t(std::numeric_limits<int>::max()))
        throw IoError(path + ": PNG file too large (over 2 GiB)");
    auto* bytes = reinterpret_cast<const stbi_uc*>(file.data());
    int len = int(file.size()), w = 0, h = 0, channels = 0;
    if (!stbi_info_from_memory(bytes, len, &w, &h, &channels))
        throw IoError(path + ": corrupt PNG (" + stbi_failure_reason() + ")");
    if (channels != 1)
        throw IoError(path + ": PNG has " + std::to_string(channels) +
                      " channels (gray+alpha, RGB, RGBA or paletted); kiln reads single-channel "
                      "gray PNGs, convert it to gray first");
    bool sixteen = stbi_is_16_bit_from_memory(bytes, len);
    DType dtype = sixteen ? DType::uint16 : DType::uint8;
    void* pixels = sixteen ? static_cast<void*>(stbi_load_16_from_memory(bytes, len, &w, &h,
                                                                         &channels, 1))
                           : static_cast<void*>(stbi_load_from_memory(bytes, len, &w, &h,
                                                                      &channels, 1));
    if (!pixels) throw IoError(path + ": corrupt PNG (" + stbi_failure_reason() + ")");
    std::unique_ptr<void, void (*)(void*)> owner(pixels, stbi_image_free);
    HostArray out(Shape{size_t(h), size_t(w)}, dtype);
    std::memcpy(out.bytes.data(), pixels, out.nbytes());
    return out;
}

} // namespace kiln::io
