// GPU watershed against scikit-image's fixtures (images without plateaus,
// where kiln's rule is skimage's) and the CPU reference.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

#include "distance_fixture.hpp"
#include "kiln/reference/watershed.hpp"
#include "kiln/watershed.hpp"
#include "support.hpp"

using namespace kiln;
using test::fixture::WatershedCase;

TEST_CASE("watershed equals skimage.segmentation.watershed on plateau-free fixtures", "[ops][watershed]") {
    Context ctx = test::context();
    for (const WatershedCase& c : test::fixture::watershed_cases) {
        INFO(c.name);
        const HostArray markers = test::to_host(c.markers);
        const bool masked = !c.mask.values.empty();
        for (DType t : {DType::float32, DType::int32, DType::uint32}) {
            INFO(dtype_name(t));
            test::poison_pool(ctx, markers.shape, DType::int32);
            const Array image = Array::from_host(ctx, test::to_host(c.image, t));
            const Array mask = masked ? Array::from_host(ctx, test::to_host(c.mask)) : Array();
            const Array got = watershed(image, Array::from_host(ctx, markers), mask, c.connectivity);
            test::require_close(got.to_host(), test::to_host(c.expected), 0, 0);
            CHECK(got.dtype() == DType::int32);
        }
    }
}

TEST_CASE("watershed matches the CPU reference on larger images, plateaus included", "[ops][watershed]") {
    Context ctx = test::context();
    struct Case {
        Shape shape;
        int connectivity;
        bool plateaus;
    };
    // Several tiles each way (32x32 for images, 8x8x4 for volumes).
    const Case cases[] = {{Shape{700}, 1, false},       {Shape{67, 101}, 1, false}, {Shape{67, 101}, 2, true},
                          {Shape{101, 67}, 2, false},   {Shape{9, 21, 27}, 1, true},
                          {Shape{9, 21, 27}, 3, false}, {Shape{11, 19, 23}, 2, true}};
    for (const Case& c : cases) {
        INFO(c.shape.str() << " connectivity " << c.connectivity << (c.plateaus ? " plateaus" : ""));
        const size_t n = c.shape.size();
        std::mt19937 rng(static_cast<uint32_t>(n + c.connectivity));
        std::vector<float> values(n);
        std::iota(values.begin(), values.end(), 0.0f);
        std::shuffle(values.begin(), values.end(), rng);
        // Plateaus: 16 levels only, so equal neighbours are common.
        if (c.plateaus)
            for (float& v : values) v = std::floor(v * 16 / float(n));
        std::vector<int32_t> marks(n, 0);
        for (int k = 0; k < 40; ++k) marks[rng() % n] = static_cast<int32_t>(rng() % 23) - 5;
        std::vector<uint8_t> inside(n);
        for (auto& v : inside) v = rng() % 5 != 0;
        const HostArray image = HostArray::from(c.shape, values), markers = HostArray::from(c.shape, marks),
                        mask = HostArray::from(c.shape, inside);
        test::poison_pool(ctx, c.shape, DType::int32);
        const Array got = watershed(Array::from_host(ctx, image), Array::from_host(ctx, markers),
                                    Array::from_host(ctx, mask), c.connectivity);
        test::require_close(got.to_host(), cpu::watershed(image, markers, mask, c.connectivity), 0, 0);
        const Array whole =
            watershed(Array::from_host(ctx, image), Array::from_host(ctx, markers), Array(), c.connectivity);
        test::require_close(whole.to_host(), cpu::watershed(image, markers, HostArray(), c.connectivity), 0, 0);
    }
}

TEST_CASE("watershed takes masks and markers of any dtype, as skimage converts them", "[ops][watershed]") {
    Context ctx = test::context();
    const WatershedCase& c = test::fixture::watershed_cases[2];  // a masked image
    REQUIRE(!c.mask.values.empty());
    const Array image = Array::from_host(ctx, test::to_host(c.image, DType::float32));
    const HostArray want = test::to_host(c.expected);
    for (DType t : {DType::float32, DType::float64, DType::int16}) {
        INFO(dtype_name(t));
        // Mask values other than 1 (and NaN for floats) are inside too.
        HostArray mask = test::to_host(c.mask, t);
        visit_dtype(t, [&](auto z) {
            using T = decltype(z);
            auto v = mask.as<T>();
            for (size_t i = 0; i < v.size(); ++i)
                if (v[i] != T(0)) v[i] = i % 3 == 0 && std::is_floating_point_v<T> ? T(NAN) : T(-3);
        });
        const Array markers = Array::from_host(ctx, test::to_host(c.markers, t));
        test::require_close(watershed(image, markers, Array::from_host(ctx, mask), c.connectivity).to_host(), want,
                            0, 0);
    }
}

TEST_CASE("watershed refuses what it cannot do", "[ops][watershed]") {
    Context ctx = test::context();
    const Array img = Array::zeros(ctx, Shape{4, 5});
    const Array marks = Array::zeros(ctx, Shape{4, 5}, DType::int32);
    CHECK_THROWS_AS(watershed(img, Array::zeros(ctx, Shape{5, 4}, DType::int32)), InvalidArgument);
    CHECK_THROWS_AS(watershed(img, marks, Array::zeros(ctx, Shape{20}, DType::uint8)), InvalidArgument);
    CHECK_THROWS_AS(watershed(img, marks, Array(), 3), InvalidArgument);
    CHECK_THROWS_AS(watershed(img, marks, Array(), 0), InvalidArgument);
    CHECK_THROWS_AS(watershed(Array::zeros(ctx, Shape{4, 5}, DType::float64), marks), Unsupported);
    CHECK_THROWS_AS(watershed(Array(), marks), InvalidArgument);
}
