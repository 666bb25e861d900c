// Issue 17, item 4: HDF5 chunks stored unfiltered in a bitshuffle-LZ4 stack
// (filter mask 1, legal, h5py reads them) and datasets with other filters.
// Every decode path (read_frame, Bslz4Decoder, decompress-bslz4,
// integrate-azimuthal on the GPU) gives the frames that were written; only
// bitshuffle-LZ4 chunks reach the GPU decoder.
#include <hdf5.h>
#include <catch2/catch.hpp>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "io/fp_env.hpp"
#include "bslz4_support.hpp"
#include "cli/run_cli.hpp"
#include "kiln/bslz4.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"

using namespace kiln;
using kiln::test::CliRun;
using kiln::test::run_kiln;
using kiln::test::TempDir;

namespace {

constexpr size_t frames = 5, rows = 13, cols = 127;  // 1651 pixels: 3 trailing elements
constexpr bool raw_frame[frames] = {false, true, false, true, false};

std::vector<HostArray> written_frames() {
    std::vector<HostArray> out;
    for (size_t k = 0; k < frames; ++k)
        out.push_back(test::poisson(Shape{rows, cols}, DType::uint32, 30.0, 500 + uint32_t(k)));
    return out;
}

// A (frames, rows, cols) uint32 dataset /entry/data/data, one chunk per frame,
// declaring `filter` (none: no filter; deflate: H5Pset_deflate; 32008:
// bitshuffle with compression `comp`, cd_values as kiln's writer gives them:
// the plugin, when HDF5 finds it, fills in version and element size itself).
// Chunks go in as given, with their filter masks (H5Dwrite_chunk).
struct Chunk {
    std::vector<uint8_t> bytes;
    uint32_t mask;
};
void write_chunks(const std::string& path, H5Z_filter_t filter, unsigned comp, const std::vector<Chunk>& chunks) {
    hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0);
    hid_t g = H5Gcreate2(f, "/entry", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g2 = H5Gcreate2(g, "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[3] = {frames, rows, cols}, chunk[3] = {1, rows, cols};
    hid_t space = H5Screate_simple(3, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 3, chunk);
    if (filter == H5Z_FILTER_DEFLATE) H5Pset_deflate(dcpl, 4);
    else if (filter != H5Z_FILTER_NONE) {
        const std::vector<unsigned> cd =
            H5Zfilter_avail(filter) > 0 ? std::vector<unsigned>{0, comp} : std::vector<unsigned>{0, 3, 4, 0, comp};
        H5Pset_filter(dcpl, filter, H5Z_FLAG_OPTIONAL, cd.size(), cd.data());
    }
    hid_t d = H5Dcreate2(g2, "data", H5T_STD_U32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(d >= 0);
    for (size_t k = 0; k < chunks.size(); ++k) {
        const hsize_t offset[3] = {k, 0, 0};
        REQUIRE(H5Dwrite_chunk(d, H5P_DEFAULT, chunks[k].mask, offset, chunks[k].bytes.size(),
                               chunks[k].bytes.data()) >= 0);
    }
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Gclose(g2);
    H5Gclose(g);
    H5Fclose(f);
}

std::vector<uint8_t> bytes(const HostArray& a) {
    const auto b = test::bytes_of(a);
    return {b.begin(), b.end()};
}

// Bitshuffle-LZ4 (cd: default block, compression 2), frames 1 and 3 stored
// unfiltered (filter mask 1).
void write_mixed(const std::string& path, const std::vector<HostArray>& want) {
    std::vector<Chunk> chunks;
    for (size_t k = 0; k < frames; ++k)
        chunks.push_back(raw_frame[k] ? Chunk{bytes(want[k]), 1u} : Chunk{test::compress(want[k]), 0u});
    write_chunks(path, 32008, 2, chunks);
}

void require_frame(const HostArray& got, const HostArray& want) {
    REQUIRE(got.shape.size() == want.shape.size());
    CHECK(std::memcmp(got.data(), want.data(), want.nbytes()) == 0);
}

std::vector<float> floats(const std::string& path) {
    const HostArray a = io::read_array(path);
    const auto v = a.as<float>();
    return {v.begin(), v.end()};
}

// The written frames as a .npy stack: integrate-azimuthal's reference input.
void write_reference(const TempDir& dir, const std::vector<HostArray>& want) {
    std::vector<uint32_t> all;
    for (const auto& f : want) all.insert(all.end(), f.as<uint32_t>().begin(), f.as<uint32_t>().end());
    io::write_array(dir.file("want.npy"), HostArray::from(Shape{frames, rows, cols}, all));
}

const std::vector<std::string> integrate_args = {"--bins", "16", "--pixel", "1e-3", "--dist", "0.05",
                                                 "--batch", "5"};

CliRun integrate(const TempDir& dir, const std::string& input, const std::string& out,
                 std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"integrate-azimuthal", input, "-o", out};
    args.insert(args.end(), integrate_args.begin(), integrate_args.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kiln(dir, args);
}

}  // namespace

TEST_CASE("h5 chunks stored unfiltered in a bitshuffle-LZ4 stack are read as raw frames", "[io][h5frames][bslz4]") {
    // HDF5 loads Debian's filter plugins (built with -ffast-math) on demand:
    // without the guard they would flush subnormals for the rest of the
    // process, and later cases in the same kiln_tests run would see it.
    io::FloatEnvGuard fp;
    TempDir dir;
    const auto want = written_frames();
    write_mixed(dir.file("mixed.h5"), want);
    io::FrameStackReader r(dir.file("mixed.h5"));
    CHECK(r.is_bslz4());
    CHECK(r.gpu_decodable());
    std::vector<std::vector<uint8_t>> chunks(frames);
    std::vector<ChunkCoding> coding(frames);
    for (size_t k = 0; k < frames; ++k) {
        INFO("frame " << k);
        require_frame(r.read_frame(k), want[k]);
        uint32_t mask = 7;
        r.read_chunk(k, chunks[k], &mask);
        CHECK(mask == (raw_frame[k] ? 1u : 0u));
        coding[k] = r.read_for_decoder(k, chunks[k]);
        CHECK(coding[k] == (raw_frame[k] ? ChunkCoding::raw : ChunkCoding::bslz4));
        if (raw_frame[k]) CHECK(chunks[k] == bytes(want[k]));
    }
    // One GPU batch mixing both: raw frames copied into their slots.
    Context ctx = test::context();
    Bslz4Decoder dec(ctx, Shape{rows, cols}, DType::uint32, frames);
    dec.push(chunks, 0, "frame", coding);
    dec.record();
    dec.check();
    const HostArray out = dec.output().to_host();
    for (size_t k = 0; k < frames; ++k) {
        INFO("frame " << k);
        CHECK(std::memcmp(static_cast<const uint8_t*>(out.data()) + k * want[k].nbytes(), want[k].data(),
                          want[k].nbytes()) == 0);
    }
    // A raw chunk must hold a frame's bytes; codings must match the chunks.
    std::vector<std::vector<uint8_t>> short_raw = {std::vector<uint8_t>(100)};
    const ChunkCoding one_raw[1] = {ChunkCoding::raw};
    CHECK_THROWS_WITH(dec.push(short_raw, 0, "frame", one_raw),
                      Catch::Contains("frame 0") && Catch::Contains("raw (unfiltered) chunk of 100 bytes"));
    CHECK_THROWS_AS(dec.push(chunks, 0, "frame", std::span<const ChunkCoding>(coding.data(), 2)), InvalidArgument);
}

TEST_CASE("cli decompress-bslz4 and integrate-azimuthal on a stack with unfiltered chunks", "[cli][bslz4][azimuthal]") {
    // HDF5 loads Debian's filter plugins (built with -ffast-math) on demand:
    // without the guard they would flush subnormals for the rest of the
    // process, and later cases in the same kiln_tests run would see it.
    io::FloatEnvGuard fp;
    TempDir dir;
    const auto want = written_frames();
    write_mixed(dir.file("mixed.h5"), want);
    for (size_t k : {size_t(1), size_t(2)}) {
        const CliRun r = run_kiln(dir, {"decompress-bslz4", "mixed.h5", "--frame", std::to_string(k), "-o", "f.npy"});
        INFO(r.what);
        REQUIRE(r.code == 0);
        require_frame(io::read_array(dir.file("f.npy")), want[k]);
    }
    write_reference(dir, want);
    const CliRun ref = integrate(dir, "want.npy", "want_i.npy");
    INFO(ref.what);
    REQUIRE(ref.code == 0);
    const CliRun gpu = integrate(dir, "mixed.h5", "gpu_i.npy");
    INFO(gpu.what);
    REQUIRE(gpu.code == 0);
    CHECK_THAT(gpu.out, Catch::Contains("decoded on the GPU"));
    const CliRun host = integrate(dir, "mixed.h5", "host_i.npy", {"--cpu-decompress"});
    INFO(host.what);
    REQUIRE(host.code == 0);
    const auto expect = floats(dir.file("want_i.npy"));
    for (const char* name : {"gpu_i.npy", "host_i.npy"}) {
        INFO(name);
        const auto got = floats(dir.file(name));
        REQUIRE(got.size() == expect.size());
        for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expect[i]).epsilon(1e-6).margin(1e-6));
    }
}

TEST_CASE("h5 stacks with other filters are not decoded as bitshuffle-LZ4 on the GPU", "[cli][h5frames][bslz4][azimuthal]") {
    // HDF5 loads Debian's filter plugins (built with -ffast-math) on demand:
    // without the guard they would flush subnormals for the rest of the
    // process, and later cases in the same kiln_tests run would see it.
    io::FloatEnvGuard fp;
    TempDir dir;
    const auto want = written_frames();
    SECTION("deflate: read through HDF5, refused by decompress-bslz4") {
        {
            std::vector<uint32_t> all;
            for (const auto& f : want) all.insert(all.end(), f.as<uint32_t>().begin(), f.as<uint32_t>().end());
            write_chunks(dir.file("deflate.h5"), H5Z_FILTER_DEFLATE, 0, {});
            hid_t f = H5Fopen(dir.file("deflate.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
            hid_t d = H5Dopen2(f, "/entry/data/data", H5P_DEFAULT);
            REQUIRE(H5Dwrite(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()) >= 0);
            H5Dclose(d);
            H5Fclose(f);
        }
        io::FrameStackReader r(dir.file("deflate.h5"));
        CHECK_FALSE(r.is_bslz4());
        CHECK_FALSE(r.gpu_decodable());
        std::vector<uint8_t> chunk;
        for (size_t k = 0; k < frames; ++k) {
            require_frame(r.read_frame(k), want[k]);
            CHECK(r.read_for_decoder(k, chunk) == ChunkCoding::raw);
            CHECK(chunk == bytes(want[k]));
        }
        const CliRun d = run_kiln(dir, {"decompress-bslz4", "deflate.h5", "-o", "f.npy"});
        INFO(d.what);
        CHECK(d.code != 0);
        CHECK_THAT(d.err, Catch::Contains("is not bitshuffle-LZ4"));
        write_reference(dir, want);
        REQUIRE(integrate(dir, "want.npy", "want_i.npy").code == 0);
        const CliRun i = integrate(dir, "deflate.h5", "i.npy");
        INFO(i.what);
        REQUIRE(i.code == 0);
        CHECK_THAT(i.out, Catch::Contains("frames decoded on the host"));
        const auto got = floats(dir.file("i.npy")), expect = floats(dir.file("want_i.npy"));
        REQUIRE(got.size() == expect.size());
        for (size_t k = 0; k < got.size(); ++k) CHECK(got[k] == Approx(expect[k]).epsilon(1e-6).margin(1e-6));
    }
    SECTION("bitshuffle with zstd (compression 3): refused with the parameters") {
        std::vector<Chunk> chunks;
        for (size_t k = 0; k < frames; ++k) chunks.push_back(Chunk{std::vector<uint8_t>(64, uint8_t(k)), 0u});
        write_chunks(dir.file("zstd.h5"), 32008, 3, chunks);
        CHECK_THROWS_WITH(io::FrameStackReader(dir.file("zstd.h5")),
                          Catch::Contains("compression 3") && Catch::Contains("bitshuffle-LZ4 (compression 2)"));
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"decompress-bslz4", "zstd.h5", "-o", "f.npy"},
              std::vector<std::string>{"integrate-azimuthal", "zstd.h5", "-o", "i.npy", "--bins", "8"}}) {
            const CliRun r = run_kiln(dir, args);
            INFO(r.what);
            CHECK(r.code != 0);
            CHECK_THAT(r.err, Catch::Contains("compression 3"));
        }
    }
}
