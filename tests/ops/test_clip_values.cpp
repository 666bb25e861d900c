// clip (ops/clip_values.cpp), an op reached only through the manifest:
// against numpy.clip's definition, minimum(maximum(a, lo), hi), composed
// from the CPU reference's element-wise ops; and its generated command.
#include "cli/run_cli.hpp"
#include "kiln/manifest.hpp"
#include "kiln/reference/elementwise.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

Array clip(const Context& ctx, const Array& a, double lo, double hi) {
    OpArgs args(ctx);
    args.set("a", a).set("min", lo).set("max", hi);
    return std::get<Array>(invoke("clip", args));
}

HostArray clip_reference(const HostArray& a, double lo, double hi) {
    return cpu::binary_scalar(BinaryOp::minimum, cpu::binary_scalar(BinaryOp::maximum, a, lo), hi);
}

}  // namespace

TEST_CASE("clip matches numpy.clip's definition for every dtype, NaN kept, bounds crossed", "[ops][manifest]") {
    Context ctx = test::context();
    for (DType t : all_dtypes)
        for (Shape s : {Shape{13}, Shape{67, 129}, Shape{3, 5, 7}}) {
            INFO(dtype_name(t) << " " << s.str());
            HostArray h = test::random(s, t, 11, -300, 300);
            if (t == DType::float32) h.as<float>()[3] = std::nanf("");
            if (t == DType::float64) h.as<double>()[3] = std::nan("");
            const Array a = Array::from_host(ctx, h);
            for (auto [lo, hi] : {std::pair{-50.0, 75.0}, {0.0, 1000.0}, {-1000.0, 1000.0}, {20.0, 10.0}})
                test::require_close(clip(ctx, a, lo, hi).to_host(), clip_reference(h, lo, hi), 0);
        }
}

TEST_CASE("clip refuses what numpy.clip would not be asked", "[ops][manifest]") {
    Context ctx = test::context();
    const Array a = Array::full(ctx, Shape{4}, 1.0);
    CHECK_THROWS_WITH(clip(ctx, a, std::nan(""), 1), Catch::Contains("not NaN"));
    OpArgs missing(ctx);
    missing.set("a", a).set("min", 0.0);
    CHECK_THROWS_WITH(invoke("clip", missing), Catch::Contains("clip: argument 'max'") && Catch::Contains("required"));
}

TEST_CASE("kiln clip is generated from the manifest entry", "[ops][manifest][cli]") {
    test::TempDir dir;
    test::make_full(dir, "a.npy", {"3", "4"}, "7");
    test::CliRun r = test::run_kiln(dir, {"clip", "a.npy", "--min", "0", "--max", "5", "-o", "b.npy"});
    INFO(r.what);
    REQUIRE(r.code == 0);
    r = test::run_kiln(dir, {"--json", "max", "b.npy"});
    CHECK(r.out == "{\"max\": 5}\n");
    r = test::run_kiln(dir, {"clip", "--help"});
    CHECK_THAT(r.out, Catch::Contains("numpy.clip") && Catch::Contains("--min") && Catch::Contains("--max"));
}
