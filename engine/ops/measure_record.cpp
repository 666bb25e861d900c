// The GPU passes of the per-label measurements, recorded at once:
//   1. measure_runs (MODE 0)  pixels: count of every slot
//   2. measure_runs (MODE 2)  one workgroup: lays out the slot lists and
//                             their segments, and writes the header
//   3. measure_runs (MODE 1)  pixels: indices and values grouped by slot
//   4. measure_reduce         a workgroup per segment of a slot's list (the
//                             last one of a slot writes its row); empty
//                             slots get a zero row
// The atomics of passes 1 and 3 are integer ones, once per run of equal
// labels; every floating-point sum is made by one owner in the order of its
// list, so float64 (or compensated float32) needs no atomics. The per-slot
// counters (counts, segments done) are kept by the context and left zero by
// their last user, so no pass clears them. The host reads back the header
// and the rows (measure.cpp).
#include <algorithm>
#include <optional>

#include "ops/kernel.hpp"
#include "ops/measure_detail.hpp"

namespace kiln::ops {

namespace {

constexpr std::array<uint32_t, 3> runs_local{256, 1, 1};
constexpr std::array<uint32_t, 3> reduce_local{64, 1, 1};
// Slots are reduced in segments of (workgroup size * per_invocation)
// pixels by a workgroup each (measure_reduce's PER). On a CPU driver, where
// a workgroup costs far more to start, slots of at most cpu_small_slot
// pixels are reduced by one invocation instead.
constexpr uint32_t cpu_small_slot = 32;
constexpr uint32_t per_invocation = 8;
constexpr uint32_t steps_per_chunk = 4;  // measure_runs' STEPS
// The kept counters are allocated for at least this many words (1024
// slots), so that calls with a few more slots than the last seldom grow them.
constexpr uint64_t min_state_words = 2 * 1024;

struct RunsPush {
    uint32_t n, nslots, nkeys, small, seg, device_count;
};
static_assert(sizeof(RunsPush) == 24);

struct ReducePush {
    uint32_t nslots, nx, ny, small, seg, max_segments;
};
static_assert(sizeof(ReducePush) == 24);

uint32_t capped(detail::OpServices& ctx, uint64_t groups) {
    return static_cast<uint32_t>(std::clamp<uint64_t>(
        groups, 1, std::min<uint64_t>(ctx.info().max_workgroup_count[0], 65535)));
}

uint32_t ctx_small_slot(detail::OpServices& ctx) {
    return ctx.info().type == "cpu" ? cpu_small_slot : 0;
}

// A grid for a kernel that loops over its work items: enough workgroups to
// fill a large GPU. A CPU driver (lavapipe) runs a few at a time, each with
// a high start-up cost (a coroutine per invocation group for the barriers),
// so there fewer do the same work sooner.
uint32_t looping_grid(detail::OpServices& ctx, uint64_t items) {
    return capped(ctx, std::min<uint64_t>(items, ctx.info().type == "cpu" ? 64 : 2048));
}

}  // namespace

Measurements::Raw record_measure(const Array& image, const Array& labels, const SlotMap& map,
                                 bool float64, std::optional<uint32_t> small, const Array* count) {
    const uint32_t small_slot = small.value_or(ctx_small_slot(ops::services(image)));
    detail::OpServices& ctx = ops::services(image);
    // The kept counters are zero only between whole measurements: another
    // thread's must not record between this one's passes.
    const auto lock = ctx.lock();
    const Context c = image.context();
    const auto n = static_cast<uint32_t>(image.size());
    const uint32_t nslots = map.nslots;
    const bool lookup = !map.keys.empty();
    Dispatcher reduce_pass(ctx, ops::variant(ops::Shader::measure_reduce, float64 ? DType::float64 : DType::float32),
                           reduce_local);
    reduce_pass.whole_subgroups();
    const uint32_t segment = reduce_pass.local()[0] * per_invocation;

    // The header and the table (row_words per slot), every word written by
    // the passes.
    Array out = Array::empty(c, Shape{header_words + row_words * uint64_t(nslots)}, DType::uint32);
    // The counts and segments done per slot, kept by the context: every call
    // leaves them zero for the next (kept_zeros).
    Array state = kept_zeros(c, "measure_state", std::max<uint64_t>(2 * uint64_t(nslots), min_state_words));
    // Offsets and cursors per slot.
    Array lists = Array::empty(c, Shape{2 * uint64_t(nslots)}, DType::uint32);
    // The measured pixels grouped by slot: indices, and values as two words.
    Array sorted = Array::empty(c, Shape{n}, DType::uint32);
    Array values = Array::empty(c, Shape{2 * uint64_t(n)}, DType::uint32);
    // At most one segment per `segment` pixels plus one per large slot.
    const uint64_t large_slots = std::min<uint64_t>(nslots, n / (small_slot + 1));
    const uint64_t max_segments = std::max<uint64_t>(1, (n + segment - 1) / segment + large_slots);
    // Per segment: its slot, the slot's first segment, count and list offset.
    Array seg_info = Array::empty(c, Shape{4 * max_segments}, DType::uint32);
    // Without keys the lookup bindings are unused; the labels stand in.
    Array keys = lookup ? Array::from(c, Shape{map.keys.size()}, map.keys) : labels;
    Array key_slots = lookup ? Array::from(c, Shape{map.key_slots.size()}, map.key_slots) : labels;
    // Without a device count the binding is unused; the labels stand in.
    const Array& count_in = count ? *count : labels;
    const RunsPush rp{n, nslots, static_cast<uint32_t>(map.keys.size()), small_slot, segment,
                      count ? 1u : 0u};
    // Counts, lists laid out (one workgroup), pixels grouped by slot.
    for (uint32_t mode : {0u, 2u, 1u}) {
        Dispatcher d(ctx, ops::variant(ops::Shader::measure_runs, image.dtype()), runs_local);
        d.whole_subgroups();
        const uint64_t chunk = uint64_t(ctx.info().subgroup_size) * steps_per_chunk;
        const uint64_t per_group = std::max<uint32_t>(1, d.local()[0] / ctx.info().subgroup_size);
        d.read(labels).read(image).read(keys).read(key_slots).read_write(out).read_write(lists);
        d.write(sorted).write(values).write(seg_info).read(count_in).read_write(state);
        d.spec(mode).spec(lookup).push(rp);
        d.groups(mode == 2 ? 1 : capped(ctx, ((n + chunk - 1) / chunk + per_group - 1) / per_group));
        d.record();
    }

    Array parts = Array::empty(c, Shape{max_segments * row_words}, DType::uint32);
    const ReducePush pp{nslots, static_cast<uint32_t>(image.shape().x()),
                        static_cast<uint32_t>(image.shape().y()), small_slot, segment,
                        static_cast<uint32_t>(max_segments)};
    const uint64_t slot_groups =
        small_slot ? (nslots + reduce_pass.local()[0] - 1) / reduce_pass.local()[0] : 0;
    // How measure_reduce reads the raw values: float32, float64, int32, uint32.
    const uint32_t kind = image.dtype() == DType::float32   ? 0
                          : image.dtype() == DType::float64 ? 1
                          : dtype_is_signed(image.dtype())  ? 2
                                                            : 3;
    reduce_pass.read(values).read(sorted).read_write(out).read(lists).read_write(parts).read(
        seg_info).read_write(state);
    reduce_pass.spec(kind).push(pp).groups(looping_grid(ctx, max_segments + slot_groups)).record();
    Measurements::Raw raw;
    raw.table = out;
    raw.float64 = float64;
    raw.shape = image.shape();
    raw.nslots = nslots;
    return raw;
}

}  // namespace kiln::ops
