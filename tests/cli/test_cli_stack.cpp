// integrate-azimuthal on long stacks (kiln/stack_integration.hpp behind it):
// each output format read back against the C++ API's integration of the
// same frames, pyFAI's text header, --poni/--detector against the explicit
// geometry, several input files and an Eiger master file against the
// concatenated stack, an interrupted run keeping exactly its finished
// frames, and what is printed (progress on a terminal only, -q, -v).
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "bslz4_support.hpp"
#include "cli/run_cli.hpp"
#include "cli/stack_support.hpp"
#include "io/fp_env.hpp"
#include "kiln/azimuthal.hpp"
#include "kiln/detector.hpp"
#include "kiln/io.hpp"
#include "kiln/profile_io.hpp"
#include "kiln/stack_integration.hpp"
#include "support.hpp"

using namespace kiln;
using kiln::test::CliRun;
using kiln::test::run_kiln;
using kiln::test::TempDir;
using namespace kiln::test::stack;

namespace {

namespace fs = std::filesystem;

// A float32 dataset of an HDF5 file with its dimensions.
std::vector<float> h5_floats(const std::string& path, const std::string& name, std::vector<hsize_t>& dims) {
    io::FloatEnvGuard fp;
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    REQUIRE(d >= 0);
    hid_t space = H5Dget_space(d);
    dims.assign(size_t(H5Sget_simple_extent_ndims(space)), 0);
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    size_t n = 1;
    for (hsize_t x : dims) n *= x;
    std::vector<float> v(n);
    REQUIRE(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    return v;
}

std::string h5_string_attribute(const std::string& path, const std::string& object, const std::string& name) {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t a = H5Aopen_by_name(f, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(a >= 0);
    hid_t t = H5Aget_type(a);
    std::string s(H5Tget_size(t), '\0');
    H5Aread(a, t, s.data());
    H5Tclose(t);
    H5Aclose(a);
    H5Fclose(f);
    return s.substr(0, s.find('\0'));
}

double h5_double_attribute(const std::string& path, const std::string& name) {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t a = H5Aopen_by_name(f, "/", name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(a >= 0);
    double v = 0;
    H5Aread(a, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(a);
    H5Fclose(f);
    return v;
}

// A pyFAI text profile: its '#' lines and its columns.
struct TextProfile {
    std::vector<std::string> header;
    std::vector<std::vector<double>> columns;
};
TextProfile read_text(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in);
    TextProfile t;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("#", 0) == 0) {
            t.header.push_back(line);
            continue;
        }
        std::istringstream ss(line);
        std::vector<double> row;
        for (double x; ss >> x;) row.push_back(x);
        if (t.columns.empty()) t.columns.resize(row.size());
        REQUIRE(row.size() == t.columns.size());
        for (size_t i = 0; i < row.size(); ++i) t.columns[i].push_back(row[i]);
    }
    return t;
}

// Within the text format's "%14.6e": 7 significant digits, half an ulp of
// the last one.
void check_printed(double got, double want) {
    CHECK(std::abs(got - want) <= 5.01e-7 * std::abs(want) + 1e-30);
}

}  // namespace

TEST_CASE("cli integrate-azimuthal writes .npy, .h5 and .xy profiles equal to the C++ API's",
          "[cli][azimuthal][stack]") {
    const StackFixture fx(10, 100, "stack.h5");
    const TempDir& dir = fx.dir;
    const Reference& want = fx.want;
    // Batches of 4: the last one is partial.
    const auto base = with({"integrate-azimuthal", "stack.h5", "--batch", "4"}, geometry_args);
    CliRun r = run_kiln(dir, with(base, {"-o", "out.npy", "--errors", "err.npy", "--radial", "q.npy"}));
    INFO(r.what);
    REQUIRE(r.code == 0);
    // The same GPU kernels per frame, in batches or all at once: the same floats.
    Shape shape;
    CHECK(npy_floats(dir.file("out.npy"), &shape) == want.intensity);
    CHECK(shape == Shape{10, bins});
    CHECK(npy_floats(dir.file("err.npy")) == want.sigma);

    r = run_kiln(dir, with(base, {"-o", "out.h5"}));
    INFO(r.what);
    REQUIRE(r.code == 0);
    std::vector<hsize_t> dims;
    CHECK(h5_floats(dir.file("out.h5"), "intensity", dims) == want.intensity);
    CHECK(dims == std::vector<hsize_t>{10, bins});
    CHECK(h5_floats(dir.file("out.h5"), "sigma", dims) == want.sigma);
    CHECK(h5_floats(dir.file("out.h5"), "std", dims) == want.std);
    CHECK(h5_floats(dir.file("out.h5"), "count", dims) == want.count);
    const auto radial = h5_floats(dir.file("out.h5"), "radial", dims);
    REQUIRE(dims == std::vector<hsize_t>{bins});
    for (size_t b = 0; b < bins; ++b) CHECK(radial[b] == float(want.radial[b]));
    CHECK(h5_string_attribute(dir.file("out.h5"), "radial", "unit") == "q_nm^-1");
    CHECK(h5_string_attribute(dir.file("out.h5"), "/", "detector") == "Detector");
    CHECK(h5_double_attribute(dir.file("out.h5"), "dist") == 0.05);
    CHECK(h5_double_attribute(dir.file("out.h5"), "poni2") == 0.013);

    // Text: one file per frame, columns radial, I, sigma as printed.
    r = run_kiln(dir, with(base, {"-o", "out.xy"}));
    INFO(r.what);
    REQUIRE(r.code == 0);
    CHECK(!fs::exists(dir.file("out.xy")));
    CHECK(!fs::exists(dir.file("out_00010.xy")));
    for (size_t k = 0; k < 10; ++k) {
        const std::string name = io::TextProfileWriter::frame_file("out.xy", k);
        INFO(name);
        const TextProfile t = read_text(dir.file(name));
        REQUIRE(t.columns.size() == 3);
        REQUIRE(t.columns[0].size() == bins);
        CHECK(t.header[t.header.size() - 2] == "# --> " + name);
        for (size_t b = 0; b < bins; ++b) {
            check_printed(t.columns[0][b], want.radial[b]);
            check_printed(t.columns[1][b], want.intensity[k * bins + b]);
            check_printed(t.columns[2][b], want.sigma[k * bins + b]);
        }
    }
    // Nothing else was left behind (no temporaries).
    for (const auto& n : test::names(dir)) CHECK(n.find(".kiln-") == std::string::npos);
    // An extension it cannot write is refused before any work.
    r = run_kiln(dir, with(base, {"-o", "out.csv"}));
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("out.csv") && Catch::Contains(".npy, .h5"));
}

TEST_CASE("cli integrate-azimuthal's .xy is pyFAI 0.21's save1D format", "[cli][azimuthal][stack][pyfai]") {
    // tests/data/pyfai/make_xy_fixture.py: pyFAI integrated frame.npy with
    // generic_v2.poni into 29 q bins over [0.5, 5] nm^-1 and wrote this.
    TempDir dir;
    const std::string data = std::string(KILN_TEST_DATA) + "/pyfai/";
    const CliRun r = run_kiln(dir, {"integrate-azimuthal", data + "frame.npy", "--poni", data + "generic_v2.poni",
                                    "--bins", "29", "--unit", "q_nm^-1", "--range", "0.5", "5", "-o", "p.xy"});
    INFO(r.what);
    REQUIRE(r.code == 0);
    const TextProfile got = read_text(dir.file("p.xy")), want = read_text(data + "profile_q_nm.xy");
    REQUIRE(got.header.size() == want.header.size());
    for (size_t i = 0; i < want.header.size(); ++i) {
        if (want.header[i].rfind("# -->", 0) == 0) {
            CHECK(got.header[i] == "# --> p.xy");  // the file's own name
            continue;
        }
        CHECK(got.header[i] == want.header[i]);
    }
    REQUIRE(got.columns.size() == 3);
    REQUIRE(got.columns[0].size() == 29);
    // Bin 0 differs by design (tests/cpu/test_pyfai_ref.cpp): pyFAI 0.21's
    // engine truncates bin indices toward zero, so pixels up to a bin below
    // the range's lower edge count in its bin 0; kiln leaves them out.
    CHECK(got.columns[1][0] != want.columns[1][0]);
    for (size_t b = 1; b < 29; ++b) {
        INFO("bin " << b);
        // Both files print 7 significant digits (half a unit of the last is
        // up to 5e-7 relative, each side). pyFAI keeps radial positions in
        // float32 (7.000001 for 7): 1.2e-7 more.
        const auto close = [](double g, double w, double extra) {
            return std::abs(g - w) <= (1e-6 + extra) * std::abs(w);
        };
        CHECK(close(got.columns[0][b], want.columns[0][b], 1.2e-7));
        // pyFAI 0.21's CSR engine sums float32 values: a float32 ulp or two
        // over the bin's few dozen pixels. (Seen: 2e-7.)
        CHECK(close(got.columns[1][b], want.columns[1][b], 5e-7));
        CHECK(close(got.columns[2][b], want.columns[2][b], 5e-7));
    }
}

TEST_CASE("cli integrate-azimuthal --poni and --detector give the explicit geometry's profiles",
          "[cli][azimuthal][stack][poni]") {
    TempDir dir;
    const std::string data = std::string(KILN_TEST_DATA) + "/pyfai/";
    // generic_v2.poni: rectangular pixels, all three rotations (poni.txt).
    const std::vector<std::string> explicit_geometry = {
        "--dist", "0.05", "--poni1", "0.0013725", "--poni2", "0.00206", "--rot1", "0.02", "--rot2", "-0.03",
        "--rot3", "0.1", "--pixel1", "7.5e-05", "--pixel2", "0.0001", "--wavelength", "1e-10"};
    const auto run = [&](const std::vector<std::string>& extra, const std::string& out) {
        const CliRun r = run_kiln(dir, with({"integrate-azimuthal", data + "frame.npy", "--bins", "20", "-o", out}, extra));
        INFO(r.what);
        REQUIRE(r.code == 0);
        return npy_floats(dir.file(out));
    };
    CHECK(run({"--poni", data + "generic_v2.poni"}, "poni.npy") == run(explicit_geometry, "explicit.npy"));
    // Options given on the command line override the file's.
    auto moved = explicit_geometry;
    moved[1] = "0.06";
    moved[15] = "0.0002";
    CHECK(run({"--poni", data + "generic_v2.poni", "--dist", "0.06", "--pixel2", "0.0002"}, "poni_moved.npy") ==
          run(moved, "explicit_moved.npy"));

    // A detector: its pixel sizes and its gap mask, OR-ed with --mask.
    const Detector pilatus = detector_by_name("Pilatus200k");
    const auto frames = make_frames(2, 7, pilatus.rows, pilatus.cols);
    write_stack(dir.file("pilatus.h5"), frames);
    std::vector<uint8_t> user(pilatus.rows * pilatus.cols, 0);
    for (size_t i = 0; i < user.size(); i += 7) user[i] = 1;
    io::write_npy(dir.file("user.npy"), HostArray::from(Shape{pilatus.rows, pilatus.cols}, user));
    std::vector<uint8_t> both = pilatus.mask();
    REQUIRE(std::count(both.begin(), both.end(), 1) > 0);
    for (size_t i = 0; i < both.size(); ++i) both[i] |= user[i];
    io::write_npy(dir.file("both.npy"), HostArray::from(Shape{pilatus.rows, pilatus.cols}, both));
    const auto run_stack = [&](const std::vector<std::string>& extra, const std::string& out) {
        const CliRun r = run_kiln(dir, with({"integrate-azimuthal", "pilatus.h5", "--bins", "20", "--dist", "0.2",
                                             "--poni1", "0.03", "--poni2", "0.04", "-o", out},
                                            extra));
        INFO(r.what);
        REQUIRE(r.code == 0);
        return npy_floats(dir.file(out));
    };
    CHECK(run_stack({"--detector", "Pilatus200k", "--mask", "user.npy"}, "det.npy") ==
          run_stack({"--pixel", "172e-6", "--mask", "both.npy"}, "det_explicit.npy"));

    // Frames of another shape than the detector's or the .poni's are refused.
    const auto small = make_frames(1, 3);
    write_stack(dir.file("small.h5"), small);
    CliRun r = run_kiln(dir, {"integrate-azimuthal", "small.h5", "--detector", "Pilatus200k", "-o", "x.npy"});
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("407x487") && Catch::Contains("24x30") && Catch::Contains("Pilatus200k"));
    r = run_kiln(dir, {"integrate-azimuthal", "small.h5", "--poni", data + "generic_v2.poni", "-o", "x.npy"});
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("37x41") && Catch::Contains("24x30") && Catch::Contains("generic_v2.poni"));
    CHECK(!fs::exists(dir.file("x.npy")));
}

TEST_CASE("cli integrate-azimuthal integrates several files and an Eiger master file as one stack",
          "[cli][azimuthal][stack]") {
    TempDir dir;
    const auto a = make_frames(6, 1), b = make_frames(5, 50);
    write_stack(dir.file("series_data_000001.h5"), a);
    write_stack(dir.file("series_data_000002.h5"), b);
    auto all = a;
    all.insert(all.end(), b.begin(), b.end());
    write_stack(dir.file("all.h5"), all);
    {
        // A master file as Dectris writes it: /entry/data/data_00000N, external links.
        io::FloatEnvGuard fp;
        hid_t f = H5Fcreate(dir.file("series_master.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(lcpl, 1);
        REQUIRE(H5Lcreate_external("series_data_000002.h5", "/entry/data/data", f, "/entry/data/data_000002", lcpl,
                                   H5P_DEFAULT) >= 0);
        REQUIRE(H5Lcreate_external("series_data_000001.h5", "/entry/data/data", f, "/entry/data/data_000001", lcpl,
                                   H5P_DEFAULT) >= 0);
        H5Pclose(lcpl);
        H5Fclose(f);
    }
    const auto run = [&](std::vector<std::string> inputs, const std::string& out, const std::string& batch) {
        std::vector<std::string> args = {"integrate-azimuthal"};
        args.insert(args.end(), inputs.begin(), inputs.end());
        const CliRun r = run_kiln(dir, with(with(args, {"-o", out, "--batch", batch, "-v"}), geometry_args));
        INFO(r.what);
        REQUIRE(r.code == 0);
        return std::make_pair(npy_floats(dir.file(out)), r.err);
    };
    const auto whole = run({"all.h5"}, "all.npy", "4");
    CHECK(whole.first.size() == 11 * bins);
    // Batches that straddle the two files.
    const auto two = run({"series_data_000001.h5", "series_data_000002.h5"}, "two.npy", "4");
    CHECK(two.first == whole.first);
    CHECK_THAT(two.second, Catch::Contains("frames: 11 of 24x30 uint32 in 2 files"));
    const auto master = run({"series_master.h5"}, "master.npy", "3");
    CHECK(master.first == whole.first);
    CHECK_THAT(master.second, Catch::Contains("series_data_000001.h5:/entry/data/data: frames 0 to 5") &&
                                  Catch::Contains("series_data_000002.h5:/entry/data/data: frames 6 to 10"));
    // Inputs whose frames differ are refused, naming both.
    write_stack(dir.file("other.h5"), make_frames(2, 9, rows + 1, cols));
    const CliRun r = run_kiln(dir, with({"integrate-azimuthal", "all.h5", "other.h5", "-o", "x.npy"}, geometry_args));
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("other.h5") && Catch::Contains("25x30") && Catch::Contains("24x30"));
}

namespace {

// Starts kiln in `dir` with stdout and stderr to files there; returns its pid.
pid_t spawn_kiln(const TempDir& dir, const std::vector<std::string>& args, const std::string& out,
                 const std::string& err) {
    const std::string binary = test::kiln_binary();
    std::vector<std::string> argv_s = {binary};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    const pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir.path.c_str()) != 0) _exit(126);
        const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int in = open("/dev/null", O_RDONLY);
        dup2(in, 0);
        dup2(o, 1);
        dup2(e, 2);
        std::vector<char*> argv;
        for (auto& s : argv_s) argv.push_back(s.data());
        argv.push_back(nullptr);
        execv(binary.c_str(), argv.data());
        _exit(127);
    }
    return pid;
}

int wait_status(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Waits until `done` says so (polling), at most a minute.
template <typename F> bool wait_for(F&& done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    return true;
}

}  // namespace

TEST_CASE("cli integrate-azimuthal stopped by Ctrl-C keeps exactly the finished frames", "[cli][azimuthal][stack]") {
    TempDir dir;
    constexpr size_t total = 400;
    write_stack(dir.file("long.h5"), make_frames(total, 1000, 16, 20));
    const std::vector<std::string> args = {"integrate-azimuthal", "long.h5", "--bins", "8", "--pixel", "1e-3",
                                           "--dist", "0.05", "--batch", "2", "-o", "out.xy", "--errors", "e.npy"};
    const std::string out = dir.path.string() + ".out", err = dir.path.string() + ".err";
    // The whole run, for reference.
    const CliRun r = run_kiln(dir, {"integrate-azimuthal", "long.h5", "--bins", "8", "--pixel", "1e-3", "--dist", "0.05",
                              "--batch", "2", "-o", "whole.npy", "--errors", "whole_e.npy"});
    REQUIRE(r.code == 0);
    const auto whole_sigma = npy_floats(dir.file("whole_e.npy"));

    // SIGINT once the first frame's file is there: the batches under way
    // finish and are written, then the files are closed.
    const pid_t pid = spawn_kiln(dir, args, out, err);
    REQUIRE(wait_for([&] { return fs::exists(dir.file("out_00000.xy")); }));
    kill(pid, SIGINT);
    const int code = wait_status(pid);
    const std::string said = slurp(err);
    INFO(said);
    CHECK(code == 130);
    const std::string marker = "interrupted: ";
    const size_t at = said.find(marker);
    REQUIRE(at != std::string::npos);
    const size_t n = std::stoul(said.substr(at + marker.size()));
    CHECK_THAT(said, Catch::Contains(" of 400 frames written to out_00000.xy..."));
    CHECK(n >= 1);
    CHECK(n < total);
    Shape shape;
    const auto sigma = npy_floats(dir.file("e.npy"), &shape);
    CHECK(shape == Shape{n, 8});
    CHECK(std::vector<float>(whole_sigma.begin(), whole_sigma.begin() + long(n * 8)) == sigma);
    for (size_t k = 0; k < n; ++k) CHECK(fs::exists(dir.file(io::TextProfileWriter::frame_file("out.xy", k))));
    CHECK(!fs::exists(dir.file(io::TextProfileWriter::frame_file("out.xy", n))));
    for (const auto& name : test::names(dir)) CHECK(name.find(".kiln-") == std::string::npos);

    // A second Ctrl-C stops at once: the .npy's temporary is removed, no
    // file is half-written. (Larger batches, so that the first signal's
    // batches are still running when the second comes; two signals sent
    // back to back would merge into one.)
    write_stack(dir.file("big.h5"), make_frames(320, 5, 256, 256));
    const pid_t again = spawn_kiln(dir, {"integrate-azimuthal", "big.h5", "--bins", "8", "--pixel", "1e-3",
                                         "--dist", "0.05", "--batch", "32", "-o", "again.xy", "--errors", "again.npy"},
                                   out, err);
    REQUIRE(wait_for([&] { return fs::exists(dir.file("again_00000.xy")); }));
    kill(again, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    kill(again, SIGINT);
    CHECK(wait_status(again) == 130);
    const std::string said_again = slurp(err);
    INFO(said_again);
    if (said_again.find("interrupted again") != std::string::npos)
        CHECK(!fs::exists(dir.file("again.npy")));
    else  // a fast device finished the first signal's batches before the second came
        CHECK_THAT(said_again, Catch::Contains("interrupted: "));
    for (const auto& name : test::names(dir)) CHECK(name.find(".kiln-") == std::string::npos);
    fs::remove(out);
    fs::remove(err);
}

TEST_CASE("cli integrate-azimuthal prints progress on a terminal only, nothing with -q, the set-up with -v",
          "[cli][azimuthal][stack]") {
    TempDir dir;
    write_stack(dir.file("s.h5"), make_frames(6, 3));
    const auto base = with({"integrate-azimuthal", "s.h5", "--batch", "2"}, geometry_args);
    // stderr is not a terminal here: no progress line.
    CliRun r = run_kiln(dir, with(base, {"-o", "a.npy"}));
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    CHECK_THAT(r.out, Catch::StartsWith("integrated 6 frames into 16 bins"));
    r = run_kiln(dir, with(base, {"-o", "b.npy", "-q"}));
    REQUIRE(r.code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
    r = run_kiln(dir, with(base, {"-o", "c.npy", "-v"}));
    REQUIRE(r.code == 0);
    for (const char* line : {"frames: 6 of 24x30 uint32 in 1 file", "geometry: dist 0.05 m", "matrix: 16 bins of q_nm^-1",
                             "device: ", "batch: 2 frames", "summary: 6 frames"})
        CHECK_THAT(r.err, Catch::Contains(line));
    // On a terminal (script(1) gives kiln one), a progress line redrawn in place.
    if (std::system("command -v script >/dev/null 2>&1") == 0) {
        std::string command = "cd '" + dir.path.string() + "' && script -qec \"'" + test::kiln_binary() + "'";
        for (const auto& a : with(base, {"-o", "d.npy"})) command += " " + a;
        command += "\" /dev/null > tty.txt 2>&1";
        REQUIRE(std::system(command.c_str()) == 0);
        const std::string tty = slurp(dir.file("tty.txt"));
        CHECK_THAT(tty, Catch::Contains("\r") && Catch::Contains("6/6 frames") && Catch::Contains("frames/s"));
        fs::remove(dir.file("tty.txt"));
    }
}

TEST_CASE("integrate_stack stops at a batch boundary and the .npy holds exactly the frames written",
          "[azimuthal][stack]") {
    const StackFixture fx(9, 77, "s.h5");
    const TempDir& dir = fx.dir;
    const Reference& want = fx.want;
    Context ctx = test::context();
    const FrameStack stack({dir.file("s.h5")});
    CHECK(stack.frames() == 9);
    CHECK(stack.gpu_decodable());
    const AzimuthalIntegrator integ(ctx, setup_of_args());
    std::atomic<bool> stop{false};
    StackOptions o;
    o.batch = 2;
    o.stop = &stop;
    o.progress = [&](const StackProgress& p) {
        if (p.done >= 2) stop = true;  // asked to stop after the first batch is written
    };
    io::NpyProfileWriter npy(dir.file("p.npy"), "intensity");
    const StackSummary s = integrate_stack(ctx, integ, stack, npy, o);
    CHECK(s.stopped);
    CHECK(s.total == 9);
    // The batches launched beside the first one (up to its two other
    // slots) are finished and written too.
    CHECK((s.frames == 2 || s.frames == 4 || s.frames == 6));
    Shape shape;
    const auto got = npy_floats(dir.file("p.npy"), &shape);
    CHECK(shape == Shape{s.frames, bins});
    CHECK(got == std::vector<float>(want.intensity.begin(), want.intensity.begin() + long(s.frames * bins)));
    // Host decoding gives the same profiles.
    o.stop = nullptr;
    o.cpu_decompress = true;
    o.readers = 3;
    io::NpyProfileWriter all(dir.file("all.npy"), "intensity");
    const StackSummary s2 = integrate_stack(ctx, integ, stack, all, o);
    CHECK(s2.frames == 9);
    CHECK(npy_floats(dir.file("all.npy")) == want.intensity);
}

TEST_CASE("integrate_stack on several contexts gives the one-device profiles, in frame order", "[azimuthal][stack]") {
    // Contexts of their own on the one device stand in for several GPUs:
    // each integrates every N-th batch, the sink gets them in order.
    const StackFixture fx(11, 91, "m.h5");
    const TempDir& dir = fx.dir;
    const FrameStack stack({dir.file("m.h5")});
    std::vector<Context> devices{test::context(), test::context(), test::context()};
    for (size_t n : {1, 2, 3}) {
        for (bool host : {false, true}) {
            INFO(n << " contexts, decoded on the " << (host ? "host" : "GPU"));
            StackOptions o;
            o.batch = 2;  // 6 batches, the last of one frame
            o.cpu_decompress = host;
            o.fields = {"intensity", "sigma"};
            size_t last = 0;
            bool ordered = true;
            o.progress = [&](const StackProgress& p) {
                ordered = ordered && p.done > last;
                last = p.done;
            };
            const std::string out = dir.file("m" + std::to_string(n) + (host ? "h" : "g") + ".npy");
            io::NpyProfileWriter npy(out, "intensity");
            const StackSummary s = integrate_stack(std::vector<Context>(devices.begin(), devices.begin() + long(n)),
                                                   setup_of_args(), stack, npy, o);
            CHECK(s.devices == n);
            CHECK(s.frames == 11);
            CHECK_FALSE(s.stopped);
            // Stage times: each within its threads' wall time (readers, a
            // thread per device, the writing thread), and the work done
            // took time.
            const StackStages& t = s.stages;
            CHECK(t.read > 0);
            CHECK(t.parse > 0);
            CHECK(t.submit > 0);
            CHECK(t.write > 0);
            CHECK(t.read + t.read_wait <= s.readers * s.seconds);
            CHECK(t.input_wait + t.parse + t.submit + t.gpu_wait + t.slot_wait <= n * s.seconds);
            CHECK(t.results_wait + t.write <= s.seconds);
            CHECK(t.index + t.setup <= s.seconds);
            CHECK(ordered);
            CHECK(last == 11);
            CHECK(npy_floats(out) == fx.want.intensity);
        }
    }
    // More contexts than batches: the spare ones take none.
    StackOptions o;
    o.batch = 8;
    io::NpyProfileWriter npy(dir.file("few.npy"), "intensity");
    const StackSummary s = integrate_stack(devices, setup_of_args(), stack, npy, o);
    CHECK(s.devices == 2);
    CHECK(npy_floats(dir.file("few.npy")) == fx.want.intensity);
    CHECK_THROWS_AS(integrate_stack(std::vector<Context>{}, setup_of_args(), stack, npy, o), InvalidArgument);
}

TEST_CASE("integrate_stack's shares of the batches together give the whole stack's profiles",
          "[azimuthal][stack]") {
    // What each MPI rank of `kiln integrate-azimuthal` runs: every
    // shards-th batch. A sink keeping what it gets checks each share holds
    // exactly its batches, in order, with the whole run's profiles.
    struct Keeping : io::ProfileSink {
        size_t frames = 0, values = 0, finished = 0;
        bool begun = false;
        std::vector<std::pair<size_t, size_t>> batches;  // (first, n)
        std::vector<float> got;                          // intensity by frame, NaN where not written
        void begin(const io::ProfileLayout& l) override {
            begun = true;
            frames = l.frames;
            values = l.frame_values();
            got.assign(frames * values, std::nanf(""));
        }
        void write(size_t first, size_t n, std::span<const float* const> f) override {
            batches.emplace_back(first, n);
            std::copy(f[0], f[0] + n * values, got.begin() + long(first * values));
        }
        void finish(size_t n) override { finished = n; }
    };
    const StackFixture fx(11, 95, "s.h5");
    const FrameStack stack({fx.dir.file("s.h5")});
    for (size_t contexts : {1, 2}) {
        for (bool host : {false, true}) {
            INFO(contexts << " contexts, decoded on the " << (host ? "host" : "GPU"));
            std::vector<Context> devices;
            for (size_t k = 0; k < contexts; ++k) devices.push_back(test::context());
            // 6 batches of 2 frames (the last of one) in 3 shares, then 7
            // shares: the last holds no batch.
            for (size_t shards : {3, 7}) {
                std::vector<float> whole(fx.want.intensity.size(), std::nanf(""));
                for (size_t shard = 0; shard < shards; ++shard) {
                    INFO("share " << shard << " of " << shards);
                    StackOptions o;
                    o.batch = 2;
                    o.cpu_decompress = host;
                    o.shards = shards;
                    o.shard = shard;
                    size_t last_total = 0;
                    o.progress = [&](const StackProgress& p) { last_total = p.total; };
                    Keeping sink;
                    const StackSummary s = integrate_stack(devices, setup_of_args(), stack, sink, o);
                    std::vector<std::pair<size_t, size_t>> want;
                    for (size_t b = shard; b < 6; b += shards) want.emplace_back(2 * b, b == 5 ? 1 : 2);
                    size_t frames = 0;
                    for (const auto& w : want) frames += w.second;
                    CHECK(sink.begun);
                    CHECK(sink.frames == 11);
                    CHECK(sink.batches == want);
                    CHECK(sink.finished == frames);
                    CHECK(s.frames == frames);
                    CHECK(s.total == 11);
                    CHECK_FALSE(s.stopped);
                    CHECK(s.devices == std::min(contexts, want.size()));
                    if (!want.empty()) CHECK(last_total == frames);
                    for (const auto& [first, n] : want)
                        for (size_t k = first * bins; k < (first + n) * bins; ++k) whole[k] = sink.got[k];
                }
                CHECK(whole == fx.want.intensity);
            }
        }
    }
    Keeping sink;
    StackOptions o;
    o.shards = 0;
    CHECK_THROWS_WITH(integrate_stack(test::context(), AzimuthalIntegrator(test::context(), setup_of_args()), stack,
                                      sink, o),
                      Catch::Matchers::Contains("shards >= 1"));
    o.shards = 2;
    o.shard = 2;
    CHECK_THROWS_AS(integrate_stack(std::vector<Context>{test::context()}, setup_of_args(), stack, sink, o),
                    InvalidArgument);
}

TEST_CASE("cli integrate-azimuthal --devices gives the one-device profiles", "[cli][azimuthal][stack]") {
    const StackFixture fx(9, 94, "d.h5");
    const TempDir& dir = fx.dir;
    const auto base = with({"integrate-azimuthal", "d.h5", "--batch", "2"}, geometry_args);
    // Three contexts on the one device (lavapipe's, in CI), and every device.
    for (const std::string& spec : {std::string("0,0,0"), std::string("all")}) {
        CliRun r = run_kiln(dir, with(base, {"-o", "dev.h5", "--devices", spec, "--json"}));
        INFO(r.what);
        REQUIRE(r.code == 0);
        std::vector<hsize_t> dims;
        CHECK(h5_floats(dir.file("dev.h5"), "intensity", dims) == fx.want.intensity);
        CHECK(h5_floats(dir.file("dev.h5"), "sigma", dims) == fx.want.sigma);
        CHECK(h5_floats(dir.file("dev.h5"), "count", dims) == fx.want.count);
        if (spec != "all") CHECK(r.out.find("\"devices\": 3") != std::string::npos);
    }
    // What --devices refuses, and says why.
    const std::vector<std::pair<std::vector<std::string>, std::string>> bad{
        {{"--devices", "0,,0"}, "an empty entry"},
        {{"--devices", "99"}, "--devices"},
        {{"--devices", "0", "--device", "0"}, "--device and --devices"},
    };
    for (const auto& [args, message] : bad) {
        CliRun r = run_kiln(dir, with(with(base, {"-o", "bad.npy"}), args));
        INFO(r.what);
        CHECK(r.code != 0);
        CHECK(r.err.find(message) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir.file("bad.npy")));
    }
}

TEST_CASE("integrate_stack on several contexts stops every device when the sink fails", "[azimuthal][stack]") {
    // A sink that checks the order of what it gets and fails at its third
    // batch: the error comes out, every device's thread ends, no output file.
    struct Failing : io::ProfileSink {
        io::NpyProfileWriter inner;
        size_t writes = 0, next = 0;
        explicit Failing(const std::string& path) : inner(path, "intensity") {}
        void begin(const io::ProfileLayout& l) override { inner.begin(l); }
        void write(size_t first, size_t n, std::span<const float* const> f) override {
            REQUIRE(first == next);
            next += n;
            if (++writes == 3) throw IoError("disk full (test)");
            inner.write(first, n, f);
        }
        void finish(size_t frames) override { inner.finish(frames); }
    };
    const StackFixture fx(12, 93, "f.h5");
    const FrameStack stack({fx.dir.file("f.h5")});
    std::vector<Context> devices{test::context(), test::context()};
    StackOptions o;
    o.batch = 2;
    const std::string path = fx.dir.file("f.npy");
    {
        Failing sink(path);
        CHECK_THROWS_WITH(integrate_stack(devices, setup_of_args(), stack, sink, o),
                          Catch::Matchers::Contains("disk full (test)"));
        CHECK(sink.writes == 3);
    }
    CHECK_FALSE(std::filesystem::exists(path));
    // The contexts are idle and usable: the same run again, whole.
    io::NpyProfileWriter npy(path, "intensity");
    CHECK(integrate_stack(devices, setup_of_args(), stack, npy, o).frames == 12);
    CHECK(npy_floats(path) == fx.want.intensity);
}

TEST_CASE("cli integrate-azimuthal's cake, sector, splitting, error models, clipping and medfilt equal the C++ API's",
          "[cli][azimuthal][stack]") {
    const StackFixture fx(5, 300, "stack.h5");
    const TempDir& dir = fx.dir;
    Context ctx = test::context();
    std::vector<uint32_t> all;
    for (const auto& f : fx.frames) all.insert(all.end(), f.as<uint32_t>().begin(), f.as<uint32_t>().end());
    const Array frames = Array::from_host(ctx, HostArray::from(Shape{fx.frames.size(), rows, cols}, all));
    using EM = IntegrateParams::ErrorModel;
    struct Case {
        std::vector<std::string> args;
        std::function<void(AzimuthalSetup&)> setup;
        std::function<AzimuthalResult(const AzimuthalIntegrator&)> run;
        std::vector<size_t> shape;
    };
    const auto integrate = [&](const AzimuthalIntegrator& i) { return i.integrate(frames); };
    const std::vector<Case> cases = {
        {{"--npt-azim", "6", "--split=full"},
         [](AzimuthalSetup& s) { s.azimuth_bins = 6, s.split = PixelSplit::full; }, integrate, {5, 6, bins}},
        {{"--npt-azim", "4", "--azimuth-range", "-90", "60", "--split", "--renormalize"},
         [](AzimuthalSetup& s) {
             s.azimuth_bins = 4, s.azimuth_range = std::make_pair(-90.0, 60.0), s.split = PixelSplit::bbox;
             s.renormalize = true;
         },
         integrate, {5, 4, bins}},
        {{"--azimuth-range", "0", "120", "--error-model", "azimuthal"},
         [](AzimuthalSetup& s) { s.azimuth_range = std::make_pair(0.0, 120.0), s.error_model = EM::azimuthal; },
         integrate, {5, bins}},
        {{"--sigma-clip", "1.5", "--clip-threshold", "fixed", "--max-iter", "3"}, [](AzimuthalSetup&) {},
         [&](const AzimuthalIntegrator& i) { return i.sigma_clip(frames, 1.5, 3, ClipThreshold::fixed); }, {5, bins}},
        {{"--medfilt", "0.2", "0.8", "--no-dark-variance"}, [](AzimuthalSetup& s) { s.dark_variance = false; },
         [&](const AzimuthalIntegrator& i) { return i.medfilt1d(frames, 0.2, 0.8); }, {5, bins}},
    };
    for (const Case& c : cases) {
        std::string line;
        for (const auto& a : c.args) line += a + " ";
        INFO(line);
        const CliRun r = run_kiln(
            dir, with(with({"integrate-azimuthal", "stack.h5", "--batch", "2", "-o", "out.h5"}, geometry_args), c.args));
        INFO(r.what);
        REQUIRE(r.code == 0);
        AzimuthalSetup s = setup_of_args();
        c.setup(s);
        const AzimuthalIntegrator integ(ctx, s);
        const AzimuthalResult want = c.run(integ);
        std::vector<hsize_t> dims;
        // The same kernels in batches of 2 or all 5 frames at once: the same floats.
        CHECK(h5_floats(dir.file("out.h5"), "intensity", dims) == want.intensity.to_vector<float>());
        CHECK(std::vector<size_t>(dims.begin(), dims.end()) == c.shape);
        CHECK(h5_floats(dir.file("out.h5"), "count", dims) == want.count.to_vector<float>());
        if (s.azimuth_bins) {
            const auto chi = h5_floats(dir.file("out.h5"), "azimuthal", dims);
            REQUIRE(chi.size() == s.azimuth_bins);
            for (size_t k = 0; k < chi.size(); ++k) CHECK(chi[k] == float(want.azimuthal[k]));
        }
    }
    // What does not go together is refused with a message.
    CliRun r = run_kiln(dir, with({"integrate-azimuthal", "stack.h5", "-o", "x.npy", "--error-model", "variance"},
                                  geometry_args));
    CHECK(r.code != 0);
    CHECK_THAT(r.err, Catch::Contains("--variance FILE"));
    r = run_kiln(dir, with({"integrate-azimuthal", "stack.h5", "-o", "x.npy", "--medfilt", "0.5", "0.5",
                            "--sigma-clip", "3"},
                           geometry_args));
    CHECK(r.code != 0);
    CHECK_THAT(r.err, Catch::Contains("choose one"));
}

TEST_CASE("integrate_stack locates chunks from the index read in one pass, or frame by frame where kiln does not read it",
          "[azimuthal][stack][h5]") {
    // Chunks written out of order, two frames never written (HDF5's fill
    // value, zeros), one stored unfiltered: in HDF5's default format (a
    // version 1 B-tree), and with libver latest a fixed array (both read by
    // kiln) and an extensible array (HDF5's lookups, frame by frame).
    const size_t n = 10;
    auto frames = make_frames(n, 61);
    const std::set<size_t> never = {2, 7};
    for (size_t k : never) frames[k] = HostArray(Shape{rows, cols}, DType::uint32);  // zeros
    const Reference want = reference(frames, setup_of_args());
    TempDir dir;
    Context ctx = test::context();
    const AzimuthalIntegrator integ(ctx, setup_of_args());
    for (int variant = 0; variant < 3; ++variant) {
        const bool latest = variant > 0, fixed = variant == 1;
        INFO((variant == 0 ? "version 1 B-tree" : fixed ? "fixed array" : "extensible array"));
        const std::string path = dir.file("v" + std::to_string(variant) + ".h5");
        {
            io::FloatEnvGuard fp;
            hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
            if (latest) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
            hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
            const hsize_t dims[3] = {n, rows, cols}, chunk[3] = {1, rows, cols};
            const hsize_t max_dims[3] = {fixed ? n : H5S_UNLIMITED, rows, cols};
            hid_t space = H5Screate_simple(3, dims, max_dims);
            hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
            H5Pset_chunk(dcpl, 3, chunk);
            const std::vector<unsigned> cd =
                H5Zfilter_avail(32008) > 0 ? std::vector<unsigned>{0, 2} : std::vector<unsigned>{0, 3, 4, 0, 2};
            H5Pset_filter(dcpl, 32008, H5Z_FLAG_OPTIONAL, cd.size(), cd.data());
            hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
            H5Pset_create_intermediate_group(lcpl, 1);
            hid_t d = H5Dcreate2(f, "/entry/data/data", H5T_STD_U32LE, space, lcpl, dcpl, H5P_DEFAULT);
            REQUIRE(d >= 0);
            for (size_t k : {9, 0, 4, 8, 1, 6, 3, 5}) {
                const hsize_t offset[3] = {k, 0, 0};
                const auto b = test::bytes_of(frames[k]);
                const std::vector<uint8_t> chunk_bytes =
                    k == 4 ? std::vector<uint8_t>(b.begin(), b.end()) : test::compress(frames[k]);
                REQUIRE(H5Dwrite_chunk(d, H5P_DEFAULT, k == 4 ? 1 : 0, offset, chunk_bytes.size(),
                                       chunk_bytes.data()) >= 0);
            }
            H5Dclose(d);
            H5Pclose(lcpl);
            H5Pclose(dcpl);
            H5Sclose(space);
            H5Fclose(f);
            H5Pclose(fapl);
        }
        CHECK(bool(io::FrameStackReader(path).chunk_table()) == (variant < 2));
        const FrameStack stack({path});
        REQUIRE(stack.gpu_decodable());
        for (bool host : {false, true}) {
            INFO("decoded on the " << (host ? "host" : "GPU"));
            StackOptions o;
            o.batch = 3;
            o.cpu_decompress = host;
            const std::string out = dir.file("p" + std::to_string(variant) + (host ? "h" : "g") + ".npy");
            io::NpyProfileWriter npy(out, "intensity");
            const StackSummary s = integrate_stack(ctx, integ, stack, npy, o);
            CHECK(s.frames == n);
            CHECK(npy_floats(out) == want.intensity);
        }
    }
}
