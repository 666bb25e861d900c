#pragma once
// Exact order statistics and kappa-sigma clipping on the GPU, equal to
// numpy.median / numpy.percentile (method 'linear') and to the CuPy lesson's
// clipping loop (the CPU references engine/cpu/select.hpp and
// kiln/reference/clip.hpp).
//
// Selection is a radix select on order-preserving integer keys of the values
// (32-bit keys, or 64-bit for float64): a few histogram passes (one dispatch
// each), each fixing the next digit of the wanted elements, all recorded in
// one submission with no host round trip between passes; only the selected
// keys are read back. For median and single percentiles of 2^20 or more
// 32-bit elements the second pass also counts the last two digits in a 4 MiB
// scratch histogram, so two passes over the data usually suffice.
// The result is exact: the selected elements themselves, interpolated on the
// host in float64 exactly as NumPy does. Arrays larger than the device's
// maxStorageBufferRange throw kiln::Unsupported.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// numpy.median(a) over all elements, of any dtype, taken as float64: the
/// middle value, or the mean (a + b) / 2 of the two middle values. NaN if any
/// element is NaN. Throws InvalidArgument for a null Array.
double median(const Array& a);

/// numpy.percentile(a, q), method 'linear': with the n values sorted as v,
/// i = (n - 1) * q / 100, lower = floor(i), g = i - lower, the result is
/// v[lower] + (v[lower+1] - v[lower]) * g, or v[lower+1] - (v[lower+1] -
/// v[lower]) * (1 - g) when g >= 0.5 (NumPy's _lerp, with its results for
/// infinities). NaN if any element is NaN. Throws InvalidArgument for q
/// outside [0, 100] (or NaN) and a null Array.
double percentile(const Array& a, double q);

/// percentile() for several q, in the order given, from one submission.
std::vector<double> percentiles(const Array& a, std::span<const double> qs);

/// What kappa_sigma_clip found: statistics of the values kept after the last
/// pass (std is the population std, ddof = 0), their count, the number of
/// passes, and, when asked for, which elements were kept.
struct ClipResult {
    double median = 0;
    double std = 0;
    double mean = 0;
    size_t count = 0;
    int iterations = 0;
    /// uint8 of a's shape: 1 for kept elements, 0 for clipped and non-finite
    /// ones. Present only when asked for; a lazy device array.
    std::optional<Array> mask;
};

/// Kappa-sigma clipping of all elements of a (any dtype, taken as float64),
/// the lesson's loop: each pass computes the median and the population std of
/// the kept values and keeps those strictly inside median +- kappa * std; it
/// stops after the first pass that removes nothing (that pass counts in
/// iterations, so a set that is already stable reports 1) or after max_iters
/// passes. NaN and +-inf are ignored: never kept, never counted, never part
/// of a statistic. A pass over values that are all equal removes nothing
/// (nothing lies strictly inside an interval of width 0, but nothing is an
/// outlier either): a constant array keeps every value, with median the
/// value and std 0, as astropy's sigma_clip. If a pass removes every value
/// (possible for kappa <= 1, e.g. two values), count is 0 and median, std
/// and mean are NaN.
///
/// The loop runs on the GPU without a host round trip: the finite values are
/// radix-sorted once, so every pass keeps a range of the sorted values; one
/// workgroup then runs all the passes, each a median lookup, float64 sums of
/// the range from a tree of partial sums, and two searches for the next
/// range. Only the small result is read back. Median equals NumPy's exactly,
/// std and mean to rounding (the sums are added in another order). Needs a
/// device with shaderFloat64 (kiln::Unsupported otherwise) and arrays whose
/// sort keys (4 bytes per element, 8 for float64) fit one binding
/// (maxStorageBufferRange; kiln::Unsupported otherwise). Throws
/// InvalidArgument for kappa not finite and > 0, max_iters < 1, a null Array,
/// or an array without a finite value.
ClipResult kappa_sigma_clip(const Array& a, double kappa = 3.0, int max_iters = 100,
                            bool return_mask = false);

/// kappa_sigma_clip without waiting: the statistics stay on the device, so a
/// pipeline can use them (e.g. threshold(image, clip.stats, 1, 5.0)) in the
/// same submission.
struct ClipResultAsync {
    /// float64 {5} on the device: median, std, mean, count, iterations
    /// (iterations 0: the array had no finite value).
    Array stats;
    /// Elements of the clipped array (for get()'s message).
    size_t size = 0;
    /// Waits for the GPU and reads stats back; throws InvalidArgument as
    /// kappa_sigma_clip does for an array without a finite value, and for a
    /// default-constructed ClipResultAsync. No mask.
    ClipResult get() const;
};

/// Records kappa_sigma_clip's loop (no mask) with no host round trip; the
/// arguments are checked at once, the absence of finite values by get().
ClipResultAsync kappa_sigma_clip_async(const Array& a, double kappa = 3.0, int max_iters = 100);

} // namespace kiln
#pragma GCC visibility pop
