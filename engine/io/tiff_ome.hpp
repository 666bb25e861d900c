#pragma once
// The little of OME-TIFF's OME-XML (the ImageDescription of the first page)
// that decides how kiln reads the pages: how many images the file holds and
// the extents of their Z, C and T axes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::io {

struct OmeSizes {
    uint64_t z = 1, c = 1, t = 1;
    size_t images = 0;  ///< Pixels elements: one per image (series) in the file
    std::string str() const;
};

/// The sizes an OME-XML description declares (those of its first Pixels
/// element), or nullopt when `description` is not OME-XML. A size that is
/// missing or not a positive number reads as 1.
std::optional<OmeSizes> ome_sizes(std::string_view description);

}  // namespace kiln::io
