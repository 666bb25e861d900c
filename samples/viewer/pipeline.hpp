#pragma once
// The viewer's work on the GPU, all of it recorded into kiln's graph each
// frame with nothing read back in between: the background by kappa-sigma
// clipping, the 5-sigma mask, its connected components, the Gaussian blur,
// and the colour step (compose.comp, a kiln user kernel) that writes the
// window's picture as RGBA8 into a kiln array.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compose.hpp"
#include "kiln/array.hpp"
#include "kiln/context.hpp"
#include "kiln/kernel.hpp"
#include "settings.hpp"

namespace viewer {

/// What the last frame found and what its kernels cost on the GPU.
struct FrameStats {
    bool valid = false;
    int32_t sources = 0;
    double median = 0, std = 0;  ///< of the clipped background
    /// GPU time per kernel name (ms, summed over its dispatches), in order of first dispatch.
    std::vector<std::pair<std::string, double>> kernels;
    double total_ms = 0;
};

class Pipeline {
public:
    /// Pushes the image (float32, 2-D) and compiles the colour kernel.
    Pipeline(const kiln::Context& ctx, const kiln::HostArray& image);

    const kiln::Shape& shape() const { return image_.shape(); }

    /// Records one frame's work, ending with the picture written into
    /// `picture` (uint32 RGBA8, p.height x p.width). Nothing is submitted.
    void record(const Settings& s, const glsl::Params& p, kiln::Array& picture);

    /// The results and GPU times of the last recorded frame. Reads the source
    /// count and the statistics back, so call it once that frame's work has
    /// finished (it then waits for nothing), and before the next frame's
    /// waits and signals are set: with arrays kiln cannot map, a read is a
    /// submission of its own.
    FrameStats collect();

private:
    kiln::Context ctx_;
    kiln::Array image_;
    kiln::Kernel compose_;
    kiln::Array count_, stats_;
    uint64_t first_event_ = 0;
    bool recorded_ = false;
};

}  // namespace viewer
