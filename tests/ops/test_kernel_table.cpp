// The built-in kernels as generated objects: typed ids from the shader build,
// the table reflected from their SPIR-V at build time, and the check that
// an op's push-constant struct agrees with its shader's block.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "ops/kernel.hpp"
#include "support.hpp"

using namespace kiln;
using ops::KernelId;
using ops::Shader;

TEST_CASE("kernel ids, variants and the reflected table agree with the shaders", "[kernel]") {
    // Ids follow the registry: each id's table name is a built-in kernel's name.
    for (uint16_t i = 0; i < shaders::kernel_count; ++i) {
        const shaders::KernelInfo& k = shaders::info(static_cast<KernelId>(i));
        INFO(k.name);
        CHECK(ops::is_builtin_kernel(k.name));
        CHECK(!shaders::spirv(static_cast<KernelId>(i)).empty());
        CHECK(k.bindings <= 64);
    }
    CHECK(std::string(shaders::info(KernelId::binary_float32).name) == "binary_float32");
    CHECK(ops::variant(Shader::binary, DType::int16) == KernelId::binary_int16);
    CHECK(ops::variant(Shader::cast, DType::uint8, DType::float64) == KernelId::cast_uint8_float64);
    CHECK(ops::variant(Shader::reduce_sum, DType::int32, DType::float32) == KernelId::reduce_sum_int32_float32);
    CHECK(shaders::only(Shader::label_merge) == KernelId::label_merge);
    // What the shaders declare, read back from the SPIR-V: fill_* writes its
    // one binding and pushes n, pad and a 64-bit value (shaders/fill.comp).
    CHECK(shaders::info(KernelId::fill_float32).push_size == 16);
    CHECK(shaders::info(KernelId::fill_float32).bindings == 1);
    CHECK(shaders::info(KernelId::fill_float32).writable == 1);
    // Variants a shader does not have are refused by name.
    CHECK_THROWS_WITH(ops::variant(Shader::conv_2d, DType::int8),
                      Catch::Contains("no built-in kernel conv_2d for int8"));
    CHECK_THROWS_WITH(shaders::only(Shader::binary), Catch::Contains("no built-in kernel binary"));
}

TEST_CASE("a push-constant struct that disagrees with its shader's block is refused", "[kernel]") {
    Context ctx = test::context();
    const uint32_t block = shaders::info(KernelId::fill_float32).push_size;
    REQUIRE(block % 4 == 0);
    REQUIRE(block >= 8);
    // The right size passes (as every op's test shows); 4 bytes less or more fail.
    struct Short {
        uint32_t words[7];
    };
    static_assert(sizeof(Short) == 28);
    if (block != sizeof(Short)) {
        ops::Dispatcher d(ops::services(ctx), KernelId::fill_float32, {64, 1, 1});
        CHECK_THROWS_WITH(d.push(Short{}), Catch::Contains("fill_float32") && Catch::Contains("28-byte C++ struct") &&
                                               Catch::Contains(std::to_string(block) + " bytes"));
    }
    struct Long {
        uint32_t words[16];
    };
    ops::Dispatcher d(ops::services(ctx), KernelId::fill_float32, {64, 1, 1});
    CHECK_THROWS_WITH(d.push(Long{}), Catch::Contains("the op and its shader disagree"));
}
