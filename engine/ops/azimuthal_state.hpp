#pragma once
// The state of an AzimuthalIntegrator and the helpers its ops share: set up
// in azimuthal.cpp, read by the ops in azimuthal*.cpp.
#include <memory>
#include <optional>
#include <vector>

#include "kiln/azimuthal.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace detail {

struct AzimuthalMedfiltData;

/// An AzimuthalIntegrator's state.
struct AzimuthalState {
    std::optional<Context> ctx;  // engaged by the constructor
    std::shared_ptr<const Csr> csr;
    size_t pixels = 0, bins = 0;
    bool f64 = false, unit_weights = false;
    AzimuthalKernels kernels = AzimuthalKernels::fused;

    // Host copies of the corrections, for cpu_params().
    std::optional<HostArray> dark, flat, variance;
    std::vector<float> solid, polar;
    std::vector<uint8_t> mask;
    bool has_mask = false;
    std::optional<double> dummy;
    double delta_dummy = 0, empty = 0;
    IntegrateParams::ErrorModel error_model = IntegrateParams::ErrorModel::poisson;
    bool dark_variance = true;

    // Device arrays; absent ones are bound as `cols` to keep the layout.
    Array indptr, cols, weights, dark_f, norm_f, var_f;
    // Rows cut into segments when segments > 0: segment starts (segments + 1
    // entries), each bin's first segment (bins + 1), each segment's bin, and
    // a zeroed counter per (bin, frame) for counter_frames frames.
    size_t segments = 0, counter_frames = 0;
    Array segment_start, bin_segment, segment_bin, counters;

    Geometry geometry;  // as set up, for separate()'s pixel positions
    // medfilt1d's and separate()'s device data, made on first use (azimuthal_medfilt.cpp).
    std::shared_ptr<AzimuthalMedfiltData> medfilt;
};

} // namespace detail

namespace detail {

// Frames in `frames` (InvalidArgument unless it holds one frame or a stack
// along its first axis), after checking context and size limits; op names
// the method in messages.
size_t frame_count(const AzimuthalState& m, const Array& frames, const char* op);

// Eight float32 result arrays of shape (bins) or (n, bins).
AzimuthalResult new_result(const AzimuthalState& m, size_t n);

// Binds the results in the kernels' order: intensity, sem, std, signal,
// variance, norm, norm_sq, count (azim_terms.glsl's bindings 7-14).
void bind_outputs(ops::Dispatcher& d, const AzimuthalResult& r);

// Unsupported unless d's workgroup is 1-D, whole subgroups, at most 64 of them.
void check_local(const AzimuthalState& m, const ops::Dispatcher& d);

// For a one-workgroup-per-bin kernel on raw frames (azim_clip, azim_medfilt):
// checks d's workgroup, binds azim_terms.glsl's inputs (matrix, frames,
// corrections) and the results, and sets constants 3-8 (dark, norm, error
// model, unit weights, dummy, dark variance). The kernel's own constants
// follow from 9; then push constants and bins_grid(m).
void bind_terms(const AzimuthalState& m, ops::Dispatcher& d, const Array& frames, const AzimuthalResult& r,
                bool dummy);

// Workgroups along x of a one-workgroup-per-bin kernel (they loop over the rest).
uint32_t bins_grid(const AzimuthalState& m);

} // namespace detail

} // namespace kiln
