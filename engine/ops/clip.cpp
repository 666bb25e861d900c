// Kappa-sigma clipping on the GPU. The kept set is always the finite values
// inside one interval (each pass keeps a subset of the previous one), so once
// the finite values are sorted every pass keeps a range of them. The values
// are sorted once (an LSD radix sort of their order-preserving keys, 8 bits
// a pass: sort_count, sort_scan, sort_scatter), a tree of float64 partial
// sums is built over them (clip_tree), and one workgroup runs the whole loop
// (clip_loop): per pass a median lookup, the range's sums from O(log n) tree
// nodes and two searches for the next range. No host round trip between
// passes; the statistics land in a small float64 array on the device.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "host/op_rules.hpp"
#include "kiln/statistics.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};
constexpr uint32_t per_lane = 16;        // keys per invocation of the sort: tiles of 16 * local
constexpr uint32_t max_groups = 65535;   // the kernels loop past it
constexpr uint32_t fan_out = 256;        // tree nodes sum 256 values or nodes
constexpr uint32_t max_table_rows = 8;   // subgroups per sort workgroup (sort_scatter's table)

struct SortPush {
    uint32_t n, tiles;
};

struct TreePush {
    uint32_t items, in_offset, out_offset, nodes;
};

struct LoopPush {
    uint32_t levels, max_iters;
    uint32_t kappa_bits[2];
    uint32_t offset[4], size[4];
};
static_assert(sizeof(LoopPush) == 48);

// 8-bit digits of the sort keys (shaders/include/sort_key.glsl).
uint32_t key_digits(DType t) {
    switch (t) {
    case DType::float64: return 8;
    case DType::int8:
    case DType::uint8: return 1;
    case DType::int16:
    case DType::uint16: return 2;
    default: return 4;
    }
}

void check_arguments(const Array& a, double kappa, int max_iters) {
    check_clip_parameters(kappa, max_iters);
    if (!a)
        throw InvalidArgument(
            "kappa_sigma_clip: the array is null (default-constructed); pass an array made with "
            "Array::empty, Array::from_host or an operation");
    if (!ops::services(a).enabled().float64)
        throw Unsupported("kappa_sigma_clip: needs a device with shaderFloat64 for its float64 sums; '" +
                          ops::services(a).info().name + "' has none");
}

[[noreturn]] void throw_no_finite(size_t size) {
    throw InvalidArgument("kappa_sigma_clip: the array of " + std::to_string(size) +
                          " elements has no finite value to clip");
}

struct Recorded {
    Array stats;   // float64 {5}: median, std, mean, count, iterations
    Array bounds;  // clip_mask's interval and count
};

// Sorts the finite values of a into keys; returns the array holding them
// (non-finite keys after them). state[0] receives the number of finite
// values, state[1] sort_scatter's error flag.
Array record_sort(const Array& a, const Array& state) {
    detail::OpServices& ctx = ops::services(a);
    Context context = a.context();
    const DType t = a.dtype();
    const auto n = static_cast<uint32_t>(a.size());
    // max_table_rows subgroups a workgroup (256 invocations at most).
    const uint32_t subgroup = std::max<uint32_t>(1, ctx.info().subgroup_size);
    const std::array<uint32_t, 3> local{std::clamp<uint32_t>(max_table_rows * subgroup, subgroup, 256), 1, 1};
    const uint32_t digits = key_digits(t);
    const uint64_t key_words = t == DType::float64 ? 2 : 1;
    Array keys[2] = {Array::empty(context, Shape{n * key_words}, DType::uint32),
                     digits > 1 ? Array::empty(context, Shape{n * key_words}, DType::uint32) : Array()};
    Array counts;
    uint32_t tiles = 0, groups = 0;
    for (uint32_t pass = 0; pass < digits; ++pass) {
        // Pass 0 reads the elements; later ones the previous pass's keys
        // (bound to both inputs).
        const Array& in = pass == 0 ? a : keys[(pass - 1) & 1];
        const Array& out = keys[pass & 1];

        Dispatcher c(ctx, ops::variant(ops::Shader::sort_count, t), local);
        Dispatcher x(ctx, ops::variant(ops::Shader::sort_scatter, t), local);
        const uint32_t size = c.local()[0];
        if (x.local()[0] != size || size % subgroup != 0 || size / subgroup > max_table_rows)
            throw Error("kappa_sigma_clip: sort_count and sort_scatter need the same workgroup size, a "
                        "multiple of the subgroup size and at most " + std::to_string(max_table_rows) +
                        " subgroups");
        if (pass == 0) {
            const uint32_t tile = per_lane * size;
            tiles = static_cast<uint32_t>((uint64_t(n) + tile - 1) / tile);
            groups = std::min(tiles, max_groups);
            counts = Array::empty(context, Shape{uint64_t(256) * tiles + 256 + tiles}, DType::uint32);
        }
        const SortPush push{n, tiles};
        c.read(in).read(in).write(counts).spec(pass).spec(per_lane).push(push).groups(groups).record();

        Dispatcher s(ctx, ops::KernelId::sort_scan, linear_local);
        s.read_write(counts).read_write(state).spec(pass == 0 ? 1 : 0).push(push);
        s.groups(pass == 0 ? 257 : 256).record();

        x.read(in).read(in).read(counts).write(out).read_write(state);
        x.spec(pass).spec(per_lane).spec(size / subgroup).push(push).groups(groups).record();
    }
    return keys[(digits - 1) & 1];
}

Recorded record_clip(const Array& a, double kappa, int max_iters) {
    check_arguments(a, kappa, max_iters);
    if (a.size() == 0) throw_no_finite(0);
    detail::OpServices& ctx = ops::services(a);
    Context context = a.context();
    const uint64_t key_bytes = a.dtype() == DType::float64 ? 8 : 4;
    const uint64_t range = ctx.info().max_storage_buffer_range;
    if (a.size() > std::numeric_limits<uint32_t>::max() / 2 || a.size() * key_bytes > range ||
        a.nbytes() > range)
        throw Unsupported("kappa_sigma_clip: " + std::to_string(a.size()) + " elements of " +
                          std::string(dtype_name(a.dtype())) + " are more than it handles on '" +
                          ctx.info().name + "': at most 2^31 elements, whose sort keys (" +
                          std::to_string(key_bytes) + " bytes each) and data each fit one binding "
                          "(maxStorageBufferRange " + std::to_string(range) + " bytes)");

    Array state = Array::empty(context, Shape{4}, DType::uint32);
    const Array sorted = record_sort(a, state);

    // Levels of the sum tree: level l + 1 has a node per 256 of level l
    // (level 0 the values), up to one of at most 256 nodes.
    LoopPush loop{};
    uint64_t items = a.size(), nodes_total = 0;
    while (items > fan_out) {
        items = (items + fan_out - 1) / fan_out;
        loop.offset[loop.levels] = static_cast<uint32_t>(nodes_total);
        loop.size[loop.levels] = static_cast<uint32_t>(items);
        nodes_total += items;
        ++loop.levels;
    }
    Array tree = Array::empty(context, Shape{2 * std::max<uint64_t>(nodes_total, 1)}, DType::float64);
    const uint32_t subgroup = std::max<uint32_t>(1, ctx.info().subgroup_size);
    for (uint32_t l = 0; l < loop.levels; ++l) {
        Dispatcher d(ctx, ops::variant(ops::Shader::clip_tree, a.dtype()), linear_local);
        d.whole_subgroups();
        const TreePush push{l == 0 ? static_cast<uint32_t>(a.size()) : loop.size[l - 1],
                            l == 0 ? 0 : loop.offset[l - 1], loop.offset[l], loop.size[l]};
        d.read(sorted).read(state).read_write(tree).spec(l == 0 ? 1 : 0).push(push);
        // One subgroup a node.
        const uint32_t per_group = std::max<uint32_t>(1, d.local()[0] / subgroup);
        d.groups(std::min((loop.size[l] + per_group - 1) / per_group, max_groups)).record();
    }

    Recorded r{Array::empty(context, Shape{5}, DType::float64), Array::empty(context, Shape{6}, DType::uint32)};
    loop.max_iters = static_cast<uint32_t>(max_iters);
    std::memcpy(loop.kappa_bits, &kappa, 8);
    Dispatcher d(ctx, ops::variant(ops::Shader::clip_loop, a.dtype()), linear_local);
    if (d.local()[0] < 256) throw Error("kappa_sigma_clip: clip_loop needs a workgroup of at least 256");
    d.read(sorted).read(state).read(tree).write(r.bounds).write(r.stats).push(loop).groups(1).record();
    return r;
}

ClipResult result_of(const Array& stats, size_t size) {
    const auto v = stats.to_vector<double>();
    if (v[4] < 0)
        throw Error("kappa_sigma_clip: the device ran sort_scatter with more subgroups than its table "
                    "holds (subgroups smaller than the reported size); this device is not supported");
    if (v[4] == 0) throw_no_finite(size);
    ClipResult r;
    r.median = v[0];
    r.std = v[1];
    r.mean = v[2];
    r.count = static_cast<size_t>(v[3]);
    r.iterations = static_cast<int>(v[4]);
    return r;
}

} // namespace

ClipResult ClipResultAsync::get() const {
    if (!stats)
        throw InvalidArgument("ClipResultAsync::get: nothing was recorded (default-constructed); "
                              "use the result of kappa_sigma_clip_async");
    return result_of(stats, size);
}

ClipResultAsync kappa_sigma_clip_async(const Array& a, double kappa, int max_iters) {
    Recorded r = record_clip(a, kappa, max_iters);
    return ClipResultAsync{r.stats, a.size()};
}

ClipResult kappa_sigma_clip(const Array& a, double kappa, int max_iters, bool return_mask) {
    Recorded rec = record_clip(a, kappa, max_iters);
    ClipResult r = result_of(rec.stats, a.size());
    if (return_mask) {
        Array mask = Array::empty(a.context(), a.shape(), DType::uint8);
        const auto n = static_cast<uint32_t>(a.size());
        Dispatcher d(ops::services(a), ops::variant(ops::Shader::clip_mask, a.dtype()), linear_local);
        d.read(a).read(rec.bounds).write(mask).push(n).stride_grid(n).record();
        r.mask = mask;
    }
    return r;
}

} // namespace kiln
