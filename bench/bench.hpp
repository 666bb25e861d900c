#pragma once
// kiln's benchmark: workloads register themselves by family; main runs the
// selected ones, prints a table and writes JSON.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kiln/kiln.hpp"
#include "kiln/reference/clip.hpp"

namespace kiln::bench {

/// Sizes: `full` is the reference workload (REFERENCE.md), `small` a quick
/// run for lavapipe that only checks the benchmark still works.
enum class Size { small, full };

struct Result {
    std::string id;           ///< W1..W16, or a name for kiln's own figures
    std::string name;
    double gpu_ms = 0, gpu_min = 0, gpu_max = 0;  ///< timestamps, median of repeats
    double wall_ms = 0;                            ///< host time including submission
    std::map<std::string, double> metrics;         ///< GB/s, us per node, ...
    bool checked = false;                          ///< output compared with the CPU
    bool ok = true;
    std::string note;
};

struct Workload {
    std::string id, name, family;
    std::function<Result(Context&, Size, int repeats)> run;
};

std::vector<Workload>& registry();
struct Register {
    Register(Workload w) { registry().push_back(std::move(w)); }
};

/// The synthetic radio sky of the reduction and astronomy workloads (the
/// default 2048^2 image at full size, a 256^2 one with fewer sources at
/// small size) and its CPU kappa-sigma clipping (kappa 3, with the mask),
/// made once per size and shared: the CPU clipping takes about a second.
struct SkyInput {
    HostArray image;
    cpu::ClipResult clip;
};
const SkyInput& sky_input(Size size);

/// Keeps the GPU busy for `ms` milliseconds (a compute copy in flight the
/// whole time) so that its clock is at the level sustained work gets. The
/// driver lowers the clock within ~2 s of idling and raises it again only
/// after ~0.3 s of continuous load (bench/results/2026-11-22-h200/clock.md),
/// while the benchmark's repeats are short bursts between CPU references.
/// No-op at small size and when disabled with --no-hold-clock.
void hold_clock(Context& ctx, Size size);
void set_hold_clock_ms(double ms);

/// hold_clock, then kiln::benchmark: every timed workload goes through this.
BenchmarkResult timed(Context& ctx, Size size, const std::function<void()>& fn, int n_repeat, int n_warmup);

/// Fills gpu/wall statistics of r from a benchmark result.
void take_times(Result& r, const BenchmarkResult& b);

} // namespace kiln::bench
