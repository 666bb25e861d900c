// The TIFF writer: a 2-D array as one page, a 3-D array as a stack of pages,
// uncompressed, through libtiff into a temporary file renamed into place.
#include <tiffio.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "io/file.hpp"
#include "io/tiff_util.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"

namespace kiln::io {
namespace {

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

uint16_t sample_format(DType t) {
    return dtype_is_float(t)    ? SAMPLEFORMAT_IEEEFP
           : dtype_is_signed(t) ? SAMPLEFORMAT_INT
                                : SAMPLEFORMAT_UINT;
}

}  // namespace

void write_tiff(const std::string& path, const HostArray& array) {
    check_array(path, array);
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
    {
        TiffHandle tif(TIFFOpenExt(temp.c_str(), array.nbytes() > classic_tiff_data_bytes ? "w8" : "w",
                                   messages.options()),
                       TIFFClose);
        if (!tif) fail("cannot be created (temporary file '" + temp + "')");
        // libtiff writes in the host's byte order, so it sends the array's own
        // bytes without copying or swapping them: it does not write through
        // the pointer it is given, whatever its type says.
        auto* data = const_cast<std::byte*>(array.bytes.data());
        for (size_t p = 0; p < pages; ++p) {
            TIFF* t = tif.get();
            const bool set = TIFFSetField(t, TIFFTAG_IMAGEWIDTH, width) &&
                             TIFFSetField(t, TIFFTAG_IMAGELENGTH, height) &&
                             TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, int(8 * dtype_size(array.dtype))) &&
                             TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, int(sample_format(array.dtype))) &&
                             TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1) &&
                             TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK) &&
                             TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
                             TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE) &&
                             TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, strip_rows);
            if (!set) fail("cannot describe page " + std::to_string(p));
            for (uint32_t row = 0, s = 0; row < height; row += strip_rows, ++s) {
                const auto bytes = tmsize_t(std::min(strip_rows, height - row) * row_bytes);
                if (TIFFWriteEncodedStrip(t, s, data + p * page_bytes + row * row_bytes, bytes) != bytes)
                    fail("cannot write strip " + std::to_string(s) + " of page " + std::to_string(p));
            }
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
