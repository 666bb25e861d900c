// scipy.ndimage's rank_filter, median_filter and percentile_filter on the
// GPU: one dispatch of shaders/rank_filter.comp.
//
// How the element of rank K is found (the shader's NET switch). Per output
// of a footprint of N elements, with the window's keys in shared memory:
// - A full sort per output (CuPy keeps the K + 2 smallest in local memory,
//   about N * K / 2 compares with branches) grows as N^2: 12k steps at
//   15x15.
// - Bisection on the key's bits: one pass of N compares per key bit (32 for
//   float32 and 32-bit integers, 16 or 8 for the smaller integers), with no
//   data-dependent branches; the PX outputs of an invocation share each
//   row's shared-memory loads, so a pass costs N compare-adds and about
//   N / PX loads per output: 15x15 float32 is 32 * 225 = 7200 compare-adds,
//   about 1.5-2 ms for 2048^2 on an H100 (ALU bound), against about 3x that
//   for CuPy's selection. It costs the same for every rank and for ties.
// - Below 65 elements a sorting network in registers costs less: Batcher's
//   merge sort over 16, 32 or 64 keys is 63, 191 or 543 compare-exchanges
//   (two min/max each), before the compiler drops those that cannot reach
//   key K and those against the all-ones padding (spirv-opt's count of
//   min/max left: 71 for the 3x3 median, 235 for rank 6 of 5x5, 757 for
//   the 7x7 median, against 288, 800 and 1568 compare-adds of bisection).
//   The median of 9 takes Paeth's network instead (19 exchanges, at most 38
//   min/max; recent CuPy has a special median network for it too). The footprint, its membership and K are
//   specialization constants, so that the network unrolls into registers.
// - A per-tile histogram (Huang/Perreault) would beat both for 8-bit images
//   and large windows, but not for float32, the benchmark's dtype; the
//   bisection's 8 passes for uint8 are cheap enough.
// Each workgroup loads its tile and halo once (about (1 + K/T)^2 of the
// tile's bytes), so memory traffic stays near one read and one write.
#include <algorithm>
#include <string>

#include "host/rank_rules.hpp"
#include "kiln/manifest.hpp"
#include "kiln/rank_filters.hpp"
#include "ops/convolve_pass.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

struct RankPush {
    uint32_t cval_key[2];  // low, high word
    uint32_t Z, Y, X;
    int32_t oz, oy, ox;
    uint32_t mode;
};
static_assert(sizeof(RankPush) == 36);

// Footprints of up to this many elements (whose box holds no more) are
// sorted by a network.
constexpr size_t max_network = 64;
constexpr uint32_t shared_cap = 48 * 1024;

// The key rank_filter.comp orders elements by, of cval converted to t as
// kernels take scalars (floats rounded, integers truncated and clamped).
uint64_t cval_key(double cval, DType t) {
    const auto bits = ops::scalar_bits(cval, t);
    const uint32_t r = bits[0];
    switch (t) {
        case DType::float64: {
            const uint64_t b = uint64_t(bits[1]) << 32 | bits[0];
            return (b >> 63) != 0 ? ~b : b | uint64_t(1) << 63;
        }
        case DType::float32:
            return (r & 0x80000000u) != 0 ? ~r : r | 0x80000000u;
        case DType::int8:
            return uint32_t(int32_t(r) + 128);
        case DType::int16:
            return uint32_t(int32_t(r) + 32768);
        case DType::int32:
            return r ^ 0x80000000u;
        default:
            return r;
    }
}

// The membership of a footprint's box as 16-bit words per row (dz, dy),
// in float32 for conv::upload_weights (exact below 2^24).
std::vector<double> mask_words(const Footprint& f, uint32_t kw, uint32_t words_per_row) {
    std::vector<double> words(f.mask.size() / kw * words_per_row, 0.0);
    for (size_t i = 0; i < f.mask.size(); ++i)
        if (f.mask[i]) words[i / kw * words_per_row + i % kw / 16] += double(1u << (i % kw % 16));
    return words;
}

}  // namespace

Array rank_filter(const Array& input, int64_t rank, const Footprint& footprint, NdMode mode,
                  double cval) {
    if (!input) throw InvalidArgument("rank_filter: the input is a null Array");
    const DType t = input.dtype();
    detail::OpServices& ctx = ops::services(input);
    if (t == DType::float64 && !(ctx.info().int64 && ctx.info().float64))
        throw Unsupported("rank_filter: float64 input needs a device with shaderInt64 and shaderFloat64 (64-bit "
                          "keys), which '" + ctx.info().name + "' lacks; cast to float32, or the integer dtypes");
    const auto offsets = footprint.offsets(input.ndim());
    const size_t n = offsets.size();
    const uint32_t k = uint32_t(resolve_rank(rank, n, "rank_filter"));
    const Shape& shape = input.shape();
    Array out = Array::empty(input.context(), shape, t);

    // The footprint's box in (z, y, x): a footprint of fewer dimensions
    // than the array spans one plane or row.
    const size_t fd = footprint.ndim();
    const uint32_t kd = fd == 3 ? uint32_t(footprint.shape[0]) : 1,
                   kh = fd >= 2 ? uint32_t(footprint.shape[fd - 2]) : 1,
                   kw = uint32_t(footprint.shape[fd - 1]);
    // The box's corner, from the offset of its first element that belongs.
    const size_t first = size_t(std::find(footprint.mask.begin(), footprint.mask.end(), 1) -
                                footprint.mask.begin());
    const int first_z = int(first / (size_t(kh) * kw)), first_y = int(first / kw % kh),
              first_x = int(first % kw);
    const std::array<int, 3> corner{offsets[0][0] - first_z, offsets[0][1] - first_y, offsets[0][2] - first_x};

    const bool box = footprint.is_box();
    const uint64_t volume = uint64_t(kd) * kh * kw;
    const bool net = n <= max_network && volume <= max_network;
    uint32_t log2_p2 = 1;
    while ((size_t(1) << log2_p2) < n) ++log2_p2;
    uint32_t mask_lo = 0, mask_hi = 0;
    if (net)
        for (size_t i = 0; i < volume; ++i)
            if (footprint.mask[i]) (i < 32 ? mask_lo : mask_hi) |= 1u << (i % 32);

    const uint32_t px = net ? 2 : 4;
    const uint32_t budget = std::min(ctx.info().max_shared_memory, shared_cap);
    auto shared_bytes = [&](const std::array<uint32_t, 3>& l) {
        const uint64_t sw = uint64_t(l[0]) * px + kw - 1, s0 = (sw + px - 1) / px,
                       s = s0 + (32 / px + 32 - s0 % 32) % 32;  // as rank_filter.comp
        return uint64_t(kd) * (l[1] + kh - 1) * px * s * (t == DType::float64 ? 8 : 4);  // keys
    };
    uint32_t ly = 8;
    while (ly > 1 && shared_bytes({32, ly, 1}) > budget) ly /= 2;
    ops::Dispatcher d(ctx, ops::variant(ops::Shader::rank_filter, t), {32, ly, 1});
    const auto l = d.local();
    if (shared_bytes(l) > budget)
        throw Unsupported("rank_filter: a footprint box of " + std::to_string(kd) + "x" +
                          std::to_string(kh) + "x" + std::to_string(kw) +
                          " needs more shared memory than the device's " + std::to_string(budget) +
                          " bytes per workgroup; use a smaller footprint");

    Array mask = input;
    if (!box && !net) {
        const uint32_t words_per_row = (kw + 15) / 16;
        mask = ops::conv::upload_weights(input.context(), mask_words(footprint, kw, words_per_row),
                                         DType::float32);
    }
    RankPush p{};
    p.Z = uint32_t(shape.z()), p.Y = uint32_t(shape.y()), p.X = uint32_t(shape.x());
    p.oz = corner[0], p.oy = corner[1], p.ox = corner[2];
    p.mode = uint32_t(ops::conv::ext_of(mode));
    const uint64_t ck = cval_key(cval, t);
    p.cval_key[0] = uint32_t(ck), p.cval_key[1] = uint32_t(ck >> 32);
    d.read(input).write(out).read(mask);
    for (uint32_t v : {kd, kh, kw, px, k, uint32_t(net), log2_p2, uint32_t(box), mask_lo, mask_hi,
                       uint32_t(n)})
        d.spec(v);
    d.push(p);
    auto groups = [&](uint64_t tiles, int axis) {
        const uint64_t limit = std::min<uint64_t>(ctx.info().max_workgroup_count[axis], 65535);
        return uint32_t(std::clamp<uint64_t>(tiles, 1, limit));
    };
    d.groups(groups((p.X + uint64_t(l[0]) * px - 1) / (uint64_t(l[0]) * px), 0),
             groups((p.Y + l[1] - 1) / l[1], 1), groups(p.Z, 2))
        .record();
    return out;
}

Array median_filter(const Array& input, const Footprint& footprint, NdMode mode, double cval) {
    return rank_filter(input, int64_t(footprint.count() / 2), footprint, mode, cval);
}

Array percentile_filter(const Array& input, double percentile, const Footprint& footprint,
                        NdMode mode, double cval) {
    return rank_filter(input, percentile_rank(percentile, footprint.count()), footprint, mode, cval);
}

}  // namespace kiln

// The manifest entries (kiln/manifest.hpp).
namespace kiln {
namespace {

// The neighbourhood of --size or --footprint, with --origin: a single size
// or origin serves every axis, as SciPy's do.
Footprint footprint_of(const OpArgs& x, const Array& input) {
    const size_t nd = input ? input.ndim() : 1;
    auto per_axis = [&](const std::vector<int64_t>& v) {
        return v.size() == 1 ? std::vector<int64_t>(nd, v[0]) : v;
    };
    Footprint f = x.has("footprint") ? Footprint::from_host(x.array("footprint").to_host())
                                     : Footprint::box(per_axis(x.integers("size")));
    for (int64_t o : per_axis(x.integers("origin"))) f.origin.push_back(int(o));
    if (f.origin.size() != f.ndim())
        throw InvalidArgument("origin: " + std::to_string(x.integers("origin").size()) +
                              " values for a " + std::to_string(f.ndim()) +
                              "-D footprint; give one, or one per axis");
    return f;
}

std::vector<ArgSpec> rank_args(std::vector<ArgSpec> extra) {
    std::vector<ArgSpec> args{{"input", ArgKind::array, "Input array file (1-, 2- or 3-D)"}};
    args.insert(args.end(), extra.begin(), extra.end());
    const std::vector<ArgSpec> common{
        {"size", ArgKind::integers, "Box sizes, one per axis (z, y, x) or one for all, e.g. --size 5 5", "", true,
         {}, 1, 1 << 20},
        {"footprint", ArgKind::array, "Footprint array file (nonzero: in the neighbourhood), instead of --size", "",
         true},
        {"mode", ArgKind::choice, "How the input extends beyond its edges (scipy.ndimage)", "reflect", false,
         nd_mode_names()},
        {"cval", ArgKind::number, "Value outside the input with --mode constant (converted to the input's dtype)",
         "0"},
        {"origin", ArgKind::integers, "Shift of the footprint's centre, one per axis or one for all", "0", false, {},
         -(1 << 20), 1 << 20}};
    args.insert(args.end(), common.begin(), common.end());
    return args;
}

const std::vector<std::vector<std::string>> size_or_footprint{{"size"}, {"footprint"}};

const OpFamily rank_family("rank_filters", {
    {"median_filter", "Median filter as scipy.ndimage.median_filter (the upper median for an even count)",
     rank_args({}), ResultKind::array, {}, size_or_footprint,
     [](const OpArgs& x) {
         const Array& in = x.array("input");
         return median_filter(in, footprint_of(x, in), parse_nd_mode(x.text("mode")), x.number("cval"));
     }},
    {"percentile_filter", "Percentile filter as scipy.ndimage.percentile_filter",
     rank_args({{"percentile", ArgKind::number, "Percentile, -100 to 100 (negative: from 100)"}}),
     ResultKind::array, {}, size_or_footprint,
     [](const OpArgs& x) {
         const Array& in = x.array("input");
         return percentile_filter(in, x.number("percentile"), footprint_of(x, in),
                                  parse_nd_mode(x.text("mode")), x.number("cval"));
     }},
    {"rank_filter", "Rank filter as scipy.ndimage.rank_filter",
     rank_args({{"rank", ArgKind::integer, "Index into the sorted neighbourhood (negative: from the end)"}}),
     ResultKind::array, {}, size_or_footprint,
     [](const OpArgs& x) {
         const Array& in = x.array("input");
         return rank_filter(in, x.integer("rank"), footprint_of(x, in), parse_nd_mode(x.text("mode")),
                            x.number("cval"));
     }},
});

}  // namespace
}  // namespace kiln
