// Float controls: the SPIR-V patch that asks a driver to keep denormals and
// NaN/inf/-0 (checked word by word, no GPU needed), and ops on denormal
// inputs, which NVIDIA's driver flushed to zero without it (the results
// must be NumPy's on a device that keeps denormals).
#include <bit>
#include <cstring>
#include <set>
#include <tuple>
#include <vector>

#include "kiln/elementwise.hpp"
#include "kiln/label.hpp"
#include "kiln/reduce.hpp"
#include "support.hpp"
#include "vk/float_controls.hpp"
#include "vk/glsl_compiler.hpp"

using namespace kiln;

namespace {

const char* const with_double = R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer X { double x[]; };
layout(binding = 1) buffer Y { float y[]; };
void main() { x[gl_GlobalInvocationID.x] += double(y[gl_GlobalInvocationID.x]); }
)";

const char* const float_only = R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer Y { float y[]; };
void main() { y[gl_GlobalInvocationID.x] *= 2.0; }
)";

struct Module {
    std::set<uint32_t> caps;
    std::multiset<std::tuple<uint32_t, uint32_t, uint32_t>> modes;  // entry, mode, width
    std::vector<uint32_t> entries;
    bool extension = false;
};

// The parts of a module the patch touches, read independently of it.
Module parse(const std::vector<uint32_t>& w) {
    Module m;
    for (size_t i = 5; i < w.size(); i += w[i] >> 16) {
        const uint32_t op = w[i] & 0xffff, n = w[i] >> 16;
        REQUIRE(n > 0);
        if (op == 17) m.caps.insert(w[i + 1]);
        if (op == 15) m.entries.push_back(w[i + 2]);
        if (op == 16 && n == 4) m.modes.insert({w[i + 1], w[i + 2], w[i + 3]});
        if (op == 10) m.extension = m.extension || std::strcmp(reinterpret_cast<const char*>(&w[i + 1]), "SPV_KHR_float_controls") == 0;
    }
    return m;
}

float denormal(uint32_t bits) { return std::bit_cast<float>(bits); }

} // namespace

TEST_CASE("float controls: the execution modes, capabilities and extension are added once", "[vk][float]") {
    const vk::FloatControls all{true, true, true, true};
    const vk::CompiledShader s = vk::compile_glsl(with_double);
    const std::vector<uint32_t> patched = vk::with_float_controls(s.spirv, all);
    const Module m = parse(patched);
    REQUIRE(m.entries.size() == 1);
    const uint32_t e = m.entries[0];
    for (uint32_t width : {32u, 64u}) {
        CHECK(m.modes.count({e, 4459u, width}) == 1);  // DenormPreserve
        CHECK(m.modes.count({e, 4461u, width}) == 1);  // SignedZeroInfNanPreserve
    }
    CHECK(m.caps.count(4464));
    CHECK(m.caps.count(4466));
    // SPIR-V 1.5 has float controls in core: no extension needed; 1.3 does.
    CHECK_FALSE(m.extension);
    std::vector<uint32_t> old = s.spirv;
    old[1] = 0x00010300;
    CHECK(parse(vk::with_float_controls(old, all)).extension);
    // Patching again changes nothing; the interface reads back the same.
    CHECK(vk::with_float_controls(patched, all) == patched);
    const vk::CompiledShader again = vk::reflect_spirv(patched);
    CHECK(again.buffers.size() == s.buffers.size());
    CHECK(again.local_size == s.local_size);

    // Without Float64 in the module only the 32-bit modes; nothing asked, nothing added.
    const vk::CompiledShader f = vk::compile_glsl(float_only);
    const Module m32 = parse(vk::with_float_controls(f.spirv, all));
    CHECK(m32.modes.size() == parse(f.spirv).modes.size() + 2);
    CHECK(m32.modes.count({m32.entries[0], 4459u, 64u}) == 0);
    CHECK(vk::with_float_controls(f.spirv, vk::FloatControls{}) == f.spirv);
    CHECK_THROWS_AS(vk::with_float_controls(std::vector<uint32_t>{1, 2, 3}, all), InvalidArgument);
}

TEST_CASE("denormals are compared, counted and selected as NumPy does", "[vk][float][ops]") {
    Context ctx = test::context();
    const DeviceInfo& info = ctx.device();
    // A GPU that can neither keep denormals nor is a CPU driver (which keeps
    // them anyway) cannot give these results: kiln says so instead.
    if (!info.denorm_preserve32 && info.type != "cpu") {
        WARN("'" << info.name << "' cannot keep float32 denormals in shaders; skipped");
        return;
    }
    const float d1 = denormal(1), d2 = denormal(2), neg = denormal(0x80000001u);
    Array a = Array::from(ctx, Shape{4}, std::vector<float>{d2, d1, 0.0f, neg});
    CHECK(argmin(a) == 3);  // -1e-45 is the smallest
    CHECK(argmax(a) == 0);
    CHECK(count_nonzero(a) == 3);
    CHECK(std::bit_cast<uint32_t>(float(min(a))) == 0x80000001u);
    Array zero = Array::zeros(ctx, Shape{4});
    CHECK(greater(a, zero).to_vector<uint8_t>() == std::vector<uint8_t>{1, 1, 0, 0});
    CHECK(equal(a, zero).to_vector<uint8_t>() == std::vector<uint8_t>{0, 0, 1, 0});
    // np.minimum picks an operand, bits intact.
    Array b = Array::from(ctx, Shape{4}, std::vector<float>{d1, d2, neg, 0.0f});
    const std::vector<float> m = minimum(a, b).to_vector<float>();
    const std::vector<uint32_t> want{1, 1, 0x80000001u, 0x80000001u};
    for (size_t i = 0; i < 4; ++i) CHECK(std::bit_cast<uint32_t>(m[i]) == want[i]);
    // A denormal mask pixel is foreground, as numpy.nonzero says.
    Labels l = label(Array::from(ctx, Shape{1, 5}, std::vector<float>{d1, 0.0f, neg, d2, 0.0f}), 4);
    CHECK(l.count == 2);
    CHECK(l.labels.to_vector<int32_t>() == std::vector<int32_t>{1, 0, 2, 2, 0});
}
