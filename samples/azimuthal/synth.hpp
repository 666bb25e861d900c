#pragma once
// A synthetic Eiger 4M powder-diffraction stack: silicon rings on an air
// scattering background, Poisson counts, module gaps marked as Eiger marks
// them (0xFFFFFFFF), the ring intensity varying slowly from frame to frame.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/geometry.hpp"

namespace sample {

/// What the stack looks like; the file name encodes every field.
struct StackParams {
    size_t rows = 2162, cols = 2068, frames = 200;
    double pixel = 75e-6;  ///< metres
    uint32_t seed = 1;
};

/// Value Eiger detectors write into gap and dead pixels.
constexpr uint32_t gap_value = 0xFFFFFFFFu;

/// The detector geometry the stack was made with (beam near the centre).
kiln::Geometry stack_geometry(const StackParams& p);

/// Frame `index` of the stack: rows * cols uint32 counts, generated with all
/// cores; the same for the same parameters whatever the number of threads.
std::vector<uint32_t> make_frame(const StackParams& p, const std::vector<float>& mean, size_t index);

/// Expected counts per pixel of frame 0 (gaps: -1).
std::vector<float> mean_counts(const StackParams& p);

/// Writes the stack as bitshuffle-LZ4 HDF5 (/entry/data/data), one chunk per
/// frame, reporting progress on stderr.
void write_stack(const StackParams& p, const std::string& path);

/// File name for the parameters, e.g. "eiger4m_2162x2068_200f_s1.h5".
std::string stack_name(const StackParams& p);

}  // namespace sample
