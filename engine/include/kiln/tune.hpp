#pragma once
// Workgroup-size tuning: time an operation with each candidate size of one of
// its kernels (GPU timestamps, on the actual device and data), keep the
// fastest, and remember it per device in the cache directory, as the seed's
// tuning loop and pyFAI's engine.workgroup_size do.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/context.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

using WorkgroupSize = std::array<uint32_t, 3>;

/// One candidate of a tuning run.
struct TuneEntry {
    WorkgroupSize size{1, 1, 1};
    double gpu_ms = 0, min_ms = 0, max_ms = 0;  ///< median, min, max GPU time of the repeats
    bool ok = true;
    std::string error;  ///< why the candidate could not run (device limits, shared memory...)
};

/// What tune() found.
struct TuneResult {
    std::string kernel;             ///< the name the size was set for
    std::string device;
    std::vector<TuneEntry> table;   ///< every candidate, in the order tried
    WorkgroupSize best{1, 1, 1};    ///< now set on the context
    double best_ms = 0;
    /// The table: size, median, min and max GPU ms; the best marked with '*'.
    std::string str() const;
};

/// Powers of two from 32 to the device's maximum invocations per workgroup
/// (at most 1024), as x sizes: {32,1,1}, {64,1,1}, ...
std::vector<WorkgroupSize> default_candidates(const Context& ctx);

/// The kernels one call of run_op dispatches (what to tune), slowest first,
/// from the context's profile (needs Timing::nodes, the default; empty
/// otherwise). Transfers are left out.
std::vector<std::string> kernels_of(Context& ctx, const std::function<void()>& run_op);

/// For each candidate: ctx.set_workgroup_size(kernel, candidate), then
/// kiln::benchmark(ctx, run_op, repeats) (GPU timestamps, after warm-up).
/// The fastest is set on the context and, when persist is true, saved for
/// this device (see load_tuning). kernel is what set_workgroup_size takes: a
/// built-in kernel ("binary4", "hist_count_int32"), a family ("hist_count"),
/// or a user kernel's name. Candidates that fail (over the device's limits)
/// are kept in the table with their error. Throws InvalidArgument for an
/// empty kernel name, repeats < 1 or an empty candidate list, Unsupported
/// when the context takes no GPU timestamps, Error when no candidate ran.
TuneResult tune(Context& ctx, const std::string& kernel, const std::function<void()>& run_op,
                std::vector<WorkgroupSize> candidates = {}, int repeats = 10, bool persist = true);

/// The file tuned sizes are kept in: cache_directory(ctx)/tuning.tsv, one
/// line per device name, driver version and kernel. Empty when there is no
/// cache directory.
std::string tuning_file(const Context& ctx);

/// Records a size for this context's device (replacing an older one for the
/// same kernel). Throws IoError when the file cannot be written.
void save_tuning(const Context& ctx, const std::string& kernel, WorkgroupSize size, double gpu_ms = 0);

/// Sets on the context every size saved for its device and driver version;
/// returns how many. A missing file gives 0; sizes the device no longer
/// accepts are skipped. A Context does not load them by itself: call this
/// once after creating one (the CLI and the samples do).
size_t load_tuning(Context& ctx);

} // namespace kiln
#pragma GCC visibility pop
