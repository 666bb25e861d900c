// Kappa-sigma clipping on the GPU. The kept set is always the finite values
// inside one interval (each pass keeps a subset of the previous one), so a
// pass is a radix selection of the median over the values inside the
// interval, with float64 sums of the same values for the std, and a new
// interval. Passes are recorded a chunk at a time; the clip state on the
// device carries the interval, the statistics and a `done` flag that turns
// the passes after convergence into no-ops, and is read back once per chunk.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "kiln/elementwise.hpp"
#include "kiln/statistics.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};
constexpr uint32_t bins = 2048;
constexpr uint32_t targets = 2;  // the two middle ranks of the kept values
constexpr uint64_t elements_per_thread = 32;
constexpr uint32_t max_groups = 2048;
constexpr uint32_t prepass = 7;  // select_hist / select_pick: sum and count of the finite values
// Passes in the first chunk: the synthetic sky converges after 9.
constexpr int first_chunk = 12;
constexpr int max_chunk = 192;

// The clip state as select_hist, select_pick and clip_mask declare it (std430).
struct ClipState {
    double lo, hi, shift, median, std, mean;
    uint32_t count, prev_total, done, iterations, finite, total, last, pad;
};
static_assert(sizeof(ClipState) == 80);

struct PickPush {
    uint32_t rank[8];
    uint32_t slot, max_iters, parts, pad;
    uint32_t kappa_bits[2];
};

// Everything one clipping run records its passes with.
struct Run {
    const Array& a;
    std::string variant;
    uint32_t n, groups, passes;
    Array hist, state, clip, partials;
    PickPush pick;

    void record(uint32_t pass, uint32_t slot) {
        detail::ContextState& ctx = a.state();
        Dispatcher h(ctx, "select_hist_" + variant, linear_local);
        h.read(a).read_write(hist).read(state).read(clip).write(partials);
        h.spec(pass).spec(targets).push(n).groups(groups).record();
        pick.slot = slot;
        Dispatcher p(ctx, "select_pick_" + variant, linear_local);
        p.read_write(hist).read_write(state).read_write(clip).read(partials);
        p.spec(pass).spec(targets).push(pick).groups(1).record();
    }
};

void check_arguments(const Array& a, double kappa, int max_iters) {
    if (!(kappa > 0.0) || !std::isfinite(kappa))
        throw InvalidArgument("kappa_sigma_clip: kappa = " + std::to_string(kappa) +
                              " is not accepted; it must be finite and > 0");
    if (max_iters < 1)
        throw InvalidArgument("kappa_sigma_clip: max_iters = " + std::to_string(max_iters) +
                              " is not accepted; at least one pass is needed");
    if (!a)
        throw InvalidArgument(
            "kappa_sigma_clip: the array is null (default-constructed); pass an array made with "
            "Array::empty, Array::from_host or an operation");
    if (a.size() > std::numeric_limits<uint32_t>::max())
        throw Unsupported("kappa_sigma_clip: arrays of more than 2^32 - 1 elements are not supported (" +
                          std::to_string(a.size()) + " given)");
    if (!a.state().device().enabled().float64)
        throw Unsupported("kappa_sigma_clip: needs a device with shaderFloat64 for its float64 sums; '" +
                          a.state().info().name + "' has none");
}

} // namespace

ClipResult kappa_sigma_clip(const Array& a, double kappa, int max_iters, bool return_mask) {
    check_arguments(a, kappa, max_iters);
    Context ctx = a.context();
    const uint64_t per_group = linear_local[0] * elements_per_thread;
    const auto n = static_cast<uint32_t>(a.size());
    const auto groups = static_cast<uint32_t>(std::clamp<uint64_t>((n + per_group - 1) / per_group, 1, max_groups));
    Run run{a,
            std::string(dtype_name(a.dtype())) + "_float64",
            n,
            groups,
            a.dtype() == DType::float64 ? 6u : 3u,
            Array::empty(ctx, Shape{targets * bins + 1}, DType::uint32),
            Array::empty(ctx, Shape{4 + 4 * targets}, DType::uint32),
            Array::empty(ctx, Shape{sizeof(ClipState) / 4}, DType::uint32),
            Array::empty(ctx, Shape{2 * uint64_t(groups)}, DType::float64),
            {}};
    run.pick.max_iters = static_cast<uint32_t>(max_iters);
    run.pick.parts = groups;
    std::memcpy(run.pick.kappa_bits, &kappa, 8);

    fill(run.hist, 0);  // each select_pick clears the histograms after use
    run.record(prepass, 0);
    // Slots 0 .. max_iters: slot max_iters only computes the statistics of
    // what the last pass kept.
    ClipState s{};
    int64_t chunk = first_chunk;
    for (int64_t slot = 0; slot <= max_iters;) {
        const int64_t end = std::min<int64_t>(slot + chunk, int64_t(max_iters) + 1);
        for (; slot < end; ++slot)
            for (uint32_t pass = 0; pass < run.passes; ++pass) run.record(pass, static_cast<uint32_t>(slot));
        const auto words = run.clip.to_vector<uint32_t>();
        std::memcpy(&s, words.data(), sizeof s);
        if (s.finite == 0)
            throw InvalidArgument("kappa_sigma_clip: the array of " + std::to_string(a.size()) +
                                  " elements has no finite value to clip");
        if (s.done) break;
        chunk = std::min<int64_t>(chunk * 2, max_chunk);
    }
    if (!s.done)
        throw Error("kappa_sigma_clip: the device did not finish the loop after " + std::to_string(max_iters) +
                    " passes; this is a bug in kiln");

    ClipResult r;
    r.median = s.median;
    r.std = s.std;
    r.mean = s.mean;
    r.count = s.count;
    r.iterations = static_cast<int>(s.iterations);
    if (return_mask) {
        Array mask = Array::empty(ctx, a.shape(), DType::uint8);
        Dispatcher d(a.state(), ops::variant("clip_mask", a.dtype()), linear_local);
        d.read(a).read(run.clip).write(mask).push(n).stride_grid(n).record();
        r.mask = mask;
    }
    return r;
}

} // namespace kiln
