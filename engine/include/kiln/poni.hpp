#pragma once
// pyFAI's .poni geometry files (pyFAI/io/ponifile.py), versions 1 and 2:
// "Key: value" lines, '#' comments. Version 1 gives the pixel sizes as
// PixelSize1/PixelSize2 and may name a detector; version 2 names the
// detector and gives its constructor's arguments as Detector_config (JSON).
#include <string>
#include <string_view>

#include "kiln/detector.hpp"
#include "kiln/geometry.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// What a .poni file says.
struct Poni {
    int version = 1;
    /// The geometry, its shape and pixel sizes the detector's (shape 0 x 0
    /// when the file leaves it unknown: set rows and cols before use).
    /// pyFAI's defaults for keys the file lacks: dist 1 m, poni and rotations
    /// 0, wavelength 0 (unknown).
    Geometry geometry;
    Detector detector;
};

/// Parses the text of a .poni file as pyFAI 0.21 reads it: keys are
/// case-insensitive ("Distance" or "Dist", Poni1, Poni2, Rot1-3, Wavelength,
/// PixelSize1/2, Detector, Detector_config, poni_version). A named detector
/// keeps its shape and gap mask; in version 1 both pixel sizes given override
/// its own (pyFAI's force_pixel detectors), one alone makes the detector a
/// generic one. Throws IoError for a malformed or unsupported file (a newer
/// version, a spline or per-pixel offset files), InvalidArgument (as
/// detector_by_name) for a detector kiln does not know.
Poni parse_poni(std::string_view text);

/// Reads and parses a .poni file; throws IoError when it cannot be read.
Poni read_poni(const std::string& path);

}  // namespace kiln
#pragma GCC visibility pop
