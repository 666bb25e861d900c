// The TIFF writer: a 2-D array as one page, a 3-D array as a stack of pages,
// in strips or tiles, compressed or not, through libtiff into a temporary
// file renamed into place.
#include <tiffio.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "io/file.hpp"
#include "io/tiff_util.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"

namespace kiln::io {

std::string_view tiff_compression_name(TiffCompression c) {
    switch (c) {
    case TiffCompression::none: return "none";
    case TiffCompression::lzw: return "lzw";
    case TiffCompression::deflate: return "deflate";
    case TiffCompression::zstd: return "zstd";
    }
    return "?";
}

TiffCompression parse_tiff_compression(std::string_view name) {
    for (TiffCompression c : {TiffCompression::none, TiffCompression::lzw, TiffCompression::deflate,
                              TiffCompression::zstd})
        if (name == tiff_compression_name(c)) return c;
    throw InvalidArgument("unknown TIFF compression '" + std::string(name) +
                          "'; accepted: none, lzw, deflate, zstd");
}

namespace {

uint16_t compression_tag(TiffCompression c) {
    switch (c) {
    case TiffCompression::none: return COMPRESSION_NONE;
    case TiffCompression::lzw: return COMPRESSION_LZW;
    case TiffCompression::deflate: return COMPRESSION_ADOBE_DEFLATE;
    case TiffCompression::zstd: return COMPRESSION_ZSTD;
    }
    return COMPRESSION_NONE;
}

// The pages' data through libtiff: strips of whole rows straight from the
// array, or tiles copied out of it (edge tiles padded with zeros, as TIFF
// stores whole tiles). false when libtiff refuses one.
class PageWriter {
public:
    PageWriter(TIFF* tif, const HostArray& array, const TiffWriteOptions& options, uint32_t strip_rows)
        : tif_(tif), array_(array), tile_(options.tile), strip_rows_(strip_rows),
          copy_(options.compression != TiffCompression::none) {
        width_ = uint32_t(array.shape.x());
        height_ = uint32_t(array.shape.y());
        element_ = dtype_size(array.dtype);
        row_bytes_ = uint64_t(width_) * element_;
        page_bytes_ = row_bytes_ * height_;
        if (tile_) buffer_.resize(size_t(tile_) * tile_ * element_);
    }

    // Tags that say how the data is laid out, after the image's own.
    bool set_layout() const {
        if (tile_) return TIFFSetField(tif_, TIFFTAG_TILEWIDTH, tile_) && TIFFSetField(tif_, TIFFTAG_TILELENGTH, tile_);
        return TIFFSetField(tif_, TIFFTAG_ROWSPERSTRIP, strip_rows_);
    }

    // Writes page p; returns "" or what failed.
    std::string write(size_t p) {
        // libtiff writes in the host's byte order, so it sends the array's own
        // bytes without swapping them; compressing codecs may modify the
        // buffer (the predictor does), so they get a copy.
        const std::byte* page = array_.bytes.data() + p * page_bytes_;
        if (!tile_) {
            for (uint32_t row = 0, s = 0; row < height_; row += strip_rows_, ++s) {
                const auto bytes = tmsize_t(std::min(strip_rows_, height_ - row) * row_bytes_);
                const std::byte* first = page + row * row_bytes_;
                if (copy_) strip_.assign(first, first + bytes);
                // Uncompressed, libtiff does not write through the pointer, whatever its type says.
                void* data = copy_ ? strip_.data() : const_cast<std::byte*>(first);
                if (TIFFWriteEncodedStrip(tif_, s, data, bytes) != bytes) return "strip " + std::to_string(s);
            }
            return "";
        }
        uint32_t index = 0;
        for (uint32_t y = 0; y < height_; y += tile_)
            for (uint32_t x = 0; x < width_; x += tile_, ++index) {
                std::fill(buffer_.begin(), buffer_.end(), std::byte{0});
                const uint32_t rows = std::min(tile_, height_ - y), cols = std::min(tile_, width_ - x);
                for (uint32_t r = 0; r < rows; ++r)
                    std::memcpy(buffer_.data() + size_t(r) * tile_ * element_,
                                page + (uint64_t(y) + r) * row_bytes_ + uint64_t(x) * element_, cols * element_);
                const auto bytes = tmsize_t(buffer_.size());
                if (TIFFWriteEncodedTile(tif_, index, buffer_.data(), bytes) != bytes)
                    return "tile " + std::to_string(index);
            }
        return "";
    }

private:
    TIFF* tif_;
    const HostArray& array_;
    uint32_t tile_, strip_rows_, width_ = 0, height_ = 0;
    bool copy_;
    size_t element_ = 0;
    uint64_t row_bytes_ = 0, page_bytes_ = 0;
    std::vector<std::byte> buffer_, strip_;
};

// Strips of about this many bytes: few enough entries in the directory,
// small enough that a reader need not hold a whole page at once.
constexpr uint64_t strip_target_bytes = uint64_t(1) << 20;

// Classic TIFF addresses 4 GiB; larger files are BigTIFF (libtiff's "w8"),
// with room left for the directories.
constexpr uint64_t classic_tiff_data_bytes = (uint64_t(1) << 32) - (uint64_t(1) << 26);

void check_array(const std::string& path, const HostArray& array) {
    const std::string where = "write_tiff: '" + path + "': ";
    if (array.shape.ndim() != 2 && array.shape.ndim() != 3)
        throw InvalidArgument(
            where + "the array has shape " + array.shape.str() +
            "; TIFF holds 2-D (height, width) images and 3-D (pages, height, width) stacks");
    if (array.nbytes() != byte_size(array.shape, array.dtype))
        throw InvalidArgument(where + "the array holds " + std::to_string(array.nbytes()) +
                              " bytes, but shape " + array.shape.str() + " of " +
                              std::string(dtype_name(array.dtype)) + " needs " +
                              std::to_string(byte_size(array.shape, array.dtype)));
    const uint64_t most = std::numeric_limits<uint32_t>::max();
    if (array.shape.y() > most || array.shape.x() > most)
        throw InvalidArgument(where + "the array has shape " + array.shape.str() +
                              "; a TIFF page has at most 4294967295 rows and columns");
}

void check_options(const std::string& path, const TiffWriteOptions& options) {
    const std::string where = "write_tiff: '" + path + "': ";
    if (options.tile % 16)
        throw InvalidArgument(where + "tile size " + std::to_string(options.tile) +
                              "; TIFF tiles are a multiple of 16 pixels on each side (0 writes strips)");
    const uint16_t codec = compression_tag(options.compression);
    if (!TIFFIsCODECConfigured(codec))
        throw Unsupported(where + "this libtiff cannot write " +
                          std::string(tiff_compression_name(options.compression)) +
                          "-compressed TIFF; use none, lzw or deflate");
}

uint16_t sample_format(DType t) {
    return dtype_is_float(t)    ? SAMPLEFORMAT_IEEEFP
           : dtype_is_signed(t) ? SAMPLEFORMAT_INT
                                : SAMPLEFORMAT_UINT;
}

}  // namespace

void write_tiff(const std::string& path, const HostArray& array) { write_tiff(path, array, TiffWriteOptions{}); }

void write_tiff(const std::string& path, const HostArray& array, const TiffWriteOptions& options) {
    check_array(path, array);
    check_options(path, options);
    std::error_code ec;
    const std::string temp = create_temporary_beside(path, ec);
    if (temp.empty()) throw IoError("TIFF file '" + path + "': cannot be created: " + ec.message());
    TiffMessages messages;
    messages.set_name(temp);
    auto fail = [&](const std::string& problem) {
        std::filesystem::remove(temp, ec);
        const std::string text = messages.text();
        throw IoError("TIFF file '" + path + "': " + problem + (text.empty() ? "" : "; libtiff: " + text));
    };
    const uint32_t width = uint32_t(array.shape.x()), height = uint32_t(array.shape.y());
    const size_t pages = array.shape.z();
    const uint64_t page_bytes = array.nbytes() / pages, row_bytes = page_bytes / height;
    const auto strip_rows = uint32_t(std::clamp<uint64_t>(strip_target_bytes / row_bytes, 1, height));
    const uint16_t codec = compression_tag(options.compression);
    // Compressed data is mostly smaller, but LZW may grow incompressible
    // data by half: room for that keeps a classic file within its 4 GiB.
    const uint64_t most = codec == COMPRESSION_NONE ? array.nbytes() : array.nbytes() + array.nbytes() / 2;
    const bool big = options.bigtiff || most > classic_tiff_data_bytes;
    {
        TiffHandle tif(TIFFOpenExt(temp.c_str(), big ? "w8" : "w", messages.options()), TIFFClose);
        if (!tif) fail("cannot be created (temporary file '" + temp + "')");
        PageWriter writer(tif.get(), array, options, strip_rows);
        // Horizontal differencing makes smooth integer images compress better
        // (floats would need the floating-point predictor, not written here).
        const bool predict = codec != COMPRESSION_NONE && !dtype_is_float(array.dtype);
        for (size_t p = 0; p < pages; ++p) {
            TIFF* t = tif.get();
            const bool set = TIFFSetField(t, TIFFTAG_IMAGEWIDTH, width) &&
                             TIFFSetField(t, TIFFTAG_IMAGELENGTH, height) &&
                             TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, int(8 * dtype_size(array.dtype))) &&
                             TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, int(sample_format(array.dtype))) &&
                             TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1) &&
                             TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK) &&
                             TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
                             TIFFSetField(t, TIFFTAG_COMPRESSION, int(codec)) &&
                             (!predict || TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL)) &&
                             writer.set_layout();
            if (!set) fail("cannot describe page " + std::to_string(p));
            if (const std::string failed = writer.write(p); !failed.empty())
                fail("cannot write " + failed + " of page " + std::to_string(p));
            if (!TIFFWriteDirectory(t)) fail("cannot write the directory of page " + std::to_string(p));
        }
        if (!TIFFFlush(tif.get()) || messages.any_error()) fail("cannot be written");
    }
    try {
        File::open_read(temp).sync_and_close();  // on disk before it takes PATH's name
    } catch (const IoError& e) {
        fail(std::string("cannot be flushed to disk: ") + e.what());
    }
    if (const std::error_code moved = move_into_place(temp, path))
        throw IoError("TIFF file '" + path + "': cannot be renamed into place from '" + temp +
                      "': " + moved.message());
}

}  // namespace kiln::io
