// Run-time GLSL compilation and SPIR-V reflection (no GPU needed): the
// interface read back from kernels whose bindings, offsets and sizes are known
// from the GLSL rules, the errors for bad input, and the disk cache.
#include <catch2/catch.hpp>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu_support.hpp"
#include "vk/glsl_compiler.hpp"

using kiln::vk::compile_glsl;
using kiln::vk::compile_glsl_cached;
using kiln::vk::CompiledShader;
using kiln::vk::ScalarType;

namespace {

const char* const vector_add = R"(#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer InA { float a[]; };
layout(set = 0, binding = 1) readonly buffer InB { float b[]; };
layout(set = 0, binding = 2) writeonly buffer Out { float c[]; };
layout(push_constant) uniform Params { uint n; float alpha; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) c[i] = p.alpha * a[i] + b[i];
}
)";

// The lesson's histogram: per-workgroup bins in shared memory, merged with atomics.
const char* const shared_histogram = R"(#version 450
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer Data { int data[]; };
layout(binding = 1) buffer Hist { uint hist[]; };
layout(push_constant) uniform Params { uint n; } p;
shared uint local_hist[256];
void main() {
    uint t = gl_LocalInvocationID.x;
    local_hist[t] = 0;
    barrier();
    for (uint i = gl_GlobalInvocationID.x; i < p.n; i += gl_NumWorkGroups.x * 256)
        atomicAdd(local_hist[uint(data[i]) & 255u], 1u);
    barrier();
    atomicAdd(hist[t], local_hist[t]);
}
)";

// A fresh directory under the system temp directory, removed afterwards.
using kiln::test::TempDir;

void write_bytes(const std::filesystem::path& p, const void* data, size_t n) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

std::vector<uint32_t> read_words(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<uint32_t> words(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), words.size() * 4);
    return words;
}

void check_vector_add(const CompiledShader& s) {
    CHECK(s.entry == "main");
    REQUIRE(s.spirv.size() > 5);
    CHECK(s.spirv[0] == 0x07230203u);
    REQUIRE(s.buffers.size() == 3);
    for (uint32_t i = 0; i < 3; ++i) {
        CHECK(s.buffers[i].set == 0);
        CHECK(s.buffers[i].binding == i);
    }
    CHECK(s.buffers[0].name == "InA");
    CHECK(s.buffers[0].readonly);
    CHECK_FALSE(s.buffers[0].writeonly);
    CHECK(s.buffers[1].readonly);
    CHECK_FALSE(s.buffers[2].readonly);
    CHECK(s.buffers[2].writeonly);
    REQUIRE(s.push.size() == 2);
    CHECK(s.push[0].name == "n");
    CHECK(s.push[0].offset == 0);
    CHECK(s.push[0].size == 4);
    CHECK(s.push[0].type == ScalarType::uint32);
    CHECK(s.push[0].components == 1);
    CHECK(s.push[1].name == "alpha");
    CHECK(s.push[1].offset == 4);
    CHECK(s.push[1].type == ScalarType::float32);
    CHECK(s.push_size == 8);
    CHECK(s.local_size == std::array<uint32_t, 3>{256, 1, 1});
    CHECK(s.local_size_is_spec == std::array<bool, 3>{false, false, false});
    CHECK(s.spec_constants.empty());
}

} // namespace

TEST_CASE("vector add kernel: buffers, push constants, local size", "[vk][glsl]") {
    check_vector_add(compile_glsl(vector_add));
}

TEST_CASE("local size from specialization constants", "[vk][glsl]") {
    const CompiledShader s = compile_glsl(R"(#version 450
layout(local_size_x = 128, local_size_x_id = 0, local_size_y = 2) in;
layout(constant_id = 3) const int K = 7;
layout(binding = 0) buffer A { uint a[]; };
void main() { a[gl_GlobalInvocationID.x] = uint(K); }
)");
    CHECK(s.local_size == std::array<uint32_t, 3>{128, 2, 1});
    CHECK(s.local_size_is_spec == std::array<bool, 3>{true, false, false});
    CHECK(s.local_size_spec_id[0] == 0);
    REQUIRE(s.spec_constants.size() == 2);
    CHECK(s.spec_constants[0].id == 0);
    CHECK(s.spec_constants[0].name == "local_size_x");
    CHECK(s.spec_constants[1].id == 3);
    CHECK(s.spec_constants[1].name == "K");

    const CompiledShader y = compile_glsl(R"(
layout(local_size_y_id = 5) in;
layout(binding = 0) buffer A { uint a[]; };
void main() { a[0] = 1u; }
)");
    CHECK(y.local_size == std::array<uint32_t, 3>{1, 1, 1}); // GLSL's default size
    CHECK(y.local_size_is_spec == std::array<bool, 3>{false, true, false});
    CHECK(y.local_size_spec_id[1] == 5);
}

TEST_CASE("shared-memory histogram kernel compiles", "[vk][glsl]") {
    const CompiledShader s = compile_glsl(shared_histogram, "main", {}, "histogram.comp");
    REQUIRE(s.buffers.size() == 2);
    CHECK(s.buffers[0].name == "Data");
    CHECK(s.buffers[0].readonly);
    CHECK_FALSE(s.buffers[1].readonly);
    CHECK_FALSE(s.buffers[1].writeonly);
    REQUIRE(s.push.size() == 1);
    CHECK(s.push_size == 4);
    CHECK(s.local_size[0] == 256);
}

TEST_CASE("push-constant members of several types", "[vk][glsl]") {
    const CompiledShader s = compile_glsl(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer Out { float o[]; } out_;
layout(set = 1, binding = 4) readonly writeonly buffer Q { uint q[]; } q;
layout(push_constant) uniform P { vec4 v; mat4 m; float arr[3]; double d; int64_t big;
                                  ivec2 iv; uint8_t b; } p;
void main() { out_.o[0] = p.v.x + p.m[0][0] + p.arr[1] + float(p.d) + float(p.big) + p.iv.x + p.b; }
)");
    REQUIRE(s.buffers.size() == 2);
    CHECK(s.buffers[0].name == "out_"); // instance name wins over the block name
    CHECK(s.buffers[1].set == 1);
    CHECK(s.buffers[1].binding == 4);
    CHECK(s.buffers[1].readonly);
    CHECK(s.buffers[1].writeonly);
    REQUIRE(s.push.size() == 7);
    // std430 offsets, by hand: vec4 at 0 (16), mat4 at 16 (64), float[3] at 80 (12),
    // double at 96 (8), int64 at 104 (8), ivec2 at 112 (8), uint8 at 120 (1).
    const std::vector<uint32_t> offsets{0, 16, 80, 96, 104, 112, 120};
    const std::vector<uint32_t> sizes{16, 64, 12, 8, 8, 8, 1};
    const std::vector<ScalarType> types{ScalarType::float32, ScalarType::other, ScalarType::other,
                                        ScalarType::float64, ScalarType::int64, ScalarType::int32,
                                        ScalarType::uint8};
    const std::vector<uint32_t> components{4, 0, 0, 1, 1, 2, 1};
    for (size_t i = 0; i < 7; ++i) {
        INFO("member " << s.push[i].name);
        CHECK(s.push[i].offset == offsets[i]);
        CHECK(s.push[i].size == sizes[i]);
        CHECK(s.push[i].type == types[i]);
        CHECK(s.push[i].components == components[i]);
    }
    CHECK(s.push_size == 124); // 121 rounded up to a multiple of 4
    CHECK(kiln::vk::scalar_type_name(s.push[4].type) == "int64_t");
}

TEST_CASE("a syntax error throws CompileError with the line number", "[vk][glsl][errors]") {
    const std::string bad = "#version 450\nlayout(local_size_x = 1) in;\n"
                            "layout(binding = 0) buffer A { uint a[]; };\n"
                            "void main() {\n    a[0] = undefined_thing;\n}\n";
    try {
        compile_glsl(bad, "main", {"UNUSED=1"}, "bad.comp");
        FAIL("no exception");
    } catch (const kiln::vk::CompileError& e) {
        CHECK_THAT(e.what(), Catch::Contains("bad.comp:5:"));
        CHECK_THAT(e.what(), Catch::Contains("undefined_thing"));
        CHECK_THAT(e.log(), Catch::Contains("bad.comp:5:"));
    }
    CHECK_THROWS_AS(compile_glsl("void main() { int x = ; }"), kiln::vk::CompileError);
}

TEST_CASE("entry points other than main, and missing ones", "[vk][glsl][errors]") {
    const std::string src = R"(#version 450
layout(local_size_x = 32) in;
layout(binding = 0) buffer A { uint a[]; };
void scale() { a[gl_GlobalInvocationID.x] *= 2u; }
void main() { a[gl_GlobalInvocationID.x] = 0u; }
)";
    const CompiledShader s = compile_glsl(src, "scale");
    CHECK(s.entry == "scale");
    CHECK(s.local_size[0] == 32);
    CHECK(kiln::vk::reflect_spirv(s.spirv, "scale").entry == "scale");
    CHECK_THROWS_AS(kiln::vk::reflect_spirv(s.spirv, "main"), kiln::InvalidArgument);

    CHECK_THROWS_WITH(compile_glsl(src, "missing"),
                      Catch::Contains("entry point 'missing' not found"));
    CHECK_THROWS_AS(compile_glsl(src, "missing"), kiln::InvalidArgument);
    CHECK_THROWS_WITH(compile_glsl("layout(local_size_x = 1) in;\nvoid other() {}\n"),
                      Catch::Contains("entry point 'main' not found"));
    CHECK_THROWS_AS(compile_glsl(src, "not a name"), kiln::InvalidArgument);
}

TEST_CASE("defines reach the preprocessor", "[vk][glsl]") {
    const std::string src = R"(
layout(local_size_x = WG) in;
layout(binding = 0) buffer A { uint a[]; };
void main() {
#ifdef TWICE
    a[0] = 2u;
#else
    a[0] = 1u;
#endif
}
)";
    CHECK(compile_glsl(src, "main", {"WG=64"}).local_size[0] == 64);
    CHECK(compile_glsl(src, "main", {"WG=64", "TWICE"}).spirv !=
          compile_glsl(src, "main", {"WG=64"}).spirv);
    CHECK_THROWS_AS(compile_glsl(src), kiln::vk::CompileError); // WG undefined
    CHECK_THROWS_AS(compile_glsl(src, "main", {"W G=3"}), kiln::InvalidArgument);
    CHECK_THROWS_AS(compile_glsl(src, "main", {"=3"}), kiln::InvalidArgument);
}

TEST_CASE("resources a kernel cannot take are refused", "[vk][glsl][errors]") {
    CHECK_THROWS_AS(compile_glsl(R"(
layout(local_size_x = 1) in;
layout(binding = 0) uniform U { uint x; };
layout(binding = 1) buffer A { uint a[]; };
void main() { a[0] = x; }
)"),
                    kiln::Unsupported);
    CHECK_THROWS_WITH(compile_glsl(R"(
layout(local_size_x = 1) in;
layout(binding = 0, r32f) uniform image2D img;
layout(binding = 1) buffer A { uint a[]; };
void main() { a[0] = uint(imageLoad(img, ivec2(0)).x); }
)"),
                      Catch::Contains("'img' (set 0, binding 0)"));
    CHECK_THROWS_AS(compile_glsl(R"(
layout(local_size_x = 1) in;
layout(binding = 1) buffer A { uint a[]; } arr[2];
void main() { arr[1].a[0] = 1u; }
)"),
                    kiln::Unsupported);
}

TEST_CASE("reflect_spirv rejects words that are not a module", "[vk][glsl][errors]") {
    using kiln::vk::reflect_spirv;
    CHECK_THROWS_AS(reflect_spirv({}), kiln::InvalidArgument);
    CHECK_THROWS_AS(reflect_spirv({1, 2, 3, 4, 5, 6}), kiln::InvalidArgument);
    std::vector<uint32_t> words = compile_glsl(vector_add).spirv;
    check_vector_add(reflect_spirv(words));
    std::vector<uint32_t> cut(words.begin(), words.begin() + static_cast<long>(words.size() / 2));
    CHECK_THROWS_AS(reflect_spirv(cut), kiln::InvalidArgument);
    words[5] = 0xffff0000u | (words[5] & 0xffffu); // first instruction claims 65535 words
    CHECK_THROWS_AS(reflect_spirv(words), kiln::InvalidArgument);
}

TEST_CASE("disk cache: one file, same SPIR-V, and loaded from disk", "[vk][glsl][cache]") {
    TempDir dir;
    const CompiledShader first = compile_glsl_cached(vector_add, "main", {}, dir.path);
    check_vector_add(first);
    const auto files = dir.files();
    REQUIRE(files.size() == 1);
    CHECK(files[0].extension() == ".spv");
    CHECK(read_words(files[0]) == first.spirv);
    CHECK(first.spirv == compile_glsl(vector_add).spirv);

    const CompiledShader second = compile_glsl_cached(vector_add, "main", {}, dir.path);
    CHECK(second.spirv == first.spirv);
    check_vector_add(second);
    CHECK(dir.files().size() == 1);

    // Planting another valid module under the key shows hits come from the file.
    const CompiledShader hist = compile_glsl(shared_histogram);
    write_bytes(files[0], hist.spirv.data(), hist.spirv.size() * 4);
    CHECK(compile_glsl_cached(vector_add, "main", {}, dir.path).spirv == hist.spirv);

    // Defines and entry are part of the key.
    compile_glsl_cached(vector_add, "main", {"X=1"}, dir.path);
    CHECK(dir.files().size() == 2);

    // An empty directory path disables the cache.
    CHECK(compile_glsl_cached(vector_add, "main", {}, {}).spirv == first.spirv);
}

TEST_CASE("disk cache recovers from corrupt files", "[vk][glsl][cache]") {
    TempDir dir;
    const CompiledShader good = compile_glsl_cached(shared_histogram, "main", {}, dir.path);
    const std::filesystem::path file = dir.files().at(0);

    SECTION("garbage bytes") {
        write_bytes(file, "not spir-v at all", 17);
    }
    SECTION("truncated at an instruction boundary") {
        // Header and the first instruction (OpCapability Shader) only.
        write_bytes(file, good.spirv.data(), (5 + (good.spirv[5] >> 16)) * 4);
    }
    SECTION("empty file") {
        write_bytes(file, "", 0);
    }
    const CompiledShader again = compile_glsl_cached(shared_histogram, "main", {}, dir.path);
    CHECK(again.spirv == good.spirv);
    CHECK(again.buffers.size() == 2);
    CHECK(read_words(file) == good.spirv); // rewritten
    CHECK(dir.files().size() == 1);        // no temporary left behind
}

TEST_CASE("compiles from several threads at once", "[vk][glsl]") {
    const std::vector<uint32_t> expected = compile_glsl(vector_add).spirv;
    std::vector<std::vector<uint32_t>> results(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < results.size(); ++t)
        threads.emplace_back([&, t] {
            try {
                results[t] = compile_glsl(vector_add).spirv;
            } catch (const std::exception&) {
                // Left empty, so the check below fails without terminating.
            }
        });
    for (auto& th : threads) th.join();
    for (const auto& r : results) CHECK(r == expected);
}
