#include "io/fits_tiles.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <vector>

#include "kiln/error.hpp"

namespace kiln::io {
namespace {

// A variable-length column holding each tile's bytes: where its descriptor
// sits in a row and what one element of the array it points to takes.
struct ArrayColumn {
    std::string name;
    uint64_t offset = 0;      // of the descriptor in the row
    bool wide = false;        // Q (two 64-bit integers), else P (two 32-bit)
    uint64_t element = 1;     // bytes per element in the heap
};

uint64_t element_bytes(char type) {
    switch (type) {
    case 'L': case 'B': case 'A': case 'X': return 1;
    case 'I': return 2;
    case 'J': case 'E': return 4;
    case 'K': case 'D': case 'C': case 'P': return 8;
    case 'M': case 'Q': return 16;
    default: return 0;
    }
}

std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// The columns named COMPRESSED_DATA, GZIP_COMPRESSED_DATA and
// UNCOMPRESSED_DATA, after checking that the TFORMs add up to NAXIS1.
std::vector<ArrayColumn> array_columns(const FitsHdu& hdu, uint64_t row_bytes, const std::string& where) {
    const int64_t fields = hdu.integer("TFIELDS", where).value_or(0);
    if (fields < 1 || fields > 999)
        throw IoError(where + ": TFIELDS = " + std::to_string(fields) + "; accepted: 1 to 999 columns");
    std::vector<ArrayColumn> found;
    uint64_t offset = 0;
    for (int64_t i = 1; i <= fields; ++i) {
        const std::string n = std::to_string(i);
        const std::string* form = hdu.value("TFORM" + n);
        if (!form) throw IoError(where + ": column " + n + " has no TFORM" + n);
        const std::string f = upper(*form);
        const size_t letter = f.find_first_not_of("0123456789");
        const uint64_t repeat = letter == 0 ? 1 : std::strtoull(f.substr(0, letter).c_str(), nullptr, 10);
        const char type = letter == std::string::npos ? '?' : f[letter];
        const uint64_t bytes = element_bytes(type);
        if (bytes == 0 || letter > 9)
            throw IoError(where + ": TFORM" + n + " = '" + *form + "' is not a binary table format");
        const uint64_t width = type == 'X' ? (repeat + 7) / 8 : repeat * bytes;
        const std::string* name = hdu.value("TTYPE" + n);
        const std::string column = name ? upper(*name) : std::string();
        if (column == "COMPRESSED_DATA" || column == "GZIP_COMPRESSED_DATA" || column == "UNCOMPRESSED_DATA") {
            const char held = letter + 1 < f.size() ? f[letter + 1] : 'B';  // "1PB(max)": bytes
            if ((type != 'P' && type != 'Q') || repeat != 1 || element_bytes(held) == 0 || held == 'P' || held == 'Q')
                throw IoError(where + ": column " + column + " has TFORM" + n + " = '" + *form +
                              "'; accepted: a variable-length array, 1P or 1Q with an element type (e.g. 1PB)");
            found.push_back({column, offset, type == 'Q', element_bytes(held)});
        }
        offset += width;
        if (offset > row_bytes) break;
    }
    if (offset != row_bytes)
        throw IoError(where + ": its columns (TFORMn) take " + std::to_string(offset) + " bytes a row, but NAXIS1 = " +
                      std::to_string(row_bytes));
    if (std::none_of(found.begin(), found.end(), [](auto& c) { return c.name == "COMPRESSED_DATA"; }))
        throw IoError(where + ": it has no COMPRESSED_DATA column");
    return found;
}

uint64_t big_endian(const std::byte* p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = v << 8 | uint64_t(p[i]);
    return v;
}

// True when the gzip stream ends, having given at most `limit` bytes; the
// output is thrown away as it comes (cfitsio would grow a buffer without
// bound for a stream that never ends).
bool gzip_ends_within(const std::vector<std::byte>& in, uint64_t limit) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 16) != Z_OK) throw IoError("zlib: inflateInit2 failed");
    std::array<unsigned char, 1 << 16> out;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    z.avail_in = uInt(in.size());
    int r = Z_OK;
    while (r == Z_OK) {
        z.next_out = out.data();
        z.avail_out = uInt(out.size());
        r = inflate(&z, Z_NO_FLUSH);
        if (z.total_out > limit) r = Z_DATA_ERROR;
        if (r == Z_BUF_ERROR || (r == Z_OK && z.avail_in == 0 && z.avail_out != 0)) r = Z_DATA_ERROR;
    }
    inflateEnd(&z);
    return r == Z_STREAM_END;
}

}  // namespace

void check_tiles(const File& file, const FitsHdu& hdu, const TileLayout& t, const std::string& where) {
    const std::vector<ArrayColumn> columns = array_columns(hdu, t.row_bytes, where);
    const bool gzip = t.compression == "GZIP_1" || t.compression == "GZIP_2";
    // Rows are read a megabyte at a time; gzip streams one tile at a time.
    const uint64_t rows_at_once = std::max<uint64_t>(1, (uint64_t(1) << 20) / t.row_bytes);
    std::vector<std::byte> rows, bytes;
    for (uint64_t first = 0; first < t.tiles; first += rows_at_once) {
        const uint64_t n = std::min(rows_at_once, t.tiles - first);
        rows.resize(n * t.row_bytes);
        file.read_at(hdu.data_start + first * t.row_bytes, rows);
        for (uint64_t tile = first; tile < first + n; ++tile) {
            const std::byte* row = rows.data() + (tile - first) * t.row_bytes;
            for (const ArrayColumn& c : columns) {
                const size_t half = c.wide ? 8 : 4;
                const uint64_t count = big_endian(row + c.offset, half), at = big_endian(row + c.offset + half, half);
                const std::string name =
                    where + ": tile " + std::to_string(tile + 1) + " of " + std::to_string(t.tiles) + " (" + c.name + ")";
                // Q descriptors are signed 64-bit: a negative one is huge here.
                if (count > t.heap_bytes / c.element || at > t.heap_bytes - count * c.element)
                    throw IoError(name + " declares " + std::to_string(count) + " elements of " +
                                  std::to_string(c.element) + " bytes at heap byte " + std::to_string(at) +
                                  ", beyond the heap's " + std::to_string(t.heap_bytes) + " bytes");
                if (c.name == "UNCOMPRESSED_DATA" && count > t.tile_pixels)
                    throw IoError(name + " holds " + std::to_string(count) + " values; a tile has at most " +
                                  std::to_string(t.tile_pixels));
                const bool gzipped = c.name == "GZIP_COMPRESSED_DATA" || (c.name == "COMPRESSED_DATA" && gzip);
                if (!gzipped || count == 0) continue;
                // Deflate adds a few bytes a 16 KiB block at worst.
                if (count * c.element > t.tile_bytes + t.tile_bytes / 8 + 1024)
                    throw IoError(name + " holds a GZIP stream of " + std::to_string(count * c.element) +
                                  " bytes, more than any compression of a tile of " + std::to_string(t.tile_bytes) +
                                  " bytes takes");
                bytes.resize(count * c.element);
                file.read_at(hdu.data_start + t.heap_start + at, bytes);
                if (!gzip_ends_within(bytes, t.tile_bytes))
                    throw IoError(name + ": its GZIP stream of " + std::to_string(bytes.size()) +
                                  " bytes is corrupt, truncated, or inflates to more than the tile's " +
                                  std::to_string(t.tile_bytes) + " bytes");
            }
        }
    }
}

}  // namespace kiln::io
