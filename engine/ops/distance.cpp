// scipy.ndimage.distance_transform_edt on the GPU: one dispatch per axis,
// all recorded at once. The first (edt_first) reads the mask and leaves the
// squared distance to the nearest zero along the first axis; each later one
// takes the lower envelope of the parabolas along its axis; the last writes
// the square root (see edt_common.glsl).
//
// The first pass takes one invocation per run of 32 elements of a line: it
// reads the run's mask once into a bit set and hops over the other runs'
// summaries (edt_chunks) for the nearest zeros outside it, so an element
// costs O(1) plus, per run, at most len / 32 hops however far the zeros
// are; its axis is the outermost: neighbouring invocations read
// neighbouring addresses whatever the line. (It replaced an element-wise
// walk of up to 32 steps each way: 0.48 ms of a 256^3 volume's 1.84 on
// the H100.)
//
// The later passes (edt_line) take a workgroup of 256 per block of G lines
// (G len <= 2048, G a power of 2; 8 lines of 256 at once in a 256^3 volume),
// the lines in shared memory: per band of G len / 256 elements a Meijster
// stack, then log2(256 / G) rounds merging neighbouring bands' envelopes
// (each site popped at most once), then each site fills the elements
// between its intersections, and each element evaluates 3 parabolas. Per
// element that is O(1) loads and stores of global memory (one read, one
// write; along y of a volume consecutive invocations take the G lines' x
// neighbours, 32 bytes of a sector for G = 8) and O(1) shared-memory work on
// average, whatever the mask: 2048 lines of 2048 are 2048 workgroups of 256
// (20 KB of shared memory each: 8 per H100 SM by threads, ~2 waves over 132
// SMs). The merge rounds are short for any mask: a band's envelope holds at
// most its 8 sites, and a merge pops only what the union hides.
// Blocks of lines of at most 256 (G >= 8) first try to settle every element
// in shared memory (edt_line's search_block): a line of at most 32 sites
// tries each of them per element (a sparse mask's lines); a denser one
// searches outward from each element, sites at distance 1, 2, ..., and stops
// where the offset alone reaches its best, so an element costs its own
// distance, with no merge rounds or dependent chains. One still searching
// after 24 steps is left to the envelope, which its block then runs. On the
// H100 a 256^3 volume of blobs (W61) took 0.26 ms a pass through the search
// against 0.6 through the envelope; a search to the end of the line cost a
// sparse mask (W64) up to 4.8 ms a pass, hence the site lists and the cap.
// Longer lines keep the envelope alone. (The element-wise search in global
// memory, edt_pass, remains for lines longer than shared memory holds.)
#include <algorithm>
#include <string>

#include "host/distance_rules.hpp"
#include "kiln/distance.hpp"
#include "kiln/manifest.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};

struct EdtPush {
    uint32_t n, axis, first, final_;
    uint32_t dims[3];
    uint32_t chunks;
    uint32_t sampling[3][2];
    uint32_t group_lines;
};
static_assert(sizeof(EdtPush) == 60);

struct ChunkPush {
    uint32_t n, len, inner, chunks;
};
static_assert(sizeof(ChunkPush) == 16);

// The longest line edt_line holds in shared memory (MAX_LEN there): 32 KB,
// Vulkan's guaranteed minimum, at most.
uint32_t edt_line_max(DType d2) { return d2 == DType::float64 ? 1024 : 2048; }
// edt_line's workgroups loop over lines past this (maxComputeWorkGroupCount
// is at least 65535).
constexpr uint32_t max_line_groups = 65535;

// Elements per run of edt_chunks' summaries (EDT_CHUNK in edt_chunk.glsl).
constexpr uint32_t edt_chunk = 32;

}  // namespace

Array distance_transform_edt(const Array& input, const std::vector<double>& sampling, DType result) {
    if (!input) throw InvalidArgument("distance_transform_edt: the input is a null Array");
    const size_t ndim = input.ndim();
    const std::array<double, 3> zyx = edt_sampling(ndim, sampling);
    check_edt_result(result);
    if (input.size() >= 0x80000000ull)
        throw Unsupported("distance_transform_edt: the input has " + std::to_string(input.size()) +
                          " elements; at most 2^31 - 1 are supported");
    detail::OpServices& ctx = ops::services(input);
    if (!ctx.info().float64)
        throw Unsupported("distance_transform_edt: needs a device with shaderFloat64 (square roots round "
                          "through float64), which '" + ctx.info().name + "' lacks");
    const Shape& shape = input.shape();
    EdtPush push{};
    push.n = static_cast<uint32_t>(input.size());
    push.first = static_cast<uint32_t>(3 - ndim);
    for (uint32_t a = 0; a < 3; ++a) {
        push.dims[a] = a < push.first ? 1 : static_cast<uint32_t>(shape[a - push.first]);
        const auto bits = ops::scalar_bits(zyx[a], result);
        push.sampling[a][0] = bits[0], push.sampling[a][1] = bits[1];
    }
    if (push.n == 0) return Array::empty(input.context(), shape, result);

    // Zeros per run of the first axis, so that the first pass's walks are
    // short however far apart zeros are.
    const uint32_t len = push.dims[push.first];
    push.chunks = (len + edt_chunk - 1) / edt_chunk;
    const ChunkPush cp{push.n, len, push.n / len, push.chunks};  // the first axis is the outermost
    const uint64_t runs = uint64_t(cp.inner) * cp.chunks;
    Array summary = Array::empty(input.context(), Shape{runs}, DType::uint32);
    Dispatcher(ctx, ops::variant(ops::Shader::edt_chunks, input.dtype()), linear_local)
        .read(input)
        .write(summary)
        .push(cp)
        .stride_grid(runs)
        .record();

    Array current = Array::empty(input.context(), shape, result);
    push.axis = push.first;
    push.final_ = ndim == 1;
    Dispatcher(ctx, ops::variant(ops::Shader::edt_first, input.dtype(), result), linear_local)
        .read(input)
        .read(summary)
        .write(current)
        .push(push)
        .stride_grid(runs)
        .record();
    for (uint32_t a = push.first + 1; a < 3; ++a) {
        Array next = Array::empty(input.context(), shape, result);
        push.axis = a;
        push.final_ = a == 2;
        const uint32_t line = push.dims[a];
        if (line <= edt_line_max(result)) {
            // As many lines per workgroup as shared memory holds, a power of
            // 2 no larger than the workgroup.
            push.group_lines = 1;
            while (push.group_lines * 2 * line <= edt_line_max(result) && push.group_lines * 2 <= linear_local[0])
                push.group_lines *= 2;
            const uint32_t blocks = (push.n / line + push.group_lines - 1) / push.group_lines;
            Dispatcher(ctx, ops::variant(ops::Shader::edt_line, result), linear_local)
                .read(current)
                .write(next)
                .push(push)
                .groups(std::min<uint32_t>(blocks, max_line_groups))
                .record();
        } else {
            Dispatcher(ctx, ops::variant(ops::Shader::edt_pass, result), linear_local)
                .read(current)
                .write(next)
                .push(push)
                .stride_grid(push.n)
                .record();
        }
        current = next;
    }
    return current;
}

}  // namespace kiln

// The manifest entries (kiln/manifest.hpp).
namespace kiln {
namespace {

const OpFamily distance_family("distance", {
    {"distance_transform_edt",
     "Exact Euclidean distance of each nonzero element to the nearest zero, as "
     "scipy.ndimage.distance_transform_edt",
     {{"input", ArgKind::array, "Input array file (1-, 2- or 3-D); zeros are the background"},
      {"sampling", ArgKind::numbers, "Spacing along each axis (z, y, x order), or one for all", "", true},
      {"dtype", ArgKind::choice, "Result dtype (SciPy's is float64)", "float32", false, {"float32", "float64"}}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return distance_transform_edt(x.array("input"), x.has("sampling") ? x.numbers("sampling")
                                                                           : std::vector<double>{},
                                       parse_dtype(x.text("dtype")));
     }},
});

}  // namespace
}  // namespace kiln
