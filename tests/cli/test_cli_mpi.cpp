// `mpirun -np N kiln integrate-azimuthal` (src/job.hpp): the ranks' output
// against one process's, byte for byte, with the stack's batches decoded on
// the GPU and on the host, more ranks than batches, a rank that fails, the
// merged trace, and usage errors said once. Built where kiln has MPI
// (KILN_MPIRUN: the mpirun CMake found, unless the environment's
// KILN_MPIRUN names another).
#ifdef KILN_MPIRUN

#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "bslz4_support.hpp"
#include "cli/run_cli.hpp"
#include "cli/stack_support.hpp"
#include "kiln/io.hpp"

using namespace kiln;
using namespace kiln::test::stack;
using kiln::test::CliRun;
using kiln::test::TempDir;

namespace {

// kiln under mpirun with n ranks, in dir.
CliRun mpirun(const TempDir& dir, int n, const std::vector<std::string>& args,
             const std::vector<std::string>& launcher_args = {}) {
    std::vector<std::string> line = {"-np", std::to_string(n),
                                     // A test machine may have fewer cores than ranks (CI: 2).
                                     "--oversubscribe",
                                     // Ranks share the cores; pinned one core each, lavapipe's
                                     // threads would queue behind each other.
                                     "--bind-to", "none",
                                     // Shared memory between the ranks of one host, no network
                                     // transports to probe (a container has no InfiniBand, and
                                     // Open MPI warns at every start when it looks for one);
                                     // copies through the shared segment, as containers often
                                     // forbid the cross-process reads (CMA: ptrace) of the
                                     // default single-copy mechanism.
                                     "--mca", "btl", "self,vader", "--mca", "btl_vader_single_copy_mechanism", "none"};
    // CI runs as root, which Open MPI refuses unless told.
    if (geteuid() == 0) line.push_back("--allow-run-as-root");
    line.insert(line.end(), launcher_args.begin(), launcher_args.end());
    line.push_back(test::kiln_binary());
    line.insert(line.end(), args.begin(), args.end());
    // KILN_MPIRUN in the environment: another mpirun (a GPU bundle's own,
    // where the machine's Open MPI does not match the bundle's libraries).
    const char* launcher = std::getenv("KILN_MPIRUN");
    return test::run_program(dir, launcher && *launcher ? launcher : KILN_MPIRUN, line);
}

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

void check_nothing_left(const TempDir& dir, const std::vector<std::string>& before) {
    CHECK(test::names(dir) == before);
}

}  // namespace

TEST_CASE("mpirun kiln integrate-azimuthal writes one process's output, byte for byte",
          "[cli][azimuthal][stack][mpi]") {
    const StackFixture fx(11, 97, "s.h5");
    const TempDir& dir = fx.dir;
    // Batches of 2: 6 of them (the last of one frame), 3 for each of 2 ranks.
    const auto base = with({"integrate-azimuthal", "s.h5", "--batch", "2", "-q"}, geometry_args);
    for (const bool host : {false, true}) {
        INFO("decoded on the " << (host ? "host" : "GPU"));
        const auto args = host ? with(base, {"--cpu-decompress"}) : base;
        CliRun one = test::run_kiln(dir, with(args, {"-o", "one.npy", "--errors", "one_e.npy", "--radial", "q1.npy"}));
        INFO(one.what);
        REQUIRE(one.code == 0);
        CliRun two = mpirun(dir, 2, with(args, {"-o", "two.npy", "--errors", "two_e.npy", "--radial", "q2.npy", "--json",
                                                "--readers", "1"}));
        INFO(two.what);
        REQUIRE(two.code == 0);
        CHECK(npy_floats(dir.file("one.npy")) == fx.want.intensity);
        CHECK(slurp(dir.file("two.npy")) == slurp(dir.file("one.npy")));
        CHECK(slurp(dir.file("two_e.npy")) == slurp(dir.file("one_e.npy")));
        CHECK(slurp(dir.file("q2.npy")) == slurp(dir.file("q1.npy")));
        // Rank 0 reports the job, once.
        CHECK(occurrences(two.out, "\"frames\": 11,") == 1);
        CHECK_THAT(two.out, Catch::Contains("\"ranks\": 2") && Catch::Contains("\"devices\": 2"));
        // The job's reader threads and stage times: both ranks'.
        CHECK_THAT(two.out, Catch::Contains("\"readers\": 2,") && Catch::Contains("\"stages\": {\"index\": "));
        // Every message split into parts of 100 bytes (a batch's profiles
        // here are 528 bytes; past 1 GiB they would be): the same output.
        REQUIRE(mpirun(dir, 2, with(args, {"-o", "parts.npy"}), {"-x", "KILN_MPI_PART_BYTES=100"}).code == 0);
        CHECK(slurp(dir.file("parts.npy")) == slurp(dir.file("one.npy")));
        // Text profiles: a file per frame, each the same.
        REQUIRE(mpirun(dir, 2, with(args, {"-o", "two.xy"})).code == 0);
        REQUIRE(test::run_kiln(dir, with(args, {"-o", "one.xy"})).code == 0);
        for (size_t k = 0; k < 11; ++k) {
            const std::string a = dir.file(io::TextProfileWriter::frame_file("one.xy", k));
            const std::string b = dir.file(io::TextProfileWriter::frame_file("two.xy", k));
            std::string want = slurp(a);
            // Each file names itself in its header.
            const size_t at = want.find("one_");
            REQUIRE(at != std::string::npos);
            want.replace(at, 3, "two");
            CHECK(slurp(b) == want);
        }
        for (const auto& name : test::names(dir)) CHECK(name.find(".kiln-") == std::string::npos);
    }
}

TEST_CASE("mpirun kiln integrate-azimuthal with more ranks than batches", "[cli][azimuthal][stack][mpi]") {
    const StackFixture fx(7, 98, "s.h5");
    const TempDir& dir = fx.dir;
    // Batches of 4: 2 of them; rank 2 has none and still ends with the job.
    const auto base = with({"integrate-azimuthal", "s.h5", "--batch", "4"}, geometry_args);
    CliRun r = mpirun(dir, 3, with(base, {"-o", "three.npy", "--json", "--trace", "t.json"}));
    INFO(r.what);
    REQUIRE(r.code == 0);
    CHECK(npy_floats(dir.file("three.npy")) == fx.want.intensity);
    REQUIRE(test::run_kiln(dir, with(base, {"-o", "one.npy", "-q"})).code == 0);
    CHECK(slurp(dir.file("three.npy")) == slurp(dir.file("one.npy")));
    CHECK_THAT(r.out, Catch::Contains("\"frames\": 7,") && Catch::Contains("\"ranks\": 3") &&
                          Catch::Contains("\"devices\": 2"));
    // The trace: a named row per rank, each rank's kernels on its own.
    const std::string trace = slurp(dir.file("t.json"));
    for (int rank : {0, 1, 2}) {
        const std::string pid = "\"pid\":" + std::to_string(rank + 1) + ",";
        CHECK(trace.find("\"process_name\",\"ph\":\"M\"," + pid + "\"tid\":1,\"args\":{\"name\":\"rank " +
                         std::to_string(rank) + "\"}") != std::string::npos);
        CHECK(trace.find("\"thread_name\",\"ph\":\"M\"," + pid) != std::string::npos);
    }
    // Ranks 0 and 1 integrated a batch each (decoder and integration kernels); every rank built its matrix.
    CHECK(trace.find("\"ph\":\"X\",") != std::string::npos);
    for (int pid : {1, 2}) {
        const std::string row = "\"pid\":" + std::to_string(pid) + ",\"tid\":1,\"args\":{\"submission\"";
        CHECK(occurrences(trace, row) > 1);
    }
}

TEST_CASE("a failing rank fails the mpirun job with its message and leaves no output",
          "[cli][azimuthal][stack][mpi]") {
    TempDir dir;
    // 8 frames in batches of 2: rank 1 reads batches 1 and 3 (frames 2, 3,
    // 6, 7). Frame 6's chunk is cut short, as a crashed detector leaves it.
    const auto frames = make_frames(8, 99);
    {
        io::FrameStackWriter w(dir.file("bad.h5"), "/entry/data/data", rows, cols, DType::uint32, true);
        for (size_t k = 0; k < frames.size(); ++k) {
            std::vector<uint8_t> chunk = test::compress(frames[k]);
            if (k == 6) chunk.resize(chunk.size() - 9);
            w.write_chunk(chunk);
        }
        w.close();
    }
    const auto base = with({"integrate-azimuthal", "bad.h5", "--batch", "2", "-o", "out.npy", "--errors", "e.npy"},
                           geometry_args);
    const std::vector<std::string> before = test::names(dir);
    for (const bool host : {false, true}) {
        INFO("decoded on the " << (host ? "host" : "GPU"));
        const CliRun r = mpirun(dir, 2, host ? with(base, {"--cpu-decompress"}) : base);
        INFO(r.what);
        CHECK(r.code == 4);  // an I/O error (a malformed chunk), as one process gives
        CHECK(occurrences(r.err, "kiln: rank 1: error: ") == 1);
        CHECK_THAT(r.err, Catch::Contains("bad.h5") && Catch::Contains("frame 6"));
        check_nothing_left(dir, before);
    }
    // Rank 0's own batch: its message, without a rank.
    std::vector<std::string> args = base;
    args[1] = "bad0.h5";
    {
        io::FrameStackWriter w(dir.file("bad0.h5"), "/entry/data/data", rows, cols, DType::uint32, true);
        for (size_t k = 0; k < frames.size(); ++k) {
            std::vector<uint8_t> chunk = test::compress(frames[k]);
            if (k == 5) chunk.resize(chunk.size() - 9);  // batch 2, rank 0's
            w.write_chunk(chunk);
        }
        w.close();
    }
    const std::vector<std::string> before0 = test::names(dir);
    const CliRun r = mpirun(dir, 2, args);
    INFO(r.what);
    CHECK(r.code == 4);
    CHECK(occurrences(r.err, "kiln: error: ") == 1);
    CHECK(r.err.find("rank 1") == std::string::npos);
    CHECK_THAT(r.err, Catch::Contains("frame 5"));
    check_nothing_left(dir, before0);
}

TEST_CASE("mpirun kiln with bad arguments says so once", "[cli][mpi]") {
    const StackFixture fx(2, 96, "s.h5");
    const TempDir& dir = fx.dir;
    const std::vector<std::string> before = test::names(dir);
    CliRun r = mpirun(dir, 2, {"integrate-azimuthal", "s.h5", "--bins", "many", "-o", "x.npy"});
    INFO(r.what);
    CHECK(r.code == 2);
    CHECK(occurrences(r.err, "--bins") == 1);
    r = mpirun(dir, 2, {"integrate-azimuthal", "missing.h5", "-o", "x.npy"});
    INFO(r.what);
    CHECK(r.code == 4);
    CHECK(occurrences(r.err, "kiln: error: ") == 1);
    CHECK_THAT(r.err, Catch::Contains("missing.h5"));
    // Other commands run as one process.
    r = mpirun(dir, 2, {"add", "s.h5", "1", "-o", "x.npy"});
    INFO(r.what);
    CHECK(r.code == 1);
    CHECK(occurrences(r.err, "add runs as one process") == 1);
    check_nothing_left(dir, before);
}

#endif  // KILN_MPIRUN
