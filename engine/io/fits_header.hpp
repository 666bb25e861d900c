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

/// The HDUs of the file in order, as far as they can be read: the scan stops
/// quietly at the end of the file, at a header without END, at one lacking
/// or garbling a mandatory keyword (SIMPLE/XTENSION, BITPIX, NAXIS, NAXISn),
/// or after an HDU whose data size overflows: cfitsio reports those itself.
std::vector<FitsHdu> scan_fits_headers(const File& file, uint64_t file_size);

}  // namespace kiln::io
