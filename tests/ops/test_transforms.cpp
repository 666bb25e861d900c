// The GPU transforms against scipy.ndimage (fixtures of
// tests/data/make_transforms.py) and the CPU reference (engine/cpu/transforms):
// every mode and order, 1-, 2- and 3-D, integer and float64 input,
// coordinates of both float dtypes, a volume rotated plane by plane.
#include <cmath>
#include <set>
#include <string>

#include "kiln/graph.hpp"
#include "kiln/manifest.hpp"
#include "kiln/reference/transforms.hpp"
#include "kiln/transforms.hpp"
#include "support.hpp"
#include "transforms_fixture.hpp"

using namespace kiln;
namespace fx = kiln::test::fixture;

namespace {

struct GpuApi {
    static Array shift(const Array& a, const std::vector<double>& s, const Interp& ip) { return kiln::shift(a, s, ip); }
    static Array zoom(const Array& a, const std::vector<double>& z, const Interp& ip, bool grid) {
        return kiln::zoom(a, z, ip, grid);
    }
    static Array rotate(const Array& a, double angle, std::array<int, 2> axes, bool reshape, const Interp& ip) {
        return kiln::rotate(a, angle, axes, reshape, ip);
    }
    static Array affine_transform(const Array& a, const std::vector<double>& m, const std::vector<double>& o,
                                  const std::vector<size_t>& shape, const Interp& ip) {
        return kiln::affine_transform(a, m, o, shape, ip);
    }
    static Array map_coordinates(const Array& a, const Array& co, const Interp& ip) {
        return kiln::map_coordinates(a, co, ip);
    }
    static Array spline_filter(const Array& a, InterpMode mode) { return kiln::spline_filter(a, mode); }
};

// Leaves garbage where the next result's memory comes from.
void poison(Context& ctx, const HostArray& like) {
    test::poison_pool(ctx, like.shape, like.dtype);
}

}  // namespace

TEST_CASE("gpu transforms match scipy.ndimage", "[transforms]") {
    Context ctx = test::context();
    for (const fx::TransformCase& c : fx::transform_cases) {
        INFO(c.name);
        const HostArray in = fx::transform_npy(std::string("in_") + c.input);
        const Array co = c.coords[0] ? Array::from_host(ctx, fx::transform_npy(std::string("co_") + c.coords)) : Array{};
        const HostArray want = fx::transform_npy(c.name);
        poison(ctx, want);
        const HostArray got = fx::run_transform<GpuApi>(c, Array::from_host(ctx, in), co).to_host();
        REQUIRE(got.shape == want.shape);
        REQUIRE(got.dtype == want.dtype);
        const auto tol = fx::transform_tolerance(c, true, want.dtype == DType::float64,
                                                 std::max(test::max_abs(in), std::abs(c.cval)));
        test::require_close(got, want, tol[0], tol[1]);
    }
}

TEST_CASE("gpu transforms match the CPU reference on volumes", "[transforms]") {
    Context ctx = test::context();
    const HostArray vol = test::random(Shape{9, 11, 7}, DType::float32, 5, -10, 10);
    const HostArray vi = test::random(Shape{9, 11, 7}, DType::int16, 6, -300, 300);
    const Array v = Array::from_host(ctx, vol), w = Array::from_host(ctx, vi);
    // Orders 1 and 3 only: tolerances as transform_tolerance's for float32.
    auto check = [&](const HostArray& got, const HostArray& want, double scale, bool filtered) {
        test::require_close(got, want, 2e-6, (filtered ? 3e-6 : 1e-6) * scale);
    };
    for (InterpMode mode : {InterpMode::nearest, InterpMode::grid_constant, InterpMode::wrap, InterpMode::reflect}) {
        INFO("mode " << int(mode));
        const Interp cubic{3, mode, 1.5, true};
        poison(ctx, vol);
        check(rotate(v, 33, {1, 0}, true, cubic).to_host(), cpu::rotate(vol, 33, {1, 0}, true, cubic), 10, true);
        check(zoom(v, {1.4, 0.7, 1.9}, cubic).to_host(), cpu::zoom(vol, {1.4, 0.7, 1.9}, cubic), 10, true);
        const Interp linear{1, mode, -2, true};
        check(shift(w, {0.3, -4.6, 8.1}, linear).to_host(), cpu::shift(vi, {0.3, -4.6, 8.1}, linear), 300, false);
        check(zoom(w, {0.8}, cubic, true).to_host(), cpu::zoom(vi, {0.8}, cubic, true), 300, true);
    }
    // Coordinates of float64 and of an integer dtype (read as float64).
    const HostArray c64 = test::random(Shape{3, 50}, DType::float64, 7, -3, 13);
    const HostArray ci = test::random(Shape{3, 50}, DType::int32, 8, -3, 13);
    const Interp ip{3, InterpMode::mirror, 0, true};
    check(map_coordinates(v, Array::from_host(ctx, c64), ip).to_host(), cpu::map_coordinates(vol, c64, ip), 10, true);
    check(map_coordinates(v, Array::from_host(ctx, ci), ip).to_host(), cpu::map_coordinates(vol, ci, ip), 10, true);
}

namespace {
// The kernels the profile saw since the last call.
std::set<std::string> kernels_run(Context& ctx) {
    ctx.sync();
    std::set<std::string> names;
    for (const auto& st : ctx.profile().stats()) names.insert(st.name);
    ctx.profile().clear();
    return names;
}

// 2 x n float32 coordinates into an h x w image: inside, on and beyond every
// edge and corner, exact integers and halves, and NaN if asked (cval on the
// GPU in every mode; the CPU reference's is cval but for grid-constant and
// nearest, which skip its range check: SciPy's cast of NaN is undefined).
HostArray edge_coordinates(size_t n, size_t h, size_t w, uint64_t seed, bool nan = true) {
    HostArray c = test::random(Shape{2, n}, DType::float32, seed, -3, double(std::max(h, w)) + 2);
    float* v = c.as<float>().data();
    const float ends[] = {-1.5f, -1.0f, -0.5f, -0.25f, 0.0f, 0.5f, 1.0f};
    for (size_t i = 0; i < n / 2; ++i) {
        // Half the points near an edge of one axis or both.
        const float e = ends[i % 7];
        const float hy = float(h - 1), wx = float(w - 1);
        if (i % 3 != 1) v[i] = (i & 8) ? hy - e : e;
        if (i % 3 != 0) v[n + i] = (i & 16) ? wx - e : e;
    }
    if (nan) {
        v[n - 1] = std::nanf("");
        v[2 * n - 2] = std::nanf("");
    }
    return c;
}
}  // namespace

TEST_CASE("map_coordinates of a 2-D float32 image at order 1 gathers from an image as the buffer path does", "[transforms]") {
    // Points of at least an eighth of the image's elements take
    // interp_texture (the image copied into a sampled image, interior
    // points' four taps in one gather); fewer take interp_map. Both against
    // the CPU reference in every mode, on a larger image first so that the
    // kept image is bigger than the input it then holds.
    Context ctx = test::context();
    const HostArray big = test::random(Shape{64, 70}, DType::float32, 30, -10, 10);
    const HostArray img = test::random(Shape{37, 53}, DType::float32, 31, -10, 10);
    const Array a = Array::from_host(ctx, img);
    {
        const HostArray cb = edge_coordinates(4000, 64, 70, 34);
        const Interp ip{1, InterpMode::reflect, 0, true};
        kernels_run(ctx);
        const HostArray got = map_coordinates(Array::from_host(ctx, big), Array::from_host(ctx, cb), ip).to_host();
        CHECK(kernels_run(ctx).count("interp_texture_float32") == 1);
        test::require_close(got, cpu::map_coordinates(big, cb, ip), 2e-6, 1e-5);
    }
    for (InterpMode mode : {InterpMode::constant, InterpMode::grid_constant, InterpMode::nearest, InterpMode::reflect,
                            InterpMode::grid_mirror, InterpMode::mirror, InterpMode::wrap, InterpMode::grid_wrap}) {
        INFO("mode " << int(mode));
        const Interp ip{1, mode, -2.5, true};
        const bool nan = mode != InterpMode::grid_constant && mode != InterpMode::nearest;
        const HostArray many = edge_coordinates(3000, 37, 53, 32, nan), few = edge_coordinates(200, 37, 53, 33, nan);
        const Array cm = Array::from_host(ctx, many), cf = Array::from_host(ctx, few);
        poison(ctx, many);
        const HostArray got = map_coordinates(a, cm, ip).to_host();
        const auto names = kernels_run(ctx);
        CHECK(names.count("interp_texture_float32") == 1);
        CHECK(names.count("image_fill") == 1);
        CHECK(names.count("interp_map_float32") == 0);
        test::require_close(got, cpu::map_coordinates(img, many, ip), 2e-6, 1e-5);
        poison(ctx, few);
        const HostArray got_few = map_coordinates(a, cf, ip).to_host();
        const auto few_names = kernels_run(ctx);
        CHECK(few_names.count("interp_map_float32") == 1);
        CHECK(few_names.count("interp_texture_float32") == 0);
        test::require_close(got_few, cpu::map_coordinates(img, few, ip), 2e-6, 1e-5);
    }
    SECTION("in a graph, launched again after a larger image has replaced the kept one") {
        const Interp ip{1, InterpMode::mirror, 0, true};
        const HostArray many = edge_coordinates(3000, 37, 53, 35);
        const Array cm = Array::from_host(ctx, many);
        Graph g(ctx);
        Array out;
        {
            auto cap = g.capture();
            out = map_coordinates(a, cm, ip);
        }
        g.run();
        const HostArray want = cpu::map_coordinates(img, many, ip);
        test::require_close(out.to_host(), want, 2e-6, 1e-5);
        const HostArray huge = test::random(Shape{90, 20}, DType::float32, 36, -10, 10);
        const HostArray ch = edge_coordinates(1000, 90, 20, 37);
        test::require_close(map_coordinates(Array::from_host(ctx, huge), Array::from_host(ctx, ch), ip).to_host(),
                            cpu::map_coordinates(huge, ch, ip), 2e-6, 1e-5);
        g.run();
        test::require_close(out.to_host(), want, 2e-6, 1e-5);
    }
}

TEST_CASE("gpu transforms of more rows than one grid dimension takes (65535)", "[transforms]") {
    // Mappings take the rows of the last axis from workgroups y, then z:
    // 70000 rows span two z slices, the second mostly spare.
    Context ctx = test::context();
    const HostArray vol = test::random(Shape{7, 100, 2}, DType::float32, 11, -10, 10);
    const HostArray img = test::random(Shape{70000, 3}, DType::float32, 12, -10, 10);
    const Interp linear{1, InterpMode::reflect, 0, true};
    const HostArray want = cpu::zoom(vol, {10, 10, 1}, linear);
    const Array in = Array::from_host(ctx, vol);
    // A sentinel just past where the result goes: the spare rows must not
    // write there (lavapipe drops writes beyond a binding; a GPU need not).
    Array slot = Array::empty(ctx, want.shape, DType::float32);
    const Array sentinel = Array::full(ctx, Shape{1 << 16}, 7.0f);
    slot = Array{};
    test::require_close(zoom(in, {10, 10, 1}, linear).to_host(), want, 2e-6, 1e-5);
    const HostArray s = sentinel.to_host();
    for (float v : s.as<float>()) REQUIRE(v == 7.0f);
    poison(ctx, img);
    test::require_close(shift(Array::from_host(ctx, img), {-2.5, 0.25}, linear).to_host(),
                        cpu::shift(img, {-2.5, 0.25}, linear), 2e-6, 1e-5);
}

TEST_CASE("gpu transforms refuse bad arguments", "[transforms]") {
    Context ctx = test::context();
    const Array img = Array::zeros(ctx, Shape{5, 6});
    CHECK_THROWS_AS(shift(Array{}, {1}), InvalidArgument);
    CHECK_THROWS_AS(shift(img, {1, 2, 3}), InvalidArgument);
    CHECK_THROWS_AS(zoom(img, {1}, {4, InterpMode::constant, 0, true}), Unsupported);
    CHECK_THROWS_AS(rotate(Array::zeros(ctx, Shape{5}), 10), InvalidArgument);
    CHECK_THROWS_AS(affine_transform(img, {1, 2, 3}), InvalidArgument);
    CHECK_THROWS_AS(map_coordinates(img, Array{}), InvalidArgument);
    CHECK_THROWS_AS(map_coordinates(img, Array::zeros(ctx, Shape{3, 4})), InvalidArgument);
}

TEST_CASE("transforms run from the manifest as from their functions", "[transforms]") {
    Context ctx = test::context();
    const HostArray h = test::random(Shape{9, 11}, DType::float32, 9, -5, 5);
    const Array img = Array::from_host(ctx, h);
    const Interp ip{1, InterpMode::grid_wrap, 0, true};
    auto args = [&] {
        OpArgs a(ctx);
        a.set("input", img).set("order", int64_t(1)).set("mode", std::string("grid-wrap"));
        return a;
    };
    auto same = [](const OpResult& r, const Array& want) {
        test::require_close(std::get<Array>(r).to_host(), want.to_host(), 0, 0);
    };
    same(invoke("rotate", args().set("angle", 20.0).set("axes", std::vector<int64_t>{0, 1}).set("reshape", int64_t(0))),
         rotate(img, 20, {0, 1}, false, ip));
    same(invoke("affine_transform", args()
                                        .set("matrix", std::vector<double>{1.1, 0.2, -0.1, 0.9})
                                        .set("offset", std::vector<double>{1.5})
                                        .set("output_shape", std::vector<int64_t>{7, 13})),
         affine_transform(img, {1.1, 0.2, -0.1, 0.9}, {1.5}, {7, 13}, ip));
    same(invoke("zoom", args().set("zoom", std::vector<double>{1.5, 0.5}).set("grid_mode", int64_t(1))),
         zoom(img, {1.5, 0.5}, ip, true));
    CHECK_THROWS_AS(invoke("rotate", args().set("angle", 20.0).set("axes", std::vector<int64_t>{0})), InvalidArgument);
}
