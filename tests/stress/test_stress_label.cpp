// Stress cases for the union-find labelling (label_local, label_merge,
// label_flatten, label_relabel): masks spanning many 32x32 tiles and 4096-
// pixel numbering blocks, random ones near the percolation thresholds
// (components of every size, crossing many tile borders) and the worst
// cases of a union-find, every result equal to kiln::cpu::label.
#include <string>
#include <vector>

#include "kiln/label.hpp"
#include "stress/stress_support.hpp"

using namespace kiln;
using namespace kiln::test::stress;
using test::require_label_same;

namespace {

// Site percolation thresholds: below them components stay small, above them
// one spans the image; near them component sizes follow a power law.
constexpr double square_4 = 0.5927, square_8 = 0.4073;
constexpr double cubic_6 = 0.3116, cubic_18 = 0.1372, cubic_26 = 0.0976;

struct Named {
    std::string name;
    HostArray mask;
};

// Labels every mask with each connectivity, requiring the reference.
void require_all(const Context& ctx, const std::vector<Named>& masks, std::initializer_list<int> conns) {
    for (const Named& m : masks)
        for (int conn : conns) {
            INFO(m.name << " " << m.mask.shape.str() << " connectivity " << conn);
            require_label_same(ctx, m.mask, conn);
        }
}

// The serpentine turned on its side: columns that cross every tile row.
HostArray serpentine_columns(size_t ny, size_t nx) {
    return test::from_rows(ny, nx, [ny](size_t y, size_t x) {
        return x % 2 == 0 || (x % 4 == 1 && y == ny - 1) || (x % 4 == 3 && y == 0);
    });
}

std::vector<Named> random_2d(uint64_t seed) {
    const Shape wide{scaled(257), scaled(263)}, tall{scaled(509), scaled(61)};
    std::vector<Named> out;
    for (double d : {square_8 - 0.03, square_8, square_8 + 0.03, square_4 - 0.03, square_4, square_4 + 0.03})
        out.push_back({"density " + std::to_string(d), test::random_mask(wide, DType::uint8, d, seed++)});
    out.push_back({"tall, density 0.59", test::random_mask(tall, DType::uint8, square_4, seed++)});
    return out;
}

}  // namespace

TEST_CASE("stress label: random 2-D masks near the percolation thresholds", "[stress][label]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) { require_all(ctx, random_2d(1000 + 100 * rep), {4, 8}); });
}

TEST_CASE("stress label: 2-D worst cases", "[stress][label]") {
    Context ctx = test::context();
    const size_t ny = scaled(255) | 1, nx = scaled(263) | 1;  // odd: the serpentine ends in a full row
    const Shape shape{ny, nx};
    repeat([&](uint64_t rep) {
        // A different place for the single pixel, the holes and the dots each
        // repetition.
        const size_t at = (rep * 7919) % shape.size();
        HostArray holes = full(shape);
        for (size_t i = rep % 3; i < holes.size(); i += 3 * nx + 2) holes.as<uint8_t>()[i] = 0;
        {
            INFO("one component that crosses every tile: known count 1");
            const std::vector<Named> ones{{"spiral", test::spiral(ny)},
                                          {"serpentine of rows", test::serpentine(ny, nx)},
                                          {"serpentine of columns", serpentine_columns(ny, nx)},
                                          {"comb", comb(ny, nx)},
                                          {"full but holes", holes}};
            for (const Named& m : ones) {
                INFO(m.name);
                CHECK(require_label_same(ctx, m.mask, 4) == 1);
                CHECK(require_label_same(ctx, m.mask, 8) == 1);
            }
        }
        {
            INFO("full image: one component, every label 1");
            CHECK(require_label_same(ctx, full(shape), 4) == 1);
            const Labels l = label(Array::full(ctx, shape, 1, DType::uint8), 8);
            CHECK(l.count == 1);
            CHECK(l.labels.to_vector<int32_t>() == std::vector<int32_t>(shape.size(), 1));
        }
        for (size_t i : {size_t(0), shape.size() - 1, at}) {
            INFO("one pixel at " << i);
            CHECK(require_label_same(ctx, one_pixel(shape, i), 4) == 1);
            CHECK(require_label_same(ctx, one_pixel(shape, i), 8) == 1);
        }
        {
            INFO("checkerboard and dots: many one-pixel components");
            const HostArray c = test::checkerboard(ny, nx);
            CHECK(require_label_same(ctx, c, 4) == int32_t((shape.size() + 1) / 2));
            CHECK(require_label_same(ctx, c, 8) == 1);
            const size_t step = 2 + rep % 2;
            const auto n_dots = int32_t(((ny + step - 1) / step) * ((nx + step - 1) / step));
            INFO("dots every " << step);
            CHECK(require_label_same(ctx, dots(ny, nx, step), 4) == n_dots);
            CHECK(require_label_same(ctx, dots(ny, nx, step), 8) == n_dots);
        }
    });
}

TEST_CASE("stress label: tiny tiles, so nearly every union crosses a tile border", "[stress][label]") {
    Context ctx = test::context();
    // 4x8 tiles (4x2 invocations, 4 rows each) in 2-D, 4x2x2 in 3-D: many
    // times the workgroups of the default tiles.
    ctx.set_workgroup_size("label_local_uint8", {4, 2, 2});
    repeat([&](uint64_t rep) {
        const Shape plane{scaled(127), scaled(131)}, volume{9, scaled(21), scaled(23)};
        const uint64_t seed = 2000 + 100 * rep;
        require_all(ctx,
                    {{"random", test::random_mask(plane, DType::uint8, square_4, seed)},
                     {"spiral", test::spiral(scaled(127) | 1)},
                     {"comb", comb(plane[0], plane[1])}},
                    {4, 8});
        require_all(ctx, {{"random", test::random_mask(volume, DType::uint8, cubic_6, seed + 1)}}, {6});
        require_all(ctx, {{"random", test::random_mask(volume, DType::uint8, cubic_26, seed + 2)}}, {26});
    });
    ctx.set_workgroup_size("label_local_uint8", {0, 0, 0});
}

TEST_CASE("stress label: random 3-D masks near the percolation thresholds", "[stress][label]") {
    Context ctx = test::context();
    repeat([&](uint64_t rep) {
        const Shape shape{17, scaled(45), scaled(47)};
        const uint64_t seed = 3000 + 100 * rep;
        for (auto [conn, d] : {std::pair{6, cubic_6}, {18, cubic_18}, {26, cubic_26}}) {
            require_all(ctx,
                        {{"below", test::random_mask(shape, DType::uint8, d * 0.9, seed + conn)},
                         {"at", test::random_mask(shape, DType::uint8, d, seed + conn + 1)},
                         {"above", test::random_mask(shape, DType::uint8, d * 1.1, seed + conn + 2)}},
                        {conn});
        }
    });
}

TEST_CASE("stress label: 3-D worst cases", "[stress][label]") {
    Context ctx = test::context();
    const size_t nz = 17, ny = scaled(45) | 1, nx = scaled(47);
    const Shape shape{nz, ny, nx};
    repeat([&](uint64_t rep) {
        const HostArray snake = serpentine_3d(nz, ny, nx), board = checkerboard_3d(nz, ny, nx);
        for (int conn : {6, 18, 26}) {
            INFO("connectivity " << conn);
            CHECK(require_label_same(ctx, snake, conn) == 1);
            CHECK(require_label_same(ctx, board, conn) == (conn == 6 ? int32_t((shape.size() + 1) / 2) : 1));
            CHECK(require_label_same(ctx, full(shape), conn) == 1);
            CHECK(require_label_same(ctx, one_pixel(shape, (rep * 104729) % shape.size()), conn) == 1);
        }
    });
}
