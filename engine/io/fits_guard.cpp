#include "io/fits_guard.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "io/fits_header.hpp"
#include "io/fits_tiles.hpp"
#include "kiln/error.hpp"

namespace kiln::io {
namespace {

// The longest FITS string value (an 80-column card less "KEYWORD = ''").
constexpr size_t max_string = 68;
// cfitsio computes tile buffer sizes in 32-bit ints (8 bytes a pixel at most).
constexpr uint64_t max_tile_pixels = uint64_t(1) << 28;
// An uncompressed image kiln will ask cfitsio for: at most this many bytes,
// and at most this many times the file's size (deflate's best is about
// 1000:1; Rice and PLIO on flat data do somewhat better).
constexpr uint64_t max_image_bytes = uint64_t(16) << 30;
constexpr uint64_t max_ratio = 4096;
constexpr int max_compress_dim = 6;  // cfitsio's MAX_COMPRESS_DIM

const char* const compressions[] = {"RICE_1", "RICE_ONE", "GZIP_1", "GZIP_2", "PLIO_1", "NOCOMPRESS"};

void check_size(const FitsHdu& hdu, uint64_t file_size, const std::string& where) {
    const uint64_t bytes = *hdu.data_bytes;
    if (hdu.data_start <= file_size && bytes <= file_size - hdu.data_start) return;
    std::string axes;
    for (int i = 1; const std::string* n = hdu.value("NAXIS" + std::to_string(i)); ++i)
        axes += (i > 1 ? " x " : "") + *n;
    const uint64_t need = hdu.data_start + bytes;  // wraps only past 2^64, told apart below
    throw IoError(where + " declares " + std::to_string(bytes) + " bytes of data" +
                  (axes.empty() ? std::string() : " (NAXISn " + axes + ", BITPIX " + *hdu.value("BITPIX") + ")") +
                  " starting at byte " + std::to_string(hdu.data_start) + ", so the file needs " +
                  (need < hdu.data_start ? std::string("more than 2^64") : std::to_string(need)) +
                  " bytes; it has " + std::to_string(file_size) + " (truncated, or a header that overstates its data)");
}

void check_column_names(const FitsHdu& hdu, const std::string& where) {
    for (const auto& [keyword, value] : hdu.cards)
        if (keyword.rfind("TTYPE", 0) == 0 && value.size() > max_string)
            throw IoError(where + ": column name " + keyword + " has " + std::to_string(value.size()) +
                          " characters; FITS strings have at most " + std::to_string(max_string));
}

int64_t required(const FitsHdu& hdu, const std::string& keyword, const std::string& where) {
    const auto v = hdu.integer(keyword, where);
    if (!v) throw IoError(where + ": the required keyword " + keyword + " is missing");
    return *v;
}

// Rice parameters as cfitsio reads them (imcomp_get_compressed_image_par):
// ZVAL1 the block size (required), ZVAL2 bytes per pixel (4 when absent or
// when ZNAME2 is 'NOISEBIT', the oldest files' layout), swapped when the
// block size is below 16 and bytepix above 8 (older files).
void check_rice(const FitsHdu& hdu, TileLayout& t, const std::string& where) {
    int64_t block = required(hdu, "ZVAL1", where);
    const std::string* name2 = hdu.value("ZNAME2");
    std::string upper_name2 = name2 ? *name2 : std::string();
    for (char& c : upper_name2) c = char(std::toupper(static_cast<unsigned char>(c)));
    const bool old_format = upper_name2 == "NOISEBIT";
    int64_t bytepix = old_format ? 4 : hdu.integer("ZVAL2", where).value_or(4);
    if (block < 16 && bytepix > 8) std::swap(block, bytepix);
    if (block != 16 && block != 32)
        throw IoError(where + ": Rice block size ZVAL1 = " + std::to_string(block) + "; accepted: 16 or 32");
    if (bytepix != 1 && bytepix != 2 && bytepix != 4 && bytepix != 8)
        throw IoError(where + ": Rice bytes per pixel ZVAL2 = " + std::to_string(bytepix) + "; accepted: 1, 2, 4 or 8");
    t.rice_block = int(block);
    t.rice_bytepix = bytepix == 8 ? 4 : int(bytepix);  // cfitsio decodes 8 as 4
}

// Checks a compressed image's keywords and returns its tile layout.
TileLayout check_compressed(const FitsHdu& hdu, uint64_t file_size, const std::string& where) {
    TileLayout t;
    const std::string* type = hdu.value("ZCMPTYPE");
    if (!type) throw IoError(where + ": the required keyword ZCMPTYPE is missing");
    if (*type == "HCOMPRESS_1")
        throw IoError(where + ": HCOMPRESS_1 tiles are not read: cfitsio's HCOMPRESS decoder trusts the sizes in "
                      "each tile and reads and writes past its buffers on crafted tiles (found by kiln's FITS "
                      "fuzzer); accepted: RICE_1, GZIP_1, GZIP_2, PLIO_1, NOCOMPRESS (funpack or astropy "
                      "can rewrite the file uncompressed)");
    if (std::find(std::begin(compressions), std::end(compressions), *type) == std::end(compressions))
        throw IoError(where + ": compression ZCMPTYPE = '" + *type +
                      "' is unknown; accepted: RICE_1, GZIP_1, GZIP_2, PLIO_1, NOCOMPRESS");
    t.compression = *type;
    const int64_t zbitpix = required(hdu, "ZBITPIX", where);
    if (zbitpix != 8 && zbitpix != 16 && zbitpix != 32 && zbitpix != 64 && zbitpix != -32 && zbitpix != -64)
        throw IoError(where + ": ZBITPIX = " + std::to_string(zbitpix) + "; accepted: 8, 16, 32, 64, -32, -64");
    const int64_t zndim = required(hdu, "ZNAXIS", where);
    if (zndim < 1 || zndim > max_compress_dim)
        throw IoError(where + ": ZNAXIS = " + std::to_string(zndim) + "; accepted: 1 to " +
                      std::to_string(max_compress_dim));
    uint64_t pixels = 1, tiles = 1;
    t.tile_pixels = 1;
    std::string shape;
    for (int64_t i = 1; i <= zndim; ++i) {
        const std::string n = std::to_string(i);
        const int64_t extent = required(hdu, "ZNAXIS" + n, where);
        const int64_t tile = hdu.integer("ZTILE" + n, where).value_or(i == 1 ? extent : 1);
        if (extent < 1)
            throw IoError(where + ": ZNAXIS" + n + " = " + std::to_string(extent) + "; every axis must be >= 1");
        if (tile < 1 || tile > extent)
            throw IoError(where + ": tile size ZTILE" + n + " = " + std::to_string(tile) + "; accepted: 1 to ZNAXIS" +
                          n + " = " + std::to_string(extent));
        shape += (i > 1 ? " x " : "") + std::to_string(extent);
        if (__builtin_mul_overflow(pixels, uint64_t(extent), &pixels))
            throw IoError(where + ": an image of " + shape + "... pixels has more than 2^64 of them");
        t.tile_pixels *= uint64_t(tile);  // at most pixels: no overflow
        t.extents.push_back(uint64_t(extent));
        t.tile_dims.push_back(uint64_t(tile));
        tiles *= (uint64_t(extent) - 1) / uint64_t(tile) + 1;
    }
    if (t.tile_pixels > max_tile_pixels)
        throw IoError(where + ": tiles of " + std::to_string(t.tile_pixels) + " pixels; accepted: at most " +
                      std::to_string(max_tile_pixels) + " (2^28) pixels a tile");
    const uint64_t element = uint64_t(std::abs(zbitpix) / 8);
    const uint64_t limit = std::min(max_image_bytes, file_size > max_image_bytes / max_ratio ? max_image_bytes
                                                                                            : file_size * max_ratio);
    if (pixels > limit / element)
        throw IoError(where + ": the image is " + shape + " pixels of " + std::to_string(element) + " bytes (" +
                      (pixels > UINT64_MAX / element ? std::string("more than 2^64") : std::to_string(pixels * element)) +
                      " bytes uncompressed); kiln reads at most " + std::to_string(limit) + " bytes" +
                      " from this file (16 GiB, and at most 4096 times the file's " + std::to_string(file_size) +
                      " bytes)");
    t.tile_bytes = t.tile_pixels * std::max<uint64_t>(element, 4);  // cfitsio decodes into ints at least
    if (*type == "RICE_1" || *type == "RICE_ONE") check_rice(hdu, t, where);

    // The binary table: one row per tile, a heap inside the data.
    const int64_t naxis = required(hdu, "NAXIS", where), rows = required(hdu, "NAXIS2", where);
    const int64_t row_bytes = required(hdu, "NAXIS1", where), pcount = hdu.integer("PCOUNT", where).value_or(0);
    if (naxis != 2 || row_bytes < 1 || row_bytes > (1 << 20) || uint64_t(rows) != tiles)
        throw IoError(where + ": its table has NAXIS = " + std::to_string(naxis) + ", NAXIS1 = " +
                      std::to_string(row_bytes) + ", NAXIS2 = " + std::to_string(rows) +
                      "; a compressed image is a 2-D table with one row per tile (" + std::to_string(tiles) +
                      ") of at most 1 MiB (a few descriptors)");
    t.tiles = tiles;
    t.row_bytes = uint64_t(row_bytes);
    const uint64_t table = t.row_bytes * t.tiles;  // the data size did not overflow
    const int64_t heap = hdu.integer("THEAP", where).value_or(int64_t(table));
    if (heap < 0 || uint64_t(heap) < table || uint64_t(heap) > table + uint64_t(pcount))
        throw IoError(where + ": THEAP = " + std::to_string(heap) + " puts the heap outside the data; accepted: " +
                      std::to_string(table) + " (the table's bytes) to " + std::to_string(table + uint64_t(pcount)) +
                      " (plus PCOUNT)");
    t.heap_start = uint64_t(heap);
    t.heap_bytes = table + uint64_t(pcount) - t.heap_start;
    return t;
}

}  // namespace

void check_fits_file(const std::string& path) {
    const File file = File::open_read(path);
    const uint64_t file_size = file.size();
    const FitsScan scan = scan_fits(file, file_size);
    if (!scan.problem.empty()) throw IoError("FITS file '" + path + "': " + scan.problem);
    for (const FitsHdu& hdu : scan.hdus) {
        const std::string where = "FITS file '" + path + "': " + hdu.name();
        if (!hdu.data_bytes) {
            // An image too large to address: read_fits says so with its shape.
            // cfitsio must not parse a table's header, though.
            if (hdu.xtension != "BINTABLE" && hdu.xtension != "TABLE") return;
            throw IoError(where + " declares more than 2^64 bytes of data; the file has " + std::to_string(file_size));
        }
        check_size(hdu, file_size, where);
        if (hdu.xtension != "BINTABLE" && hdu.xtension != "TABLE") continue;
        check_column_names(hdu, where);
        check_table(hdu, where);
        const std::string* zimage = hdu.value("ZIMAGE");
        // cfitsio reads a logical from the value's first letter: anything
        // but a plain T or F could be a compressed image to it and not to kiln.
        if (zimage && *zimage != "T" && *zimage != "F")
            throw IoError(where + ": ZIMAGE = '" + *zimage + "' is not a logical value; accepted: T or F");
        if (hdu.xtension == "BINTABLE" && zimage && *zimage == "T") {
            const std::string image = where + ", a tile-compressed image";
            check_tiles(file, hdu, check_compressed(hdu, file_size, image), image);
        }
    }
}

}  // namespace kiln::io
