#include "support.hpp"

using namespace kiln;

TEST_CASE("devices are enumerated with a capability summary", "[context]") {
    auto devices = Context::devices();
    REQUIRE(!devices.empty());
    for (auto& d : devices) {
        CHECK(!d.name.empty());
        CHECK(d.max_storage_buffer_range > 0);
        CHECK(d.summary().find(d.name) != std::string::npos);
        CHECK(d.summary().find("maxStorageBufferRange") != std::string::npos);
    }
}

TEST_CASE("several contexts coexist and keep their arrays apart", "[context]") {
    Context a = test::context();
    Context b = test::context();
    CHECK_FALSE(a == b);
    std::vector<float> v{1, 2, 3};
    Array x = Array::from(a, Shape{3}, v);
    Array y = Array::from(b, Shape{3}, v);
    CHECK(x.to_vector<float>() == v);
    CHECK(y.to_vector<float>() == v);
    CHECK_THROWS_AS(add(x, y), InvalidArgument);
    CHECK_THROWS_WITH(add(x, y), Catch::Contains("different contexts"));
    // Both still work after the error.
    CHECK(add(x, x).to_vector<float>() == std::vector<float>{2, 4, 6});
}

TEST_CASE("device choice by name substring and index, with clear errors", "[context]") {
    auto devices = Context::devices();
    std::string part = devices[0].name.substr(0, 4);
    ContextOptions by_name;
    by_name.device_name = part;
    CHECK(test::context(by_name).device().name.find(part) != std::string::npos);
    ContextOptions bad_index;
    bad_index.device_index = 99;
    CHECK_THROWS_WITH(test::context(bad_index), Catch::Contains("device 99") && Catch::Contains("there are"));
    ContextOptions bad_name;
    bad_name.device_name = "no-such-gpu-xyz";
    CHECK_THROWS_WITH(test::context(bad_name), Catch::Contains("matches no device"));
}

TEST_CASE("workgroup sizes can be set per kernel and are checked", "[context]") {
    Context ctx = test::context();
    ctx.set_workgroup_size("binary_float32", {64, 1, 1});
    REQUIRE(ctx.workgroup_size("binary_float32"));
    CHECK((*ctx.workgroup_size("binary_float32"))[0] == 64);
    std::vector<float> v(1031);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
    Array a = Array::from(ctx, Shape{1031}, v);
    auto r = add(a, a).to_vector<float>();
    for (size_t i = 0; i < v.size(); ++i) REQUIRE(r[i] == 2 * v[i]);
    CHECK_THROWS_AS(ctx.set_workgroup_size("binary_float32", {100000, 1, 1}), InvalidArgument);
    ctx.set_workgroup_size("binary_float32", {0, 0, 0});
    CHECK_FALSE(ctx.workgroup_size("binary_float32"));
}

TEST_CASE("KILN_DEVICE picks the device by index or name", "[context]") {
    auto devices = Context::devices();
    setenv("KILN_DEVICE", devices[0].name.substr(0, 3).c_str(), 1);
    CHECK(test::context().device().index == devices[0].index);
    setenv("KILN_DEVICE", "0", 1);
    CHECK(test::context().device().index == 0);
    setenv("KILN_DEVICE", "42", 1);
    CHECK_THROWS_WITH(test::context(), Catch::Contains("KILN_DEVICE"));
    unsetenv("KILN_DEVICE");
}

TEST_CASE("a missing Vulkan driver is a clear error", "[context]") {
    // Point the loader at a driver manifest that does not exist.
    const char* old = std::getenv("VK_DRIVER_FILES");
    std::string saved = old ? old : "";
    setenv("VK_DRIVER_FILES", "/nonexistent/kiln_no_such_icd.json", 1);
    setenv("VK_ICD_FILENAMES", "/nonexistent/kiln_no_such_icd.json", 1);
    ContextOptions o;
    o.validation = false;
    CHECK_THROWS_WITH(Context(o), Catch::Contains("no Vulkan d"));
    if (old) setenv("VK_DRIVER_FILES", saved.c_str(), 1);
    else unsetenv("VK_DRIVER_FILES");
    unsetenv("VK_ICD_FILENAMES");
    CHECK(test::context().device().name.size() > 0);
}

TEST_CASE("a trace that cannot be written says why and leaves nothing behind", "[context][profile]") {
    kiln::Context ctx = kiln::test::context();
    kiln::Array a = kiln::Array::full(ctx, kiln::Shape{64}, 1.0);
    ctx.sync();
    kiln::test::TempDir dir;
    const std::string missing = dir.file("no/such/dir/t.json");
    CHECK_THROWS_WITH(ctx.profile().write_chrome_trace(missing),
                      Catch::Contains(missing) && Catch::Contains("No such file or directory"));
    CHECK(dir.entries() == 0);
    ctx.profile().write_chrome_trace(dir.file("t.json"));
    CHECK(dir.entries() == 1);
}
