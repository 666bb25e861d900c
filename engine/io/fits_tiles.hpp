#pragma once
// The tiles of a tile-compressed FITS image, checked before cfitsio
// decompresses them (see fits_guard.hpp).
#include <cstdint>
#include <string>

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
};

/// Checks the table's columns and every tile's descriptors against the heap
/// and, for GZIP_1 and GZIP_2, that each stream ends within tile_bytes.
/// Throws IoError starting with `where`.
void check_tiles(const File& file, const FitsHdu& hdu, const TileLayout& layout, const std::string& where);

}  // namespace kiln::io
