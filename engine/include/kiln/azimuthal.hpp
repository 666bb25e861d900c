#pragma once
// 1-D azimuthal integration on the GPU, as pyFAI's CSR engine: a sparse
// bins x pixels matrix (built on the host by build_csr, kiln/csr.hpp, and
// cached) uploaded once, then per frame a pre-processing step (dark, flat,
// solid angle, polarization, mask, dummy values, Poisson or given variance)
// and a sparse reduction per bin giving the mean intensity and its
// uncertainties (Poisson, given or azimuthal variance).
// The semantics are those of cpu::integrate and cpu::sigma_clip
// (kiln/reference/integrate.hpp), which the GPU results are tested against.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/array.hpp"
#include "kiln/csr.hpp"
#include "kiln/geometry.hpp"
#include "kiln/integration.hpp"
#include "kiln/op_types.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

namespace detail {
struct AzimuthalState;
}

/// How per-bin sums are accumulated.

/// Whether pre-processing runs as its own kernel (pyFAI's two kernels: a
/// float4 (signal, variance, normalization, valid) per pixel written, then
/// read by the CSR kernel) or inside the CSR kernel, which then reads the
/// raw frame and the corrections directly (fewer bytes moved; the default).
enum class AzimuthalKernels { fused, separate };

/// Everything an integrator needs. Per-pixel arrays hold rows * cols values
/// in raster order (any shape of that size).
struct AzimuthalSetup {
    Geometry geometry;
    Radial unit = Radial::q_nm;
    size_t bins = 1000;
    /// Bin edges [lo, hi]; without, the extent of the unmasked pixels (see build_csr).
    std::optional<std::pair<double, double>> range;
    PixelSplit split = PixelSplit::none;
    /// Azimuthal bins of a cake (results shaped (azimuth_bins, bins)); 0: 1-D.
    size_t azimuth_bins = 0;
    /// chi range in degrees: the cake's, or the sector a 1-D integration takes (CsrSpec).
    std::optional<std::pair<double, double>> azimuth_range;
    /// pyFAI 0.21's treatment of pixels cut by a range edge (CsrSpec::renormalize).
    bool renormalize = false;
    /// With azimuth_bins > 0: the cake's radial bins merged (merge_radial),
    /// one bin per azimuth bin, as pyFAI's integrate_radial.
    bool radial_sum = false;
    /// A matrix to use instead of building one from the fields above (its
    /// pixel count must be rows * cols of the geometry).
    std::shared_ptr<const Csr> csr;
    /// Also keep built matrices in files in this folder (empty: memory only).
    std::string csr_cache_dir;

    std::optional<HostArray> dark;      ///< subtracted (any dtype)
    std::optional<HostArray> flat;      ///< divides (any dtype)
    std::optional<HostArray> mask;      ///< nonzero = excluded (any dtype), also left out of the matrix
    bool solid_angle = false;           ///< divide by solid_angle(geometry)
    /// Divide by polarization(geometry, factor, axis_offset) when set.
    std::optional<double> polarization_factor;
    double polarization_axis_offset = 0;
    std::optional<double> dummy;        ///< raw value marking invalid pixels
    double delta_dummy = 0;             ///< tolerance around dummy
    /// Per-pixel variance: IntegrateParams::ErrorModel (azimuthal: the
    /// spread of each bin's pixels, a second pass over the bin).
    IntegrateParams::ErrorModel error_model = IntegrateParams::ErrorModel::poisson;
    std::optional<HostArray> variance;  ///< per-pixel variance for ErrorModel::variance
    /// Poisson model with a dark: add the dark to the variance (true, pyFAI's
    /// Python reference) or not (pyFAI 0.21's compiled CSR integrator); see
    /// IntegrateParams::dark_variance.
    bool dark_variance = true;
    double empty = 0;                   ///< reported for bins without any valid pixel

    Accumulation accumulation = Accumulation::automatic;
    AzimuthalKernels kernels = AzimuthalKernels::fused;
    /// Most matrix entries one workgroup reduces in integrate(). When a row
    /// (bin) is longer, every row is cut into segments of about equal length,
    /// at most this long; the last segment of a bin to finish merges their
    /// partial sums, in segment order (results do not depend on timing). The
    /// longest rows hold several times the mean, and one workgroup per bin
    /// leaves the GPU waiting on them. 0: automatic (8192). sigma_clip()
    /// always takes one workgroup per bin.
    size_t segment_entries = 0;
};

/// Results of integrating one frame (arrays of shape (bins)) or a stack of n
/// frames (shape (n, bins)), float32 on the device, lazy like every op result.
/// For a cake the arrays are (azimuth_bins, bins) and (n, azimuth_bins, bins).
/// The definitions are Profile1d's: intensity = sum_signal /
/// sum_normalization, sem = sqrt(sum_variance) / sum_normalization, std =
/// sqrt(sum_variance / sum_normalization_sq), sigma = sem (the same array).
struct AzimuthalResult {
    Array intensity, sigma, sem, std;
    Array sum_signal, sum_variance, sum_normalization, sum_normalization_sq, count;
    std::vector<double> radial;     ///< radial bin centres (the matrix's first radial_bins bin_centers)
    std::vector<double> azimuthal;  ///< a cake's azimuth bin centres, chi in degrees (else empty)

    /// Pulls frame `frame`'s results into a Profile1d (waits for the GPU);
    /// for a cake its azimuth_bins * bins rows in the matrix's order, with
    /// radial holding each row's radial centre (as cpu::integrate gives).
    Profile1d to_host(size_t frame = 0) const;
};

/// Bragg and amorphous parts of frames (AzimuthalIntegrator::separate):
/// float32 arrays of the frames' shape, and the background profile used.
struct AzimuthalSeparation {
    Array bragg, amorphous;
    AzimuthalResult background;
};

/// The matrix for these parameters: from an in-process cache of the last few
/// matrices, else from `cache_dir` (when given and holding a file for exactly
/// these parameters), else built by build_csr on the CPU (and written to
/// cache_dir when given). Thread-safe. Throws as build_csr does.
std::shared_ptr<const Csr> cached_csr(const Geometry& g, const CsrSpec& spec,
                                      const std::vector<uint8_t>* mask = nullptr,
                                      const std::string& cache_dir = "");
/// cached_csr of a 1-D radial matrix (build_csr's positional form).
std::shared_ptr<const Csr> cached_csr(const Geometry& g, Radial unit, size_t bins,
                                      std::optional<std::pair<double, double>> range, PixelSplit split,
                                      const std::vector<uint8_t>* mask = nullptr,
                                      const std::string& cache_dir = "");
/// Empties the in-process matrix cache.
void clear_csr_cache();

/// Integrates frames of one detector geometry on the GPU. The matrix and the
/// corrections are uploaded once, when constructed; integrate() only records
/// work, so it can be captured into a Graph and run per frame or batch.
class AzimuthalIntegrator {
public:
    /// Builds (or takes from the cache) the matrix and uploads it with the
    /// combined normalization flat * solid angle * polarization (0 where
    /// masked or not finite), the dark and the variance as float32.
    /// Throws InvalidArgument for inconsistent sizes or parameters (as
    /// build_csr and cpu::integrate), Unsupported for float64
    /// accumulation on a device without it.
    AzimuthalIntegrator(const Context& ctx, const AzimuthalSetup& setup);
    ~AzimuthalIntegrator();
    AzimuthalIntegrator(AzimuthalIntegrator&&) noexcept;
    AzimuthalIntegrator& operator=(AzimuthalIntegrator&&) noexcept;
    AzimuthalIntegrator(const AzimuthalIntegrator&) = delete;
    AzimuthalIntegrator& operator=(const AzimuthalIntegrator&) = delete;

    /// Integrates one frame (any shape of rows * cols elements) or a stack
    /// (n, rows, cols) / (n, rows * cols) of frames of dtype uint8, int8,
    /// uint16, int16, uint32, int32, float32 or float64. Records only.
    /// Throws InvalidArgument for another size or a null array, Unsupported
    /// when the stack exceeds the device's binding range (integrate fewer
    /// frames at a time) or 2^32 elements.
    AzimuthalResult integrate(const Array& frames) const;

    /// Integration with per-bin sigma clipping, as cpu::sigma_clip and
    /// pyFAI 0.21's sigma_clip_ng (entries whose normalized value lies more
    /// than t * sqrt(sum_variance / sum_normalization) from the bin's mean
    /// are dropped, up to max_iter passes; t = max(kappa, Chauvenet's
    /// criterion for the bin's count) by default, or kappa with
    /// ClipThreshold::fixed). Needs an error model other than none. Throws
    /// InvalidArgument for kappa < 0 or not finite (0 only with Chauvenet's
    /// threshold), max_iter outside [0, 64] or the none error model.
    AzimuthalResult sigma_clip(const Array& frames, double kappa = 5.0, int max_iter = 5,
                               ClipThreshold threshold = ClipThreshold::chauvenet) const;

    /// Mean of the entries between the quantiles q_lo and q_hi of each bin's
    /// normalized values, as cpu::medfilt (kiln/reference/medfilt.hpp) and
    /// pyFAI's medfilt1d_ng: entries sorted by signal / normalization, kept
    /// when their share of the cumulative normalization lies inside [q_lo,
    /// q_hi] or covers it (0.5, 0.5: the median). count is the number of kept
    /// entries. Frames as integrate(); one workgroup per bin finds the
    /// quantiles by bisection, so bins of any length. Records only. Throws
    /// InvalidArgument unless 0 <= q_lo <= q_hi <= 1, and for the azimuthal
    /// error model.
    AzimuthalResult medfilt1d(const Array& frames, double q_lo = 0.5, double q_hi = 0.5) const;

    /// Bragg and amorphous parts of frames, as cpu::separate and pyFAI's
    /// separate: the background profile (here medfilt1d's of q_lo, q_hi)
    /// interpolated at each pixel's radial position (numpy.interp over the
    /// bin centres), multiplied back by the pixel's flat * solid angle *
    /// polarization and plus its dark, is the amorphous part; bragg = frame -
    /// amorphous. With restore_mask, pixels of the set-up mask hold the
    /// frame's value in both. Needs the geometry and a 1-D profile
    /// (InvalidArgument when the integrator was given a matrix without a
    /// geometry, or makes a cake).
    AzimuthalSeparation separate(const Array& frames, double q_lo = 0.5, double q_hi = 0.5,
                                 bool restore_mask = true) const;
    /// The same with a background profile of one's own, e.g. sigma_clip()'s,
    /// of one frame (used for every frame) or one per frame.
    AzimuthalSeparation separate(const Array& frames, const AzimuthalResult& background,
                                 bool restore_mask = true) const;

    /// The pre-processing step alone: float32 (pixels, 4) for one frame, or
    /// (n * pixels, 4) for n, holding (signal, variance, normalization, valid)
    /// per pixel, an excluded pixel all zeros (cpu::preprocess's terms).
    Array preprocess(const Array& frames) const;

    const Csr& csr() const;
    std::shared_ptr<const Csr> shared_csr() const;
    /// The context it was made on (its arrays' device).
    const Context& context() const;
    size_t bins() const;
    size_t pixels() const;
    /// Whether sums are accumulated in float64 (else compensated float32).
    bool float64() const;
    /// Parameters for cpu::integrate giving the reference of integrate():
    /// pointers into this integrator's copies of the corrections.
    IntegrateParams cpu_params() const;

private:
    /// Raw values v with |v - dummy| <= delta (evaluated in double, as
    /// cpu::integrate does) as an interval [lo, hi] of dtype t, the 64 bits of
    /// each bound as the kernels read them; nullopt when no value of t matches.
    static std::optional<std::array<uint32_t, 4>> dummy_bounds(DType t, double dummy, double delta);

    std::unique_ptr<detail::AzimuthalState> impl_;
};

} // namespace kiln
#pragma GCC visibility pop
