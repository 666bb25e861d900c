// The `kiln` command line against hostile input (issue 13): every failure is
// a message and a documented exit code, never an abort; sizes are checked;
// a failed command leaves no output behind.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/run_cli.hpp"

using kiln::test::CliRun;
using kiln::test::make_full;
using kiln::test::names;
using kiln::test::run_kiln;
using kiln::test::TempDir;

namespace {

using Names = std::vector<std::string>;

// A primary FITS header (2880 bytes) declaring the axes, and one block of data.
void write_fits_header(const TempDir& dir, const std::string& name, const std::vector<std::string>& axes) {
    std::string h;
    const auto card = [&](const std::string& k, const std::string& v) {
        std::string c = k;
        c.resize(8, ' ');
        c += "= " + std::string(20 - v.size(), ' ') + v;
        c.resize(80, ' ');
        h += c;
    };
    card("SIMPLE", "T");
    card("BITPIX", "-32");
    card("NAXIS", std::to_string(axes.size()));
    for (size_t i = 0; i < axes.size(); ++i) card("NAXIS" + std::to_string(i + 1), axes[i]);
    h += std::string("END").append(77, ' ');
    h.append(2880 - h.size(), ' ');
    std::ofstream(dir.file(name), std::ios::binary) << h << std::string(2880, '\0');
}

}  // namespace

TEST_CASE("kiln maps every failure to a documented exit code with a message", "[cli]") {
    TempDir dir;
    make_full(dir, "a.npy", {"4", "4"}, "1");
    // 0: help lists the exit codes; --version.
    CliRun r = run_kiln(dir, {"--help"});
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("Exit codes: 0 success; 1 bad input") && Catch::Contains("3 out of memory") &&
                          Catch::Contains("4 I/O error"));
    CHECK(run_kiln(dir, {"--version"}).code == 0);
    // 2: usage errors from the parser.
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{}, {"no-such-command"}, {"copy", "a.npy"}, {"copy", "a.npy", "-o", "b.npy", "--bogus"},
          {"histogram", "a.npy", "--bins", "many"}}) {
        r = run_kiln(dir, args);
        INFO(r.what);
        CHECK(r.code == 2);
        CHECK_FALSE(r.err.empty());
    }
    // 3: out of memory, host or device (a terabyte-scale array: more than any device holds).
    r = run_kiln(dir, {"full", "--shape", "1000000", "1000000", "-o", "big.npy"});
    INFO(r.what);
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Catch::StartsWith("kiln: error: ") && Catch::Contains("needs 4000000000000 bytes"));
    // 4: I/O errors: a missing file, a truncated one, a FITS header declaring
    // 10^6 x 10^6 x 10^6 (it aborted with std::bad_alloc; now refused by size).
    r = run_kiln(dir, {"copy", "missing.npy", "-o", "b.npy"});
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("missing.npy") && Catch::Contains("No such file"));
    write_fits_header(dir, "cube.fits", {"1000000", "1000000", "1000000"});
    r = run_kiln(dir, {"copy", "cube.fits", "-o", "b.npy"});
    INFO(r.what);
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("4000000000000000000 bytes of data") && Catch::Contains("it has 5760"));
    // 1: bad input. --device beyond any integer aborted with std::out_of_range;
    // 2^32 no longer wraps to device 0.
    for (const char* device : {"99999999999999999999", "4294967296"}) {
        r = run_kiln(dir, {"--device", device, "copy", "a.npy", "-o", "b.npy"});
        INFO(r.what);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains("--device") && Catch::Contains(device) && Catch::Contains("out of range"));
    }
    r = run_kiln(dir, {"--device", "no-such-gpu", "copy", "a.npy", "-o", "b.npy"});
    CHECK(r.code == 1);
    CHECK(names(dir) == Names{"a.npy", "cube.fits"});
}

TEST_CASE("kiln refuses sizes outside their range before any work", "[cli]") {
    TempDir dir;
    // Issue 13: --size -1 became SIZE_MAX and overflowed the heap.
    for (const char* size : {"-1", "4294967296", "0", "63", "32769", "abc", "1e3", "0x40", "", "99999999999999999999"}) {
        const CliRun r = run_kiln(dir, {"synthetic-sky", "--size", size, "-o", "sky.npy"});
        INFO(r.what);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--size") && Catch::Contains("accepted: a whole number from 64 to 32768"));
    }
    for (const char* n : {"-5", "2147483648"}) {
        const CliRun r = run_kiln(dir, {"synthetic-sky", "--sources", n, "-o", "sky.npy"});
        INFO(r.what);
        CHECK(r.code == 2);
    }
    // Extents: not whole numbers are usage errors; shapes kiln cannot hold
    // are refused by Shape (it wrote a 128-byte NPY for 2^32 x 2^32).
    for (const char* extent : {"-1", "0", "1.5", "x"}) {
        const CliRun r = run_kiln(dir, {"full", "--shape", "3", extent, "-o", "f.npy"});
        INFO(r.what);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--shape") && Catch::Contains("from 1 to 2^60"));
    }
    const CliRun big = run_kiln(dir, {"full", "--shape", "4294967296", "4294967296", "-o", "f.npy"});
    INFO(big.what);
    CHECK(big.code == 1);
    CHECK_THAT(big.err, Catch::Contains("(4294967296, 4294967296)") && Catch::Contains("at most 2^60"));
    CHECK(run_kiln(dir, {"full", "--shape", "2", "2", "2", "2", "-o", "f.npy"}).code == 1);
    CHECK(run_kiln(dir, {"bincount", "f.npy", "--minlength", "-1"}).code == 2);
    CHECK(names(dir).empty());
    // In range: done.
    const CliRun ok = run_kiln(dir, {"synthetic-sky", "--size", "64", "--sources", "3", "-o", "sky.fits"});
    INFO(ok.what);
    CHECK(ok.code == 0);
    CHECK(names(dir) == Names{"sky.fits"});
}

TEST_CASE("kiln writes all of a command's outputs or none", "[cli]") {
    TempDir dir;
    make_full(dir, "frame.npy", {"32", "32"}, "5");
    const std::vector<std::string> integrate = {"integrate-azimuthal", "frame.npy", "--bins", "8", "--pixel",
                                                "1e-3", "-o", "out.npy"};
    const auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = integrate;
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    };
    // Issue 13: out.npy was written, then --errors failed. Now nothing is,
    // and the message says why.
    CliRun r = run_kiln(dir, with({"--errors", "/missing/dir/e.npy"}));
    INFO(r.what);
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("/missing/dir/e.npy") && Catch::Contains("does not exist") &&
                          Catch::Contains("No such file or directory"));
    CHECK(names(dir) == Names{"frame.npy"});
    r = run_kiln(dir, {"--trace", "/missing/t.json", "integrate-azimuthal", "frame.npy", "--bins", "8", "-o", "out.npy"});
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("/missing/t.json") && Catch::Contains("No such file or directory"));
    CHECK(names(dir) == Names{"frame.npy"});
    // A parent that is a file, a directory as output, one output named twice,
    // a directory no one may write (/proc, even for root).
    for (const auto& [extra, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--radial", "frame.npy/r.npy"}, "Not a directory"},
             {{"--radial", "out.npy"}, "named twice"},
             {{"--radial", "/proc/kiln_r.npy"}, "cannot create a file in directory '/proc'"}}) {
        r = run_kiln(dir, with(extra));
        INFO(r.what);
        CHECK(r.code == 4);
        CHECK_THAT(r.err, Catch::Contains(says));
        CHECK(names(dir) == Names{"frame.npy"});
    }
    std::filesystem::create_directory(dir.path / "d.npy");
    r = run_kiln(dir, with({"--radial", "d.npy"}));
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("'d.npy' cannot be written: it is a directory"));
    std::filesystem::remove(dir.path / "d.npy");
    CHECK(names(dir) == Names{"frame.npy"});
    if (::geteuid() != 0) {  // root writes anywhere
        std::filesystem::create_directory(dir.path / "ro");
        std::filesystem::permissions(dir.path / "ro", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
        r = run_kiln(dir, with({"--errors", "ro/e.npy"}));
        CHECK(r.code == 4);
        CHECK_THAT(r.err, Catch::Contains("Permission denied"));
        std::filesystem::permissions(dir.path / "ro", std::filesystem::perms::owner_all);
        std::filesystem::remove(dir.path / "ro");
    }
    // An extension kiln cannot write, refused before the work; a writer's
    // refusal names the output, not the temporary it writes first.
    r = run_kiln(dir, {"copy", "frame.npy", "-o", "frame.txt"});
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("output 'frame.txt': unknown file type"));
    make_full(dir, "line.npy", {"5"}, "1");
    r = run_kiln(dir, {"copy", "line.npy", "-o", "line.png"});
    INFO(r.what);
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("'line.png': PNG output needs a 2-D array") && !Catch::Contains("kiln-"));
    r = run_kiln(dir, {"copy", "line.npy", "-o", "line.tif"});
    INFO(r.what);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("'line.tif': the array has shape (5,); TIFF holds 2-D") && !Catch::Contains("kiln-"));
    std::filesystem::remove(dir.path / "line.npy");
    CHECK(names(dir) == Names{"frame.npy"});
    // A failure after the outputs were claimed (the op refuses its input):
    // no output, no temporary.
    make_full(dir, "nan.npy", {"5"}, "nan");
    r = run_kiln(dir, {"--trace", "t.json", "histogram", "nan.npy", "-o", "counts.npy"});
    INFO(r.what);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("none of the 5 values is finite"));
    CHECK(names(dir) == Names{"frame.npy", "nan.npy"});
    // A truncated input: likewise.
    std::filesystem::resize_file(dir.path / "nan.npy", 130);
    r = run_kiln(dir, {"copy", "nan.npy", "-o", "copy.npy"});
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("truncated data"));
    CHECK(names(dir) == Names{"frame.npy", "nan.npy"});
    // All succeed: all are there, and nothing else.
    r = run_kiln(dir, with({"--errors", "e.npy", "--radial", "r.npy", "--trace", "t.json"}));
    INFO(r.what);
    CHECK(r.code == 0);
    CHECK(names(dir) == Names{"e.npy", "frame.npy", "nan.npy", "out.npy", "r.npy", "t.json"});
}
