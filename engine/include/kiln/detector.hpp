#pragma once
// Area detectors by name, as pyFAI defines them (pyFAI/detectors): pixel
// sizes, shape and the mask of the gaps between modules.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// A flat detector of equal rectangular pixels, built of modules with
/// insensitive gaps between them (pyFAI's _Dectris.calc_mask rule: a gap of
/// gap_rows rows after every module_rows rows, likewise along columns).
struct Detector {
    std::string name = "Detector";  ///< pyFAI's class name ("Eiger4M"); "Detector" for a generic one
    double pixel1 = 0, pixel2 = 0;  ///< pixel size along y and x, metres
    size_t rows = 0, cols = 0;      ///< shape (y, x); 0 where unknown (a generic detector)
    size_t module_rows = 0, module_cols = 0;  ///< module size in pixels; 0: no modules
    size_t gap_rows = 0, gap_cols = 0;        ///< gap between modules, pixels
    /// Columns masked in the middle of each module (CdTe sensors: 2 for
    /// Eiger2 CdTe, 3 for Pilatus CdTe); 0 for none.
    size_t mid_gap_cols = 0;

    /// pyFAI's detector.mask: rows * cols bytes in raster order, 1 in the gaps,
    /// 0 elsewhere (all 0 without modules). Throws InvalidArgument when the
    /// shape is unknown.
    std::vector<uint8_t> mask() const;
};

/// The detector of pyFAI's class name or alias, case-insensitive, with spaces
/// or underscores alike ("Eiger4M", "Eiger 4M", "eiger2_4m", "Pilatus 1M",
/// "Eiger2 CdTe 9M"). Throws InvalidArgument naming the known detectors.
Detector detector_by_name(std::string_view name);

/// pyFAI's class names of the detectors detector_by_name knows.
std::vector<std::string> detector_names();

}  // namespace kiln
#pragma GCC visibility pop
