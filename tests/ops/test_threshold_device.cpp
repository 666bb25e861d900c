// threshold() with its level taken from a float64 array on the device,
// against cpu::threshold with the level computed on the host, and the
// astronomy lesson's 5-sigma mask from kappa_sigma_clip_async's std.
#include <cmath>
#include <limits>

#include "kiln/elementwise.hpp"
#include "kiln/reference/elementwise.hpp"
#include "kiln/sky.hpp"
#include "kiln/statistics.hpp"
#include "support.hpp"

using namespace kiln;

TEST_CASE("threshold against a device scalar equals the host threshold for every dtype", "[ops][threshold]") {
    Context ctx = test::context();
    const std::vector<double> scalars{0.5, -7.25, 1.0 / 3.0, std::numeric_limits<double>::quiet_NaN()};
    Array s = Array::from(ctx, Shape{4}, scalars);
    for (DType t : all_dtypes)
        for (Shape shape : {Shape{13}, Shape{127, 129}}) {
            INFO(dtype_name(t) << " " << shape.str());
            HostArray h = test::random(shape, t, 11, -100, 100);
            if (t == DType::float32) h.as<float>()[3] = std::nanf("");
            Array a = Array::from_host(ctx, h);
            for (size_t index = 0; index < scalars.size(); ++index)
                for (double factor : {3.0, -1.0, 40.0}) {
                    INFO("index " << index << " factor " << factor);
                    const HostArray got = threshold(a, s, index, factor).to_host();
                    REQUIRE(got.dtype == DType::uint8);
                    test::require_close(got, cpu::threshold(h, factor * scalars[index]));
                }
        }
}

TEST_CASE("the 5-sigma mask from the clipped std on the device equals the synchronous one", "[ops][threshold][clip]") {
    Context ctx = test::context();
    kiln::SkyParams p;
    p.size = 128;
    p.n_compact = 20;
    p.n_shells = 1;
    const HostArray sky = kiln::synthetic_sky(p);
    Array image = Array::from_host(ctx, sky);
    const ClipResultAsync clip = kappa_sigma_clip_async(image, 3.0);
    Array mask = threshold(image, clip.stats, 1, 5.0);
    const HostArray got = mask.to_host();
    const ClipResult c = clip.get();
    test::require_close(got, threshold(image, 5 * c.std).to_host());
    CHECK(c.std > 0);
}

TEST_CASE("threshold against a device scalar refuses bad arguments", "[ops][threshold]") {
    Context ctx = test::context();
    Array a = Array::from(ctx, Shape{4}, std::vector<float>{1, 2, 3, 4});
    Array f32 = Array::from(ctx, Shape{2}, std::vector<float>{1, 2});
    Array f64 = Array::from(ctx, Shape{2}, std::vector<double>{1, 2});
    CHECK_THROWS_WITH(threshold(a, f32, 0, 1.0), Catch::Contains("float64"));
    CHECK_THROWS_WITH(threshold(a, f64, 2, 1.0), Catch::Contains("index 2"));
    CHECK_THROWS_AS(threshold(Array(), f64, 0, 1.0), InvalidArgument);
    CHECK_THROWS_AS(threshold(a, Array(), 0, 1.0), InvalidArgument);
    Context other = test::context();
    Array elsewhere = Array::from(other, Shape{2}, std::vector<double>{1, 2});
    CHECK_THROWS_AS(threshold(a, elsewhere, 0, 1.0), InvalidArgument);
    CHECK(threshold(a, f64, 1, 1.5).to_vector<uint8_t>() == std::vector<uint8_t>{0, 0, 0, 1});
}
