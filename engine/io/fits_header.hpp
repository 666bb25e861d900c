#pragma once
// FITS headers read by kiln itself, without cfitsio: 2880-byte blocks of
// 80-character cards. Used to check a file before cfitsio reads it
// (fits_guard.cpp), since cfitsio acts on some header values unchecked.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/file.hpp"

namespace kiln::io {

/// One HDU's header and where its data lies.
struct FitsHdu {
    int number = 1;               ///< 1 is the primary HDU (cfitsio's numbering)
    std::string xtension;         ///< "" for the primary HDU, else "IMAGE", "BINTABLE", ...
    uint64_t data_start = 0;      ///< byte offset of the data (after the header's blocks)
    /// |BITPIX| / 8 * GCOUNT * (PCOUNT + NAXIS1 * ... * NAXISn), as declared;
    /// nullopt when that overflows 64 bits.
    std::optional<uint64_t> data_bytes;
    /// Keyword and value of every card with a value, in order; strings
    /// without their quotes ('' read as '), other values up to the comment.
    std::vector<std::pair<std::string, std::string>> cards;

    /// The first card's value for keyword, if present.
    const std::string* value(const std::string& keyword) const;
    /// The value as an integer: nullopt when absent; throws IoError via
    /// `bad` naming the keyword when present but not an integer.
    std::optional<int64_t> integer(const std::string& keyword, const std::string& where) const;
    /// "HDU 2 (BINTABLE)", for messages.
    std::string name() const;
};

/// The HDUs of a file, in order, and what stopped the scan.
struct FitsScan {
    std::vector<FitsHdu> hdus;
    /// "" when the scan reached the end of the file, or bytes after the last
    /// HDU that do not begin with XTENSION (cfitsio ignores those), or an HDU
    /// whose data size overflows 64 bits (the last one listed). Otherwise
    /// what is wrong, for a message after the file's name: an empty file, no
    /// SIMPLE = T card first, a header without END before the file ends, a
    /// card whose keyword field is not a keyword and blanks, or a mandatory
    /// keyword (BITPIX, NAXIS, NAXISn, PCOUNT, GCOUNT) missing,
    /// out of its fixed place or with a value the standard does not allow, or
    /// a keyword describing the data (Z*, T*, NAXISn, BSCALE...) given twice
    /// with different values, or one read as an integer (BLANK, THEAP,
    /// TNULLn, ZTILEn...) whose value is not a 64-bit integer.
    std::string problem;
};

/// Reads every header of the file. cfitsio reads the mandatory keywords by
/// place and kiln reads them by name, so both must be where the standard
/// puts them for the two readings to agree.
FitsScan scan_fits(const File& file, uint64_t file_size);

/// scan_fits(file, file_size).hdus.
std::vector<FitsHdu> scan_fits_headers(const File& file, uint64_t file_size);

}  // namespace kiln::io
