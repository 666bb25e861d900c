// Connected component labelling: a tile-based union-find in five passes,
// all recorded at once (no host round trip between them):
//   1. label_local    union-find inside each tile in shared memory
//   2. label_merge    lock-free union across tile borders (atomicMin)
//   3. label_flatten  every pixel points at its root; roots counted per
//                     block; the last workgroup scans the counts (total = N)
//   4. label_relabel  roots numbered in raster order (MODE 0)
//   5. label_relabel  every pixel takes its root's number (MODE 1)
// Unions always link the larger root under the smaller, so a component's
// root is its first pixel in raster order and numbering roots in raster
// order gives SciPy's labels. The parent array is the output array itself.
#include "kiln/label.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "host/op_rules.hpp"
#include "ops/kernel.hpp"
#include "ops/read_back.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};
// Pixels per block of the flatten/relabel passes, per invocation.
constexpr uint32_t block_per_invocation = 16;

struct LocalPush {
    uint32_t nx, ny, nz, tiles_x, tiles_y, tiles, offsets, blocks;
};
static_assert(sizeof(LocalPush) == 32);

struct MergePush {
    uint32_t nx, ny, nz, tx, ty, tz, tiles_x, tiles_y, faces, offsets, total;
};
static_assert(sizeof(MergePush) == 44);

struct BlockPush {
    uint32_t n, blocks, block;
};
static_assert(sizeof(BlockPush) == 12);

// The earlier-neighbour offsets (dx, dy, dz) the shaders list, by reach.
constexpr int neighbour_offsets[13][3] = {
    {-1, 0, 0},  {0, -1, 0}, {0, 0, -1},   {-1, -1, 0}, {1, -1, 0},  {-1, 0, -1}, {1, 0, -1},
    {0, -1, -1}, {0, 1, -1}, {-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {1, 1, -1}};

// Bit k set: offset k joins pixels (its reach is allowed and it moves only
// along the mask's axes).
uint32_t offset_mask(size_t ndim, uint32_t reach) {
    uint32_t mask = 0;
    for (uint32_t k = 0; k < 13; ++k) {
        const int* o = neighbour_offsets[k];
        const uint32_t r = uint32_t(o[0] != 0) + uint32_t(o[1] != 0) + uint32_t(o[2] != 0);
        if (r <= reach && (ndim >= 2 || o[1] == 0) && (ndim >= 3 || o[2] == 0)) mask |= 1u << k;
    }
    return mask;
}

uint32_t ceil_div(uint64_t a, uint64_t b) {
    return static_cast<uint32_t>((a + b - 1) / b);
}

// Groups for `count` workgroups of a kernel that loops over the rest.
uint32_t capped_groups(detail::OpServices& ctx, uint64_t count) {
    return static_cast<uint32_t>(std::clamp<uint64_t>(
        count, 1, std::min<uint64_t>(ctx.info().max_workgroup_count[0], 65535)));
}

}  // namespace

LabelsAsync label_async(const Array& mask, int connectivity) {
    if (!mask) throw InvalidArgument("label: the mask is a null Array");
    const Shape& shape = mask.shape();
    const auto reach = static_cast<uint32_t>(neighbour_reach(shape.ndim(), connectivity));
    // Pixel indices and the two sentinels (BG = 2^31 - 1, the HI tag bit)
    // must stay apart.
    if (mask.size() >= 0x7FFFFFFFull)
        throw Unsupported("label: the mask has " + std::to_string(mask.size()) +
                          " elements; at most 2147483646 are supported");
    detail::OpServices& ctx = ops::services(mask);
    // Passes 3-5 share blocks out among whole subgroups: a tuned size that
    // splits one is refused before anything is recorded.
    Dispatcher(ctx, ops::KernelId::label_flatten, linear_local).whole_subgroups();
    Dispatcher(ctx, ops::KernelId::label_relabel, linear_local).whole_subgroups();
    const auto n = static_cast<uint32_t>(mask.size());
    const auto nx = static_cast<uint32_t>(shape.x()), ny = static_cast<uint32_t>(shape.y()),
               nz = static_cast<uint32_t>(shape.z());
    Array out = Array::empty(mask.context(), shape, DType::int32);
    // Blocks of consecutive pixels for the raster-order numbering (passes
    // 3-5): their root counts, then a counter of finished workgroups that
    // pass 1 zeroes (no fill of its own).
    const uint32_t block = linear_local[0] * block_per_invocation;
    const uint32_t blocks = ceil_div(n, block);
    Array block_roots = Array::empty(mask.context(), Shape{uint64_t(blocks) + 1}, DType::uint32);

    // 1. Tiles: rows of 256 for 1-D, 32x32 (32x8 invocations, 4 rows each)
    // for 2-D, 8x8x4 for 3-D. A tuned workgroup size changes the tile.
    const std::array<uint32_t, 3> tile_local =
        shape.ndim() == 1   ? std::array<uint32_t, 3>{256, 1, 1}
        : shape.ndim() == 2 ? std::array<uint32_t, 3>{32, 8, 1}
                            : std::array<uint32_t, 3>{8, 8, 4};
    const uint32_t rows = shape.ndim() == 2 ? 4 : 1;
    Dispatcher local(ctx, ops::variant(ops::Shader::label_local, mask.dtype()), tile_local);
    const uint32_t tx = local.local()[0], ty = local.local()[1] * rows, tz = local.local()[2];
    const uint32_t offsets = offset_mask(shape.ndim(), reach);
    LocalPush lp{nx, ny, nz, ceil_div(nx, tx), ceil_div(ny, ty), 0, offsets, blocks};
    const uint64_t tiles = uint64_t(lp.tiles_x) * lp.tiles_y * ceil_div(nz, tz);
    lp.tiles = static_cast<uint32_t>(tiles);
    const uint32_t gx = static_cast<uint32_t>(std::min<uint64_t>(tiles, 65535));
    local.read(mask).write(out).write(block_roots).spec(rows).push(lp);
    local.groups(gx, ceil_div(tiles, gx)).record();

    // 2. Only needed when there is more than one tile: the tile faces that
    // have earlier neighbours in other tiles (see label_merge.comp).
    if (tiles > 1) {
        uint32_t faces = 0, per_tile = 0;
        const bool diagonal = reach >= 2;
        const bool face_on[5] = {nz > 1, ny > 1, nx > 1, diagonal && nz > 1 && ny > 1,
                                 diagonal && nx > 1 && (ny > 1 || nz > 1)};
        const uint32_t face_size[5] = {tx * ty, tx * tz, ty * tz, tx * tz, ty * tz};
        for (int f = 0; f < 5; ++f)
            if (face_on[f]) faces |= 1u << f, per_tile += face_size[f];
        const uint64_t total = tiles * per_tile;
        if (total >= (1ull << 32))
            throw Unsupported("label: the mask " + shape.str() +
                              " has too many tile borders for one pass");
        const MergePush mp{
            nx, ny, nz, tx, ty, tz, lp.tiles_x, lp.tiles_y, faces, offsets, uint32_t(total)};
        Dispatcher merge(ctx, ops::KernelId::label_merge, linear_local);
        merge.read_write(out).push(mp).stride_grid(total).record();
    }

    // 3-5. Numbering in raster order, block by block.
    const BlockPush bp{n, blocks, block};
    Array count = Array::empty(mask.context(), Shape{1}, DType::int32);
    Dispatcher(ctx, ops::KernelId::label_flatten, linear_local)
        .read_write(out)
        .read_write(block_roots)
        .write(count)
        .push(bp)
        .groups(capped_groups(ctx, blocks))
        .record();
    Dispatcher(ctx, ops::KernelId::label_relabel, linear_local)
        .read_write(out)
        .read(block_roots)
        .spec(0)
        .push(bp)
        .groups(capped_groups(ctx, blocks))
        .record();
    Dispatcher resolve(ctx, ops::KernelId::label_relabel, linear_local);
    resolve.read_write(out).read(block_roots).spec(1).push(bp).stride_grid(n).record();
    return {out, count};
}

Labels label(const Array& mask, int connectivity) {
    LabelsAsync pending = label_async(mask, connectivity);
    int32_t count = 0;
    ops::read_back(pending.count, &count, sizeof count);  // one submission, read once done
    return {pending.labels, count};
}

}  // namespace kiln
