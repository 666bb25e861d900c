// The `kiln` command line's options as documented (issue 13): global options
// before or after the subcommand, JSON for NaN and infinities, gaussian-filter's
// sigmas, and the statistics of degenerate inputs.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/run_cli.hpp"

using kiln::test::CliRun;
using kiln::test::make_full;
using kiln::test::run_kiln;
using kiln::test::TempDir;

TEST_CASE("kiln's global options work before and after the subcommand", "[cli]") {
    TempDir dir;
    make_full(dir, "data.npy", {"16"}, "3", "int32");
    // The README's example failed with "The following argument was not expected: --json".
    const std::string want = "{\"counts\": [0, 0, 0, 16], \"edges\": [0, 1, 2, 3, 4]}\n";
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"histogram", "data.npy", "--bins", "4", "--range", "0,4", "--json"},
          {"--json", "histogram", "data.npy", "--bins", "4", "--range", "0,4"},
          {"histogram", "--json", "data.npy", "--bins", "4", "--range", "0,4"}}) {
        const CliRun r = run_kiln(dir, args);
        INFO(r.what);
        CHECK(r.code == 0);
        CHECK(r.out == want);
    }
    CliRun r = run_kiln(dir, {"sum", "data.npy", "--json", "--profile", "--trace", "t.json"});
    INFO(r.what);
    CHECK(r.code == 0);
    CHECK(r.out == "{\"sum\": 48}\n");
    CHECK_THAT(r.err, Catch::Contains("count"));  // the profile table
    CHECK(dir.entries() == 2);                    // data.npy and the trace
    // Nested: tune's subcommands too.
    r = run_kiln(dir, {"tune", "add", "--size", "1024", "--candidates", "64", "--repeat", "1", "--no-save", "--json"});
    INFO(r.what);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("{\"kernel\": "));
}

TEST_CASE("kiln --json writes NaN and infinities as strings, finite numbers exactly", "[cli]") {
    TempDir dir;
    make_full(dir, "neg.npy", {"3"}, "-inf", "float64");
    make_full(dir, "pos.npy", {"3"}, "inf");
    make_full(dir, "nan.npy", {"3"}, "nan");
    make_full(dir, "tenth.npy", {"3"}, "0.1", "float64");
    const auto json = [&](std::vector<std::string> args) {
        args.insert(args.begin(), "--json");
        const CliRun r = run_kiln(dir, args);
        INFO(r.what);
        CHECK(r.code == 0);
        return r.out;
    };
    // Issue 13: {"min": null}.
    CHECK(json({"min", "neg.npy"}) == "{\"min\": \"-Infinity\"}\n");
    CHECK(json({"max", "pos.npy"}) == "{\"max\": \"Infinity\"}\n");
    CHECK(json({"mean", "nan.npy"}) == "{\"mean\": \"NaN\"}\n");
    CHECK(json({"sum", "tenth.npy"}) == "{\"sum\": 0.30000000000000004}\n");
    CHECK(json({"percentile", "tenth.npy", "--q", "50"}) == "{\"q\": [50], \"percentile\": [0.10000000000000001]}\n");
    // Plain output keeps C's spelling.
    const CliRun plain = run_kiln(dir, {"min", "neg.npy"});
    CHECK(plain.out == "-inf\n");
}

TEST_CASE("kappa-sigma-clip of a constant image keeps every value, histogram of no finite value is refused",
          "[cli]") {
    TempDir dir;
    make_full(dir, "flat.npy", {"7", "9"}, "2.5");
    // Issue 13: median nan, count 0.
    CliRun r = run_kiln(dir, {"--json", "kappa-sigma-clip", "flat.npy"});
    INFO(r.what);
    CHECK(r.code == 0);
    CHECK(r.out == "{\"median\": 2.5, \"std\": 0, \"mean\": 2.5, \"count\": 63, \"iterations\": 1}\n");
    // Issue 13: empty bins over [0, 1] where NumPy raises.
    for (const char* value : {"nan", "inf", "-inf"}) {
        const std::string file = std::string("all_") + (value[0] == '-' ? "minus_inf" : value) + ".npy";
        make_full(dir, file, {"4"}, value);
        r = run_kiln(dir, {"histogram", file});
        INFO(r.what);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains("none of the 4 values is finite") && Catch::Contains("give a range"));
        CHECK(run_kiln(dir, {"histogram", file, "--range", "0,1"}).code == 0);
    }
}

TEST_CASE("gaussian-filter takes --sigma or per-axis sigmas, as its help says", "[cli]") {
    TempDir dir;
    make_full(dir, "img.npy", {"8", "8"}, "1");
    CliRun r = run_kiln(dir, {"gaussian-filter", "--help"});
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("--sigma-x") && Catch::Contains("instead of --sigma") &&
                          !Catch::Contains("--sigma FLOAT REQUIRED"));
    // Neither: a usage error naming both ways.
    r = run_kiln(dir, {"gaussian-filter", "img.npy", "-o", "out.npy"});
    INFO(r.what);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--sigma or --sigma-x/--sigma-y/--sigma-z is required"));
    // Both.
    r = run_kiln(dir, {"gaussian-filter", "img.npy", "--sigma", "1", "--sigma-y", "2", "-o", "out.npy"});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("excludes"));
    CHECK(dir.entries() == 1);
    // Either.
    CHECK(run_kiln(dir, {"gaussian-filter", "img.npy", "--sigma", "1", "-o", "a.npy"}).code == 0);
    CHECK(run_kiln(dir, {"gaussian-filter", "img.npy", "--sigma-x", "1", "-o", "b.npy"}).code == 0);
    CHECK(dir.entries() == 3);
}
