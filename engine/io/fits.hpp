#pragma once
// FITS images through cfitsio.
#include <string>
#include <vector>

#include "kiln/host_array.hpp"

namespace kiln::io {

/// Reads a FITS image: the primary HDU, or the image extension whose EXTNAME
/// (or HDUNAME) is `extension` (case-insensitive). If no extension is named and
/// the primary HDU holds no data (NAXIS = 0), as in files whose images all live
/// in extensions, the first image extension holding data is read.
///
/// FITS axes are reversed into kiln's (z, y, x) order: NAXIS1 is x. Images
/// have 1 to 3 axes; for NAXIS > 3, axes beyond the second whose length is 1
/// are dropped (radio images carry degenerate frequency and Stokes axes), so
/// (NAXIS1..4) = (512, 512, 1, 1) reads as (512, 512). Tile-compressed images
/// read like plain ones.
///
/// BSCALE and BZERO are applied; the dtype follows from BITPIX and them:
///   BITPIX   8: uint8; int8 when BZERO = -128 (and BSCALE = 1)
///   BITPIX  16: int16; uint16 when BZERO = 32768
///   BITPIX  32: int32; uint32 when BZERO = 2^31
///   BITPIX  64: float64 (kiln has no int64): read when every value is
///               exactly a float64 (all integers up to 2^53 in magnitude),
///               else IoError naming the first value that is not and its
///               position; with BZERO = 2^63 (unsigned) likewise
///   BITPIX -32: float32;  BITPIX -64: float64
/// Any other BSCALE/BZERO gives float32 for 8- and 16-bit data, float64 for
/// 32- and 64-bit. An integer image with a BLANK keyword is returned as that
/// float type too, its blank pixels as NaN. NaN in float images stays NaN.
///
/// Before cfitsio reads beyond the primary header, the file is checked by
/// check_fits_file (fits_guard.hpp): data the file cannot hold (a header
/// declaring more bytes than follow it, both sizes in the message) and
/// tile-compressed images cfitsio cannot read safely are refused there, so
/// nothing is allocated for them.
///
/// Throws IoError naming the file and the problem (with cfitsio's message) for
/// a missing, unreadable, corrupt, truncated or non-FITS file, a named
/// extension that is absent or not an image (a table), an HDU without data, or
/// an image kiln cannot represent (more than 3 non-degenerate axes, or more
/// elements than kiln::Shape accepts); OutOfMemory when the host cannot hold
/// the image.
HostArray read_fits(const std::string& path, const std::string& extension = "");

/// Writes an array as the primary image of a new FITS file, axes reversed
/// (x is NAXIS1). float32/float64 as BITPIX -32/-64 (NaN kept), uint8, int16
/// and int32 as BITPIX 8/16/32; uint16 and uint32 as BITPIX 16/32 with BZERO
/// 32768 and 2^31, int8 as BITPIX 8 with BZERO -128 (the FITS conventions
/// cfitsio and astropy use). The file is written under a temporary name in the
/// same directory and renamed into place, so `path` never holds a partial
/// file. Throws IoError if `path` exists and overwrite is false, or if
/// writing fails.
void write_fits(const std::string& path, const HostArray& array, bool overwrite = true);

/// EXTNAMEs of the image extensions that hold data, in file order: the names
/// read_fits accepts (the primary HDU and unnamed extensions are not listed).
/// Throws IoError as read_fits does for an unreadable file.
std::vector<std::string> fits_image_extensions(const std::string& path);

}  // namespace kiln::io
