// Workgroup-size tuning: every candidate timed, the fastest set and saved,
// the saved file read back into a new context; results unchanged by the size.
#include <filesystem>
#include <fstream>
#include <random>

#include "kiln/histogram.hpp"
#include "kiln/kernel.hpp"
#include "kiln/reference/elementwise.hpp"
#include "kiln/reference/histogram.hpp"
#include "kiln/tune.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

using kiln::test::TempDir;

ContextOptions in(const TempDir& dir) {
    ContextOptions o;
    o.cache_dir = dir.path.string();
    return o;
}

} // namespace

TEST_CASE("tune times every candidate, sets the fastest and saves it", "[ops][tune]") {
    TempDir dir;
    Context ctx = test::context(in(dir));
    HostArray ha = test::random(Shape{4096}, DType::float32, 1), hb = test::random(Shape{4096}, DType::float32, 2);
    Array a = Array::from_host(ctx, ha), b = Array::from_host(ctx, hb);
    Array c;
    auto op = [&] { c = add(a, b); };
    const std::vector<std::string> kernels = kernels_of(ctx, op);
    REQUIRE(kernels.size() == 1);
    CHECK(kernels[0] == "binary4");  // float32, a multiple of 4 elements

    const std::vector<WorkgroupSize> candidates{{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {4096, 1, 1}};
    TuneResult r = tune(ctx, "binary4", op, candidates, 3);
    REQUIRE(r.table.size() == 4);
    double fastest = 1e300;
    for (size_t i = 0; i < 3; ++i) {
        CHECK(r.table[i].size == candidates[i]);
        CHECK(r.table[i].ok);
        CHECK(r.table[i].gpu_ms > 0);
        CHECK(r.table[i].min_ms <= r.table[i].gpu_ms);
        fastest = std::min(fastest, r.table[i].gpu_ms);
    }
    CHECK_FALSE(r.table[3].ok);  // more invocations than any device allows
    CHECK_THAT(r.table[3].error, Catch::Contains("4096"));
    CHECK(r.best_ms == fastest);
    CHECK(ctx.workgroup_size("binary4") == r.best);
    CHECK_THAT(r.str(), Catch::Contains("* " + std::to_string(r.best[0]) + "x1x1"));
    // The op still computes the same with the chosen size.
    op();
    test::require_close(c.to_host(), cpu::binary(BinaryOp::add, ha, hb), 1e-6);

    // Saved for this device, and read back by a new context.
    REQUIRE(std::filesystem::exists(tuning_file(ctx)));
    Context fresh = test::context(in(dir));
    CHECK_FALSE(fresh.workgroup_size("binary4"));
    CHECK(load_tuning(fresh) == 1);
    CHECK(fresh.workgroup_size("binary4") == r.best);
}

TEST_CASE("saved sizes are kept per device and kernel", "[ops][tune]") {
    TempDir dir;
    Context ctx = test::context(in(dir));
    save_tuning(ctx, "hist_count", {64, 1, 1}, 0.5);
    save_tuning(ctx, "binary4", {128, 1, 1});
    save_tuning(ctx, "hist_count", {512, 1, 1});  // replaces the first
    {
        std::ofstream out(tuning_file(ctx), std::ios::app);
        out << "Another GPU\t0x00000001\tbinary4\t32 1 1\t0.1\n";  // another device: ignored
        out << "garbage line\n";
    }
    Context fresh = test::context(in(dir));
    CHECK(load_tuning(fresh) == 2);
    CHECK(fresh.workgroup_size("hist_count") == WorkgroupSize{512, 1, 1});
    CHECK(fresh.workgroup_size("binary4") == WorkgroupSize{128, 1, 1});
}

TEST_CASE("tuning the histogram and a user kernel", "[ops][tune]") {
    TempDir dir;
    Context ctx = test::context(in(dir));
    HostArray h = test::random(Shape{127, 129}, DType::int32, 3, 0, 255);
    Array data = Array::from_host(ctx, h);
    Histogram hist;
    auto op = [&] { hist = histogram(data, 256, std::pair{0.0, 256.0}); };
    const std::vector<std::string> kernels = kernels_of(ctx, op);
    CHECK(std::find(kernels.begin(), kernels.end(), "hist_count_int32") != kernels.end());
    TuneResult r = tune(ctx, "hist_count", op, {{64, 1, 1}, {256, 1, 1}}, 2);
    CHECK(r.table.size() == 2);
    op();
    CHECK(hist.host_counts() == cpu::histogram(h, 256, std::pair{0.0, 256.0}).counts);

    Kernel k(ctx, R"(#version 450
layout(local_size_x_id = 0) in;
layout(binding = 0) buffer X { uint x[]; };
layout(push_constant) uniform P { uint n; } p;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) x[i] += i; }
)", "main", {}, "tune_me");
    Array x = Array::zeros(ctx, Shape{1031}, DType::uint32);
    TuneResult u = tune(ctx, k.name(), [&] { k(x).push(1031u).grid(1031); }, {{16, 1, 1}, {128, 1, 1}}, 2, false);
    CHECK(k.local_size() == u.best);
    std::vector<uint32_t> got = x.to_vector<uint32_t>();
    // Warm-up and repeats each added i once: 2 candidates x (2 + 2) runs.
    for (uint32_t i = 0; i < 1031; ++i) CHECK(got[i] == 8 * i);
}

TEST_CASE("tune refuses bad arguments", "[ops][tune][errors]") {
    TempDir dir;
    Context ctx = test::context(in(dir));
    auto nothing = [] {};
    CHECK_THROWS_AS(tune(ctx, "", nothing), InvalidArgument);
    CHECK_THROWS_AS(tune(ctx, "binary4", nothing, {}, 0), InvalidArgument);
    ContextOptions o = in(dir);
    o.timing = Timing::off;
    Context untimed = test::context(o);
    CHECK_THROWS_WITH(tune(untimed, "binary4", nothing), Catch::Contains("timestamps"));
    CHECK_THROWS_WITH(tune(ctx, "binary4", nothing, {{8192, 1, 1}}), Catch::Contains("no candidate"));
    CHECK_FALSE(ctx.workgroup_size("binary4"));
}
