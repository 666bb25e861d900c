#include "io/fits_tiles.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <span>
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
std::vector<ArrayColumn> binary_columns(const FitsHdu& hdu, uint64_t row_bytes, const std::string& where) {
    const int64_t fields = hdu.integer("TFIELDS", where).value_or(0);
    if (fields < 0 || fields > 999)
        throw IoError(where + ": TFIELDS = " + std::to_string(fields) + "; accepted: 0 to 999 columns");
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
    return found;
}

std::vector<ArrayColumn> array_columns(const FitsHdu& hdu, uint64_t row_bytes, const std::string& where) {
    const std::vector<ArrayColumn> found = binary_columns(hdu, row_bytes, where);
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

// The pixels of tile `index` (first axis fastest): edge tiles are cut short.
uint64_t pixels_of_tile(const TileLayout& t, uint64_t index) {
    uint64_t pixels = 1;
    for (size_t i = 0; i < t.extents.size(); ++i) {
        const uint64_t across = (t.extents[i] - 1) / t.tile_dims[i] + 1;
        const uint64_t at = index % across;
        index /= across;
        pixels *= std::min(t.tile_dims[i], t.extents[i] - at * t.tile_dims[i]);
    }
    return pixels;
}

// Reads a bit stream most significant bit first, as cfitsio's Rice decoder
// does, counting what it would read.
class BitWalk {
public:
    explicit BitWalk(std::span<const std::byte> bytes) : bytes_(bytes), limit_(uint64_t(bytes.size()) * 8) {}
    bool bits(unsigned n, uint32_t* value) {
        if (pos_ + n > limit_) return false;
        uint32_t v = 0;
        for (unsigned i = 0; i < n; ++i, ++pos_)
            v = v << 1 | ((uint32_t(bytes_[pos_ >> 3]) >> (7 - (pos_ & 7))) & 1);
        *value = v;
        return true;
    }
    bool skip(uint64_t n) {
        if (n > limit_ - pos_) return false;
        pos_ += n;
        return true;
    }
    // Zeros up to and including the next one bit.
    bool unary() {
        while (pos_ < limit_) {
            const unsigned left = unsigned(uint8_t(uint32_t(bytes_[pos_ >> 3]) << (pos_ & 7)));
            if (left) {
                pos_ += uint64_t(__builtin_clz(left) - 24 + 1);
                return true;
            }
            pos_ = (pos_ | 7) + 1;
        }
        return false;
    }

private:
    std::span<const std::byte> bytes_;
    uint64_t limit_, pos_ = 0;
};

// Whether cfitsio's fits_rdecomp (bytepix 4), _short (2) or _byte (1), run
// on this tile for `pixels` pixels, reads only the tile's bytes: its first
// pixel raw, then per block of `block` pixels a code (fsbits) choosing all
// equal, raw pixels or Rice codes.
bool rice_within(std::span<const std::byte> tile, uint64_t pixels, int block, int bytepix) {
    const unsigned fsbits = bytepix == 1 ? 3 : bytepix == 2 ? 4 : 5;
    const uint32_t fsmax = bytepix == 1 ? 6 : bytepix == 2 ? 14 : 25;
    const uint64_t bbits = uint64_t(8) * uint64_t(bytepix == 1 ? 1 : bytepix == 2 ? 2 : 4);
    const size_t first = bytepix == 1 ? 1 : bytepix == 2 ? 2 : 4;
    if (tile.size() < first + 1) return false;  // the decoder reads one byte beyond the first pixel
    BitWalk walk(tile.subspan(first));
    for (uint64_t i = 0; i < pixels;) {
        uint32_t code = 0;
        if (!walk.bits(fsbits, &code)) return false;
        const uint64_t n = std::min<uint64_t>(uint64_t(block), pixels - i);
        i += n;
        if (code == 0) continue;          // all differences zero
        const uint32_t fs = code - 1;
        if (fs == fsmax) {                // raw differences
            if (!walk.skip(bbits * n)) return false;
            continue;
        }
        for (uint64_t k = 0; k < n; ++k)
            if (!walk.unary() || !walk.skip(fs)) return false;
    }
    return true;
}

// Whether cfitsio's PLIO decoder (pl_l2pi), run on this line list of `n`
// 16-bit words for `pixels` pixels, reads only the list's words: the list's
// length and first word come from its header, and a set-value instruction
// reads the word after it. (Its writes stay within the tile's pixels.)
bool plio_within(const std::vector<int16_t>& ll, uint64_t pixels) {
    const int64_t n = int64_t(ll.size());
    if (n < 3) return false;
    int64_t length = 0, first = 0;
    if (ll[2] > 0) {
        length = ll[2];
        first = 4;
    } else {
        if (n < 5) return false;
        length = int64_t(int32_t(uint32_t(int32_t(ll[4])) << 15) + int32_t(ll[3]));
        first = int64_t(ll[1]) + 1;
    }
    if (pixels == 0 || length <= 0 || first > length) return true;
    if (first < 1 || length > n) return false;
    int64_t x = 1;
    const int64_t last = int64_t(pixels);
    bool skip = false;
    for (int64_t ip = first; ip <= length; ++ip) {
        if (skip) {
            skip = false;
            continue;
        }
        const int word = ll[size_t(ip - 1)], opcode = word / 4096, data = word & 4095;
        if (opcode == 0 || opcode == 4 || opcode == 5) {
            x += data;
        } else if (opcode == 1) {
            if (ip + 1 > n) return false;
            skip = true;
        } else if (opcode == 6 || opcode == 7) {
            ++x;
        }
        if (x > last) break;
    }
    return true;
}

}  // namespace

void check_table(const FitsHdu& hdu, const std::string& where) {
    const int64_t row_bytes = hdu.integer("NAXIS1", where).value_or(0);
    if (hdu.xtension == "BINTABLE") {
        (void)binary_columns(hdu, uint64_t(row_bytes), where);
        return;
    }
    const int64_t fields = hdu.integer("TFIELDS", where).value_or(-1);
    if (fields < 0 || fields > 999)
        throw IoError(where + ": TFIELDS = " + std::to_string(fields) + "; accepted: 0 to 999 columns");
    for (int64_t i = 1; i <= fields; ++i) {
        const std::string n = std::to_string(i);
        const int64_t column = hdu.integer("TBCOL" + n, where).value_or(0);
        if (column < 1 || column > row_bytes)
            throw IoError(where + ": TBCOL" + n + " = " + std::to_string(column) + "; accepted: 1 to NAXIS1 = " +
                          std::to_string(row_bytes));
        if (!hdu.value("TFORM" + n)) throw IoError(where + ": column " + n + " has no TFORM" + n);
    }
}

void check_tiles(const File& file, const FitsHdu& hdu, const TileLayout& t, const std::string& where) {
    const std::vector<ArrayColumn> columns = array_columns(hdu, t.row_bytes, where);
    const bool gzip = t.compression == "GZIP_1" || t.compression == "GZIP_2";
    const bool rice = t.compression == "RICE_1" || t.compression == "RICE_ONE";
    const bool plio = t.compression == "PLIO_1";
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
                if (c.name == "COMPRESSED_DATA" && rice && count > 0) {
                    if (c.element != 1)
                        throw IoError(name + " has elements of " + std::to_string(c.element) +
                                      " bytes; Rice tiles are bytes (1PB or 1QB)");
                    bytes.resize(count);
                    file.read_at(hdu.data_start + t.heap_start + at, bytes);
                    const uint64_t pixels = pixels_of_tile(t, tile);
                    if (!rice_within(bytes, pixels, t.rice_block, t.rice_bytepix))
                        throw IoError(name + ": its Rice stream of " + std::to_string(count) +
                                      " bytes ends before the tile's " + std::to_string(pixels) +
                                      " pixels are decoded (corrupt or truncated)");
                    continue;
                }
                if (c.name == "COMPRESSED_DATA" && plio && count > 0) {
                    // cfitsio reads the column as 16-bit words, converting each element.
                    if (c.element != 1 && c.element != 2)
                        throw IoError(name + " has elements of " + std::to_string(c.element) +
                                      " bytes; PLIO tiles are 16-bit words (1PI) or bytes (1PB)");
                    bytes.resize(count * c.element);
                    file.read_at(hdu.data_start + t.heap_start + at, bytes);
                    std::vector<int16_t> words(count);
                    for (uint64_t i = 0; i < count; ++i)
                        words[i] = c.element == 1 ? int16_t(bytes[i])
                                                  : int16_t(uint16_t(big_endian(bytes.data() + 2 * i, 2)));
                    const uint64_t pixels = pixels_of_tile(t, tile);
                    if (!plio_within(words, pixels))
                        throw IoError(name + ": its PLIO line list of " + std::to_string(count) +
                                      " words ends before the tile's " + std::to_string(pixels) +
                                      " pixels are decoded, or its header points outside it (corrupt)");
                    continue;
                }
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
