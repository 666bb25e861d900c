// The image-processing toolbox of issue 18 on the command line: per family,
// representative subcommands (made from the manifest) on small .npy inputs
// give the bytes the C++ function gives on the same input (the C++ functions
// are tested against SciPy/scikit-image), --help names SciPy's keywords, and
// a bad argument is a documented exit code with a message saying what is
// accepted.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/run_cli.hpp"
#include "kiln/derivatives.hpp"
#include "kiln/distance.hpp"
#include "kiln/io.hpp"
#include "kiln/label_tools.hpp"
#include "kiln/rank_filters.hpp"
#include "kiln/threshold.hpp"
#include "kiln/transforms.hpp"
#include "kiln/watershed.hpp"
#include "support.hpp"

using kiln::test::CliRun;
using kiln::test::run_kiln;
using kiln::test::TempDir;

namespace kiln {
namespace {

using Args = std::vector<std::string>;

// Writes `host` as dir/name and returns it on the device for the C++ call
// (in the test's context: an op takes arrays of one context).
Array input(const Context& ctx, const TempDir& dir, const std::string& name, const HostArray& host) {
    io::write_npy(dir.file(name), host);
    return Array::from_host(ctx, host);
}

// Runs kiln with args (the output is out.npy) and checks that it wrote what
// the C++ function gave: same shape, dtype and bytes.
void check_same(const TempDir& dir, Args args, const Array& want) {
    args.insert(args.end(), {"-o", "out.npy"});
    const CliRun r = run_kiln(dir, args);
    INFO(r.what);
    REQUIRE(r.code == 0);
    const HostArray got = io::read_npy(dir.file("out.npy"));
    const HostArray w = want.to_host();
    CHECK(got.shape == w.shape);
    CHECK(got.dtype == w.dtype);
    CHECK(got.bytes == w.bytes);
}

// The printed number of a number-valued subcommand (printed with %.17g, so
// it reads back as the same double).
double printed(const TempDir& dir, const Args& args) {
    const CliRun r = run_kiln(dir, args);
    INFO(r.what);
    REQUIRE(r.code == 0);
    return std::stod(r.out);
}

// `kiln <op> --help` lists each of these options.
void check_help(const TempDir& dir, const std::string& op, const Args& options) {
    const CliRun r = run_kiln(dir, {op, "--help"});
    INFO(r.what);
    CHECK(r.code == 0);
    for (const std::string& o : options) CHECK_THAT(r.out, Catch::Contains(o));
}

// A refused call: the exit code, every fragment in the message, no output.
void check_refused(const TempDir& dir, Args args, int code, const Args& says) {
    args.insert(args.end(), {"-o", "bad.npy"});
    const CliRun r = run_kiln(dir, args);
    INFO(r.what);
    CHECK(r.code == code);
    for (const std::string& s : says) CHECK_THAT(r.err, Catch::Contains(s));
    CHECK_FALSE(std::filesystem::exists(dir.file("bad.npy")));
}

}  // namespace

TEST_CASE("kiln derivative subcommands equal the C++ functions", "[cli][derivatives]") {
    TempDir dir;
    const Context ctx = test::context();
    const Array img = input(ctx, dir, "img.npy", test::random(Shape{13, 17}, DType::float32, 1));
    check_same(dir, {"sobel", "img.npy", "--axis", "0", "--mode", "constant", "--cval", "1.5"},
               sobel(img, 0, NdMode::constant, 1.5));
    check_same(dir, {"gaussian-laplace", "img.npy", "--sigma", "1.5", "--mode", "nearest"},
               gaussian_laplace(img, {1.5, 1.5, 1.5}, NdMode::nearest));
    check_same(dir, {"difference-of-gaussians", "img.npy", "--low-sigma", "1", "--high-sigma", "2.5"},
               difference_of_gaussians(img, 1, 2.5));
    check_help(dir, "sobel", {"INPUT", "--axis", "--mode", "--cval"});
    check_help(dir, "gaussian-gradient-magnitude", {"--sigma", "--mode", "--cval", "--truncate"});
    check_refused(dir, {"prewitt", "img.npy", "--mode", "bounce"}, 2, {"--mode", "reflect", "mirror", "wrap"});
    check_refused(dir, {"laplace", "img.npy", "--cval", "x"}, 2, {"--cval"});
}

TEST_CASE("kiln rank filter subcommands equal the C++ functions", "[cli][rank_filters]") {
    TempDir dir;
    const Context ctx = test::context();
    const Array img = input(ctx, dir, "img.npy", test::random(Shape{11, 15}, DType::uint8, 2, 0, 255));
    const std::vector<uint8_t> cross{0, 1, 0, 1, 1, 1, 0, 1, 0};
    const Array fp = input(ctx, dir, "fp.npy", HostArray::from(Shape{3, 3}, cross));
    check_same(dir, {"median-filter", "img.npy", "--size", "3", "5", "--mode", "nearest"},
               median_filter(img, Footprint::box({3, 5}), NdMode::nearest));
    check_same(dir, {"rank-filter", "img.npy", "fp.npy", "--rank", "-1"},
               rank_filter(img, -1, Footprint::from_host(fp.to_host())));
    check_same(dir, {"uniform-filter", "img.npy", "--size", "5", "--origin", "1", "--mode", "constant", "--cval", "9"},
               uniform_filter(img, {5}, NdMode::constant, 9, {1}));
    check_help(dir, "percentile-filter", {"--percentile", "--size", "FOOTPRINT", "--mode", "--cval", "--origin"});
    // Neither --size nor a footprint; a rank beyond the footprint.
    check_refused(dir, {"median-filter", "img.npy"}, 2, {"--size", "FOOTPRINT"});
    check_refused(dir, {"rank-filter", "img.npy", "--size", "3", "--rank", "9"}, 1, {"rank", "9"});
}

TEST_CASE("kiln transform subcommands equal the C++ functions", "[cli][transforms]") {
    TempDir dir;
    const Context ctx = test::context();
    const Array img = input(ctx, dir, "img.npy", test::random(Shape{13, 17}, DType::float32, 3));
    check_same(dir, {"shift", "img.npy", "--shift", "2.5,-1.25", "--order", "1", "--mode", "nearest"},
               shift(img, {2.5, -1.25}, Interp{1, InterpMode::nearest}));
    check_same(dir, {"zoom", "img.npy", "--zoom", "1.5", "--grid-mode", "1", "--mode", "grid-constant"},
               zoom(img, {1.5}, Interp{3, InterpMode::grid_constant}, true));
    check_same(dir, {"rotate", "img.npy", "--angle", "30", "--reshape", "0", "--axes", "0", "1"},
               rotate(img, 30, {0, 1}, false));
    check_help(dir, "affine-transform", {"--matrix", "--offset", "--output-shape", "--order", "--mode", "--cval",
                                         "--prefilter"});
    check_refused(dir, {"rotate", "img.npy", "--angle", "30", "--axes", "0"}, 1, {"--axes", "two are accepted"});
    check_refused(dir, {"shift", "img.npy", "--shift", "1", "--mode", "edge"}, 2, {"grid-wrap", "mirror"});
}

TEST_CASE("kiln threshold subcommands print the C++ functions' values", "[cli][threshold]") {
    TempDir dir;
    const Context ctx = test::context();
    const Array img = input(ctx, dir, "img.npy", test::random(Shape{9, 23}, DType::float32, 4, 0, 200));
    const Array u8 = input(ctx, dir, "u8.npy", test::random(Shape{9, 23}, DType::uint8, 5, 0, 255));
    CHECK(printed(dir, {"threshold-otsu", "img.npy", "--nbins", "64"}) == threshold_otsu(img, 64));
    CHECK(printed(dir, {"threshold-yen", "u8.npy"}) == threshold_yen(u8));
    CHECK(printed(dir, {"threshold-li", "img.npy", "--tolerance", "0.5"}) == threshold_li(img, 0.5));
    check_help(dir, "threshold-triangle", {"IMAGE", "--nbins"});
    const CliRun r = run_kiln(dir, {"threshold-otsu", "img.npy", "--nbins", "0"});
    INFO(r.what);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--nbins") && Catch::Contains("whole number in [1, 16777216]"));
}

TEST_CASE("kiln label tool subcommands equal the C++ functions", "[cli][label_tools]") {
    TempDir dir;
    const Context ctx = test::context();
    // Labels 0..9 with gaps and labels on the border.
    HostArray lab = test::random(Shape{11, 13}, DType::int32, 6, 0, 12);
    for (int32_t* v = reinterpret_cast<int32_t*>(lab.bytes.data()); v != reinterpret_cast<int32_t*>(lab.bytes.data() + lab.bytes.size()); ++v)
        if (*v > 9 || *v == 4) *v = 0;
    const Array labels = input(ctx, dir, "lab.npy", lab);
    check_same(dir, {"relabel-sequential", "lab.npy"}, relabel_sequential(labels));
    check_same(dir, {"find-objects", "lab.npy"}, find_objects(labels));
    check_same(dir, {"exclude-labels-outside-size-range", "lab.npy", "--minimum-size", "10", "--maximum-size", "15"},
               exclude_labels_outside_size_range(labels, 10, 15));
    check_help(dir, "dilate-labels", {"LABELS", "--radius"});
    input(ctx, dir, "f.npy", test::random(Shape{5, 7}, DType::float32, 7));
    check_refused(dir, {"relabel-sequential", "f.npy"}, 1, {"int32"});
    check_refused(dir, {"dilate-labels", "lab.npy", "--radius", "-1"}, 2, {"--radius"});
}

TEST_CASE("kiln distance-transform-edt equals the C++ function", "[cli][distance]") {
    TempDir dir;
    const Context ctx = test::context();
    const Array mask = input(ctx, dir, "mask.npy", test::random(Shape{7, 9, 11}, DType::uint8, 8, 0, 9));
    check_same(dir, {"distance-transform-edt", "mask.npy"}, distance_transform_edt(mask));
    check_same(dir, {"distance-transform-edt", "mask.npy", "--sampling", "2,1,0.5", "--dtype", "float64"},
               distance_transform_edt(mask, {2, 1, 0.5}, DType::float64));
    check_help(dir, "distance-transform-edt", {"INPUT", "--sampling", "--dtype"});
    check_refused(dir, {"distance-transform-edt", "mask.npy", "--dtype", "int32"}, 2, {"float32", "float64"});
    check_refused(dir, {"distance-transform-edt", "mask.npy", "--sampling", "1,2"}, 1, {"sampling"});
}

TEST_CASE("kiln watershed equals the C++ function", "[cli][watershed]") {
    TempDir dir;
    const Context ctx = test::context();
    const Array img = input(ctx, dir, "img.npy", test::random(Shape{15, 19}, DType::float32, 9, 0, 1));
    HostArray mk(Shape{15, 19}, DType::int32);
    int32_t* m = reinterpret_cast<int32_t*>(mk.bytes.data());
    m[2 * 19 + 3] = 1, m[7 * 19 + 15] = 2, m[13 * 19 + 1] = 3;
    const Array markers = input(ctx, dir, "markers.npy", mk);
    const Array mask = input(ctx, dir, "mask.npy", test::random(Shape{15, 19}, DType::uint8, 10, 0, 3));
    check_same(dir, {"watershed", "img.npy", "markers.npy"}, watershed(img, markers));
    check_same(dir, {"watershed", "img.npy", "markers.npy", "mask.npy", "--connectivity", "2"},
               watershed(img, markers, mask, 2));
    check_help(dir, "watershed", {"IMAGE", "MARKERS", "MASK", "--connectivity"});
    check_refused(dir, {"watershed", "img.npy", "markers.npy", "--connectivity", "4"}, 2, {"--connectivity", "whole number in [1, 3]"});
}

}  // namespace kiln
