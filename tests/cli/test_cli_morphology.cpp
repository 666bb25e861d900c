// The morphology subcommands made from the manifest: SciPy's keywords as
// options, footprint and structure files as positionals, results equal to
// scipy.ndimage's (tests/data/make_morphology.py).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/run_cli.hpp"
#include "kiln/io.hpp"

using kiln::test::CliRun;
using kiln::test::run_kiln;
using kiln::test::TempDir;

namespace {

std::string fixture(const std::string& name) { return (kiln::test::data_dir() / "morphology" / name).string(); }

void check_result(const TempDir& dir, const std::vector<std::string>& args, const std::string& expected) {
    const CliRun r = run_kiln(dir, args);
    INFO(r.what);
    REQUIRE(r.code == 0);
    const kiln::HostArray got = kiln::io::read_npy(dir.file("out.npy"));
    kiln::test::require_close(got, kiln::io::read_npy(fixture(expected)), 0, 0);
}

}  // namespace

TEST_CASE("kiln's morphology subcommands take SciPy's keywords", "[cli][morphology]") {
    TempDir dir;
    check_result(dir, {"grey-dilation", fixture("in_f32_2d.npy"), "--size", "4", "3", "--origin", "1", "0", "-o", "out.npy"},
                 "grey_dilation_27.npy");
    check_result(dir,
                 {"binary-erosion", fixture("in_bin_2d.npy"), fixture("bs_even.npy"), "--iterations", "2", "--origin",
                  "-1", "0", "-o", "out.npy"},
                 "binary_erosion_53.npy");
    check_result(dir, {"binary-fill-holes", fixture("in_holes_2d.npy"), "-o", "out.npy"}, "binary_fill_holes_80.npy");
    const CliRun r = run_kiln(dir, {"grey-erosion", fixture("in_f32_2d.npy"), "-o", "none.npy"});
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("give a size, a footprint or a structure"));
}
