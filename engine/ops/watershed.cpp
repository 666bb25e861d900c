// skimage.segmentation.watershed (markers, no compactness, no lines) on the
// GPU: ws_init, then rounds of ws_flood until F is stable, then rounds of
// ws_label until the labels are (kiln/watershed.hpp gives the rule). Rounds
// are recorded in batches; each round is skipped on the device once the
// round before it changed nothing, and the host reads one flag per batch.
#include "kiln/watershed.hpp"

#include <string>
#include <vector>

#include "kiln/elementwise.hpp"
#include "kiln/manifest.hpp"
#include "ops/kernel.hpp"
#include "ops/read_back.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};
constexpr uint32_t rounds_per_batch = 16;

struct InitPush {
    uint32_t n, has_mask;
};
static_assert(sizeof(InitPush) == 8);

struct TilePush {
    uint32_t nx, ny, nz, tiles_x, tiles_y, tiles, reach, round;
};
static_assert(sizeof(TilePush) == 32);

uint32_t ceil_div(uint64_t a, uint64_t b) {
    return static_cast<uint32_t>((a + b - 1) / b);
}

// Records batches of rounds of `kernel` (bound by `bind`) until a batch's
// last round changed nothing.
template <typename Bind>
void relax(detail::OpServices& ctx, const Context& c, ops::KernelId kernel, const Shape& shape, uint32_t reach,
           Bind bind) {
    const size_t ndim = shape.ndim();
    // 32x32 tiles for images (32x8 invocations, 4 rows each), 8x8x4 for volumes.
    const std::array<uint32_t, 3> local = ndim == 1   ? std::array<uint32_t, 3>{256, 1, 1}
                                          : ndim == 2 ? std::array<uint32_t, 3>{32, 8, 1}
                                                      : std::array<uint32_t, 3>{8, 8, 4};
    const uint32_t rows = ndim == 2 ? 4 : 1;
    TilePush push{static_cast<uint32_t>(shape.x()), static_cast<uint32_t>(shape.y()),
                  static_cast<uint32_t>(shape.z()), 0, 0, 0, reach, 0};
    std::vector<uint32_t> flags(rounds_per_batch + 1, 0);
    while (true) {
        flags.assign(rounds_per_batch + 1, 0);
        flags[0] = 1;
        Array changed = Array::from(c, Shape{flags.size()}, flags);
        for (uint32_t r = 0; r < rounds_per_batch; ++r) {
            Dispatcher d(ctx, kernel, local);
            const uint32_t tx = d.local()[0], ty = d.local()[1] * rows, tz = d.local()[2];
            push.tiles_x = ceil_div(push.nx, tx), push.tiles_y = ceil_div(push.ny, ty);
            const uint64_t tiles = uint64_t(push.tiles_x) * push.tiles_y * ceil_div(push.nz, tz);
            push.tiles = static_cast<uint32_t>(tiles);
            push.round = r;
            const uint32_t gx = static_cast<uint32_t>(std::min<uint64_t>(tiles, 65535));
            bind(d);
            d.read_write(changed).spec(rows).push(push).groups(gx, ceil_div(tiles, gx)).record();
        }
        ops::read_back(changed, flags.data(), flags.size() * sizeof(uint32_t));
        if (flags[rounds_per_batch] == 0) return;
    }
}

}  // namespace

Array watershed(const Array& image, const Array& markers, const Array& mask, int connectivity) {
    if (!image) throw InvalidArgument("watershed: the image is a null Array");
    if (!markers) throw InvalidArgument("watershed: the markers are a null Array");
    const Shape& shape = image.shape();
    const size_t ndim = shape.ndim();
    if (ndim < 1 || ndim > 3)
        throw InvalidArgument("watershed: the image is " + std::to_string(ndim) +
                              "-D; 1-, 2- and 3-D images are accepted");
    ops::check_same_shape(image, markers, "watershed", false);
    if (mask) ops::check_same_shape(image, mask, "watershed", false);
    if (connectivity < 1 || connectivity > static_cast<int>(ndim))
        throw InvalidArgument("watershed: connectivity " + std::to_string(connectivity) + " for a " +
                              std::to_string(ndim) + "-D image; 1.." + std::to_string(ndim) +
                              " are accepted");
    if (image.dtype() == DType::float64)
        throw Unsupported("watershed: float64 images are not supported; cast to float32 (which keeps "
                          "values distinct only if they were float32 values)");
    if (image.size() >= 0x80000000ull)
        throw Unsupported("watershed: the image has " + std::to_string(image.size()) +
                          " elements; at most 2^31 - 1 are supported");
    detail::OpServices& ctx = ops::services(image);
    const Context& c = image.context();
    const auto n = static_cast<uint32_t>(image.size());
    Array labels = Array::empty(c, shape, DType::int32);
    if (n == 0) return labels;
    const Array marks = markers.dtype() == DType::int32 ? markers : cast(markers, DType::int32);
    // uint8 masks go as they are (any nonzero is inside); others become
    // mask != 0 (NaN inside, as NumPy's bool). No mask: a dummy binding.
    const Array inside = !mask                          ? Array::zeros(c, Shape{4}, DType::uint8)
                         : mask.dtype() == DType::uint8 ? mask
                                                        : compare(CompareOp::not_equal, mask, 0.0);
    Array key = Array::empty(c, shape, DType::uint32);
    Array level = Array::empty(c, shape, DType::uint32);
    Array fixed = Array::empty(c, shape, DType::uint8);
    Dispatcher(ctx, ops::variant(ops::Shader::ws_init, image.dtype()), linear_local)
        .read(image)
        .read(inside)
        .read(marks)
        .write(key)
        .write(level)
        .write(labels)
        .write(fixed)
        .push(InitPush{n, mask ? 1u : 0u})
        .stride_grid(n)
        .record();
    const auto reach = static_cast<uint32_t>(connectivity);
    relax(ctx, c, ops::KernelId::ws_flood, shape, reach,
          [&](Dispatcher& d) { d.read(key).read_write(level); });
    relax(ctx, c, ops::KernelId::ws_label, shape, reach,
          [&](Dispatcher& d) { d.read(level).read(fixed).read_write(labels); });
    return labels;
}

}  // namespace kiln

// The manifest entries (kiln/manifest.hpp).
namespace kiln {
namespace {

const OpFamily watershed_family("watershed", {
    {"watershed",
     "Marker-based watershed as skimage.segmentation.watershed (int32 labels; equal to skimage on images "
     "without plateaus)",
     {{"image", ArgKind::array, "Image file (1-, 2- or 3-D; not float64)"},
      {"markers", ArgKind::array, "Marker labels file (nonzero = marker), the image's shape"},
      {"mask", ArgKind::array, "Mask file (nonzero = flooded), the image's shape", "", true},
      {"connectivity", ArgKind::integer, "Neighbours differ in at most this many coordinates (1..ndim)", "1",
       false, {}, 1, 3}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return watershed(x.array("image"), x.array("markers"), x.has("mask") ? x.array("mask") : Array(),
                          static_cast<int>(x.integer("connectivity")));
     }},
});

}  // namespace
}  // namespace kiln
