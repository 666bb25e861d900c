#pragma once
// CPU reference for kappa-sigma clipping, the CuPy lesson's loop:
//
//     data = a[numpy.isfinite(a)].astype(numpy.float64)
//     iterations = 0
//     while True:
//         med, std = numpy.median(data), numpy.std(data)
//         kept = data[(data > med - kappa * std) & (data < med + kappa * std)]
//         iterations += 1
//         done = kept.size == data.size or iterations == max_iters
//         data = kept
//         if done: break
//
// followed by the median, std and mean of the final data. The GPU version runs
// the same loop without pulling the data back between passes.
#include <cstddef>
#include <optional>

#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// What kappa_sigma_clip found: statistics of the values kept after the last
/// pass (std is the population std, ddof = 0), how many there are, how many
/// passes ran, and optionally which elements were kept.
struct ClipResult {
    double median;
    double std;
    double mean;
    size_t count;
    int iterations;
    /// uint8, the input's shape: 1 for kept elements, 0 for clipped and
    /// non-finite ones. Present only when asked for.
    std::optional<HostArray> mask;
};

/// Kappa-sigma clipping of all elements of a (any dtype, taken as float64).
/// Each pass computes the median and population std of the kept values and
/// keeps those strictly inside median +- kappa * std; it stops after the
/// first pass that removes nothing or after max_iters passes. iterations
/// counts every pass run, including that last one which removed nothing (a
/// set that is already stable reports 1). NaN and +-inf are ignored: never
/// kept, never counted, never part of a statistic. If a pass removes every
/// value (all kept values equal, so std is 0 and nothing lies strictly
/// inside), count is 0 and median, std and mean are NaN. Throws
/// InvalidArgument for kappa not finite and > 0, max_iters < 1, an empty
/// array, or an array without a finite value.
ClipResult kappa_sigma_clip(const HostArray& a, double kappa = 3.0, int max_iters = 100,
                            bool return_mask = false);

}  // namespace kiln::cpu
#pragma GCC visibility pop
