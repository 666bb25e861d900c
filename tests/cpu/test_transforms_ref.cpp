// The CPU reference of the geometric transforms (engine/cpu/transforms)
// against scipy.ndimage (fixtures of tests/data/make_transforms.py).
#include <cmath>

#include "kiln/reference/transforms.hpp"
#include "transforms_fixture.hpp"

using namespace kiln;
namespace fx = kiln::test::fixture;

namespace {

struct CpuApi {
    static HostArray shift(const HostArray& a, const std::vector<double>& s, const Interp& ip) {
        return cpu::shift(a, s, ip);
    }
    static HostArray zoom(const HostArray& a, const std::vector<double>& z, const Interp& ip, bool grid) {
        return cpu::zoom(a, z, ip, grid);
    }
    static HostArray rotate(const HostArray& a, double angle, std::array<int, 2> axes, bool reshape,
                            const Interp& ip) {
        return cpu::rotate(a, angle, axes, reshape, ip);
    }
    static HostArray affine_transform(const HostArray& a, const std::vector<double>& m, const std::vector<double>& o,
                                      const std::vector<size_t>& shape, const Interp& ip) {
        return cpu::affine_transform(a, m, o, shape, ip);
    }
    static HostArray map_coordinates(const HostArray& a, const HostArray& co, const Interp& ip) {
        return cpu::map_coordinates(a, co, ip);
    }
    static HostArray spline_filter(const HostArray& a, InterpMode mode) { return cpu::spline_filter(a, mode); }
};

}  // namespace

TEST_CASE("cpu transforms match scipy.ndimage", "[transforms][cpu]") {
    for (const fx::TransformCase& c : fx::transform_cases) {
        INFO(c.name);
        const HostArray in = fx::transform_npy(std::string("in_") + c.input);
        const HostArray co = c.coords[0] ? fx::transform_npy(std::string("co_") + c.coords) : HostArray{};
        const HostArray want = fx::transform_npy(c.name);
        const HostArray got = fx::run_transform<CpuApi>(c, in, co);
        REQUIRE(got.shape == want.shape);
        REQUIRE(got.dtype == want.dtype);
        const auto tol = fx::transform_tolerance(c, false, want.dtype == DType::float64,
                                                 std::max(test::max_abs(in), std::abs(c.cval)));
        test::require_close(got, want, tol[0], tol[1]);
    }
}

TEST_CASE("cpu transforms refuse what SciPy refuses", "[transforms][cpu]") {
    const HostArray img(Shape{5, 6}, DType::float32);
    CHECK_THROWS_AS(cpu::shift(img, {1, 2, 3}), InvalidArgument);
    CHECK_THROWS_AS(cpu::shift(img, {1}, {2, InterpMode::constant, 0, true}), Unsupported);
    CHECK_THROWS_AS(cpu::shift(img, {1}, {7, InterpMode::constant, 0, true}), InvalidArgument);
    CHECK_THROWS_AS(cpu::zoom(img, {0.01}), InvalidArgument);
    CHECK_THROWS_AS(cpu::rotate(img, 10, {0, 0}), InvalidArgument);
    CHECK_THROWS_AS(cpu::rotate(img, 10, {0, 2}), InvalidArgument);
    CHECK_THROWS_AS(cpu::affine_transform(img, {1, 0, 0, 1, 0}), InvalidArgument);
    CHECK_THROWS_AS(cpu::affine_transform(img, {1, 0, 0, 0, 1, 0, 0, 1, 2}), InvalidArgument);
    CHECK_THROWS_AS(cpu::map_coordinates(img, HostArray(Shape{3, 4}, DType::float32)), InvalidArgument);
    CHECK_THROWS_AS(parse_interp_mode("edge"), InvalidArgument);
    CHECK(parse_interp_mode("grid_wrap") == InterpMode::grid_wrap);
}
