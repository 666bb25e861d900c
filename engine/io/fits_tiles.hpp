#pragma once
// The tiles of a tile-compressed FITS image, checked before cfitsio
// decompresses them (see fits_guard.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "io/file.hpp"
#include "io/fits_header.hpp"

namespace kiln::io {

/// What fits_guard.cpp has already checked of a compressed image's header.
struct TileLayout {
    std::string compression;     ///< ZCMPTYPE
    uint64_t tiles = 0;          ///< rows of the table, one per tile
    uint64_t row_bytes = 0;      ///< NAXIS1
    uint64_t tile_bytes = 0;     ///< pixels of a whole tile times the widest element cfitsio uses for it
    uint64_t tile_pixels = 0;
    uint64_t heap_start = 0;     ///< THEAP, from the data start
    uint64_t heap_bytes = 0;     ///< from heap_start to the end of the data
    std::vector<uint64_t> extents;     ///< ZNAXISn, first axis first
    std::vector<uint64_t> tile_dims;   ///< ZTILEn
    int rice_block = 0;          ///< RICE_1: pixels a block, as cfitsio reads ZVAL1
    int rice_bytepix = 0;        ///< RICE_1: 1, 2 or 4, the decoder cfitsio runs (ZVAL2)
};

/// Checks a table's columns as far as cfitsio acts on them when it opens the
/// HDU: for a BINTABLE, TFIELDS (1 to 999) and TFORMn formats adding up to
/// NAXIS1; for an ASCII TABLE, TFIELDS (0 to 999), TBCOLn within the row and
/// TFORMn present. Throws IoError starting with `where`.
void check_table(const FitsHdu& hdu, const std::string& where);

/// Checks the table's columns and every tile's descriptors against the heap;
/// for GZIP_1 and GZIP_2, that each stream ends within tile_bytes; for
/// RICE_1 and PLIO_1, that cfitsio's decoder, reading the tile as it does,
/// stays within the tile's bytes (it checks only after the last pixel, or
/// not at all).
/// Throws IoError starting with `where`.
void check_tiles(const File& file, const FitsHdu& hdu, const TileLayout& layout, const std::string& where);

}  // namespace kiln::io
