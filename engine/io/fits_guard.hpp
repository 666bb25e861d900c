#pragma once
// Checks of a FITS file made before cfitsio reads it.
#include <string>

namespace kiln::io {

/// Reads the file's headers itself (fits_header.hpp) and refuses what
/// cfitsio 4.2 would act on unchecked: it divides by tile sizes, copies
/// column names into fixed buffers, allocates what a header declares and
/// grows a buffer for as long as a GZIP stream does not end, so crafted
/// files crash or hang it. Throws IoError naming the file, the HDU and the
/// problem, with what is accepted, for:
///  - data the file cannot hold: the data start plus the bytes the header
///    declares beyond the file's size (both sizes in the message);
///  - a table column name (TTYPEn) longer than 68 characters, the longest
///    FITS string;
///  - a tile-compressed image (ZIMAGE = T): an unknown ZCMPTYPE or HCOMPRESS_1
///    (cfitsio's decoder is not safe on crafted tiles); ZBITPIX
///    other than 8, 16, 32, 64, -32, -64; ZNAXIS outside 1..6; a ZNAXISn or
///    ZTILEn below 1, a ZTILEn above its ZNAXISn; tiles of more than 2^28
///    pixels; a table whose rows are not one per tile or whose heap (THEAP,
///    PCOUNT) lies outside its data; an uncompressed image of more than
///    16 GiB or 4096 times the file's size; Rice parameters (ZVAL1, ZVAL2)
///    outside the standard's; tile descriptors pointing outside the heap, or
///    an uncompressed tile larger than a tile; a GZIP tile whose stream does
///    not end within the tile's size (each GZIP tile is inflated once here);
///  - a header cfitsio would parse that kiln might read differently
///    (see scan_fits): an empty file, one not beginning with SIMPLE = T, a
///    header without END, misplaced or invalid mandatory keywords.
void check_fits_file(const std::string& path);

}  // namespace kiln::io
