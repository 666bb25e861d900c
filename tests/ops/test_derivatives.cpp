// The GPU derivative filters against scipy.ndimage and skimage (fixtures of
// tests/data/make_derivatives.py) and the CPU reference (engine/cpu/
// derivatives.cpp): 1-, 2- and 3-D, every mode, float32, float64 and
// integer input, axes, orders and skipped sigmas.
#include <cmath>
#include <string>
#include <vector>

#include "derivatives_fixture.hpp"
#include "kiln/reference/derivatives.hpp"
#include "kiln/reference/gaussian.hpp"
#include "support.hpp"

using namespace kiln;
namespace deriv = kiln::test::deriv;

namespace {

// A case of the given op with the usual arguments: sigma (1, 1.5, 2) by
// axis, orders for gaussian_filter.
deriv::Case make_case(const std::string& op, NdMode mode, double cval, int axis = 0) {
    deriv::Case c;
    c.name = op;
    c.op = op;
    c.mode = mode;
    c.cval = cval;
    c.axis = axis;
    c.sigma = {1.0, 1.5, 2.0};
    c.order = {1, 2, 1};
    if (op == "difference_of_gaussians") c.sigma = {0, 1.0, -1};
    return c;
}

void check_against_reference(DType t, const std::vector<Shape>& shapes, const std::vector<std::string>& ops) {
    Context ctx = test::context();
    for (const Shape& shape : shapes) {
        const HostArray hi = test::random(shape, t, 7);
        const Array in = Array::from_host(ctx, hi);
        for (const std::string& op : ops)
            for (NdMode mode : {NdMode::reflect, NdMode::constant, NdMode::nearest, NdMode::mirror, NdMode::wrap})
                for (int axis = 0; axis < (op == "sobel" || op == "prewitt" ? int(shape.ndim()) : 1); ++axis) {
                    const deriv::Case c = make_case(op, mode, mode == NdMode::constant ? 3.5 : 0, axis);
                    INFO(op << " " << dtype_name(t) << " " << shape.str() << " axis " << axis << " mode "
                            << int(mode));
                    const HostArray want = KILN_DERIV_RUN(cpu, c, hi);
                    test::poison_pool(ctx, shape, want.dtype);
                    const Array got = KILN_DERIV_RUN(kiln, c, in);
                    REQUIRE(got.dtype() == want.dtype);
                    test::require_close(got.to_host(), want, 0, deriv::tolerance(c, hi, want.dtype));
                }
    }
}

const std::vector<std::string> all_ops{"sobel",
                                       "prewitt",
                                       "laplace",
                                       "gaussian_laplace",
                                       "gaussian_gradient_magnitude",
                                       "difference_of_gaussians",
                                       "gaussian_filter"};

}  // namespace

TEST_CASE("GPU derivative filters match scipy.ndimage and skimage", "[ops][derivatives]") {
    Context ctx = test::context();
    const double worst = deriv::check_fixtures([&](const deriv::Case& c, const HostArray& in) {
        test::poison_pool(ctx, in.shape, DType::float32);
        return KILN_DERIV_RUN(kiln, c, Array::from_host(ctx, in)).to_host();
    });
    // Reported on each run: the margin the tolerance leaves.
    WARN("largest error " << worst << " of the tolerance");
}

TEST_CASE("GPU derivative filters match the CPU reference on images", "[ops][derivatives]") {
    // 20 x 36: rows of whole vectors; 13 x 17 not.
    check_against_reference(DType::float32, {Shape{13, 17}, Shape{20, 36}}, all_ops);
    check_against_reference(DType::float64, {Shape{13, 17}}, all_ops);
}

TEST_CASE("GPU derivative filters match the CPU reference in 1-D and 3-D", "[ops][derivatives]") {
    check_against_reference(DType::float32, {Shape{31}, Shape{5, 7, 9}}, all_ops);
}

TEST_CASE("GPU derivative filters take integer input as float32", "[ops][derivatives]") {
    Context ctx = test::context();
    const HostArray hu = test::random(Shape{11, 13}, DType::int16, 5, -300, 300);
    for (const std::string& op : all_ops) {
        INFO(op);
        const deriv::Case c = make_case(op, NdMode::reflect, 0);
        const Array got = KILN_DERIV_RUN(kiln, c, Array::from_host(ctx, hu));
        CHECK(got.dtype() == DType::float32);
        test::require_close(got.to_host(), KILN_DERIV_RUN(cpu, c, hu), 0,
                            deriv::tolerance(c, hu, DType::float32));
    }
}

TEST_CASE("GPU derivative filters check their arguments", "[ops][derivatives]") {
    Context ctx = test::context();
    const Array a = Array::from_host(ctx, test::random(Shape{5, 6}, DType::float32, 1));
    CHECK_THROWS_AS(sobel(a, 2), InvalidArgument);
    CHECK_THROWS_AS(prewitt(a, -3), InvalidArgument);
    CHECK_THROWS_AS(sobel(Array{}), InvalidArgument);
    CHECK_THROWS_AS(laplace(Array{}), InvalidArgument);
    CHECK_THROWS_AS(difference_of_gaussians(a, 2.0, 1.0), InvalidArgument);
    CHECK_THROWS_AS(difference_of_gaussians(a, -1.0), InvalidArgument);
    CHECK_THROWS_AS(gaussian_laplace(a, {0, -1, 1}), InvalidArgument);
    CHECK_THROWS_AS(gaussian_filter(a, {0, 1, 1}, NdMode::reflect, 0, 4, {0, 0, 4}), InvalidArgument);
    CHECK_THROWS_AS(gaussian_filter1d(a, 1.0, 2), InvalidArgument);
}

TEST_CASE("GPU gaussian_filter1d is gaussian_filter along one axis", "[ops][derivatives]") {
    Context ctx = test::context();
    const HostArray h = test::random(Shape{5, 7, 9}, DType::float32, 3);
    const Array a = Array::from_host(ctx, h);
    for (int axis : {0, 1, -1}) {
        INFO("axis " << axis);
        deriv::Case c = make_case("gaussian_filter", NdMode::mirror, 0);
        c.sigma = {};
        c.order = {};
        c.sigma[size_t(axis < 0 ? axis + 3 : axis)] = 1.3;
        c.order[size_t(axis < 0 ? axis + 3 : axis)] = 1;
        test::require_close(gaussian_filter1d(a, 1.3, axis, 1, NdMode::mirror).to_host(),
                            KILN_DERIV_RUN(cpu, c, h), 0, deriv::tolerance(c, h, DType::float32));
    }
}
