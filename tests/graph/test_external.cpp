#include <vulkan/vulkan.h>

#include "app_device.hpp"
#include "support.hpp"

using namespace kiln;

// An application makes its own instance and device (with validation, so a
// kiln object left behind on its device is reported), hands them to kiln,
// and keeps using them after kiln is gone.
TEST_CASE("an application's own device is adopted and left intact", "[context][external]") {
    test::with_app_device([](test::AppDevice& app) {
        {
            Context ctx(app.external());
            CHECK(ctx.device().float64 == false);  // not enabled by the application
            std::vector<int32_t> v{1, -2, 3, 40000};
            Array a = Array::from(ctx, Shape{4}, v);
            CHECK(add(a, a).to_vector<int32_t>() == std::vector<int32_t>{2, -4, 6, 80000});
            CHECK_THROWS_WITH(Array::zeros(ctx, Shape{2}, DType::float64), Catch::Contains("shaderFloat64"));
        }
        // kiln is gone; the device is the application's and still works.
        CHECK(vkDeviceWaitIdle(app.device) == VK_SUCCESS);
    });  // the device goes: validation reports any kiln object left on it
}
