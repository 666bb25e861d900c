// HDF5 frame stacks: kiln's writer and reader round trip, files kiln writes
// decode through the real bitshuffle plugin, files the plugin writes decode
// through kiln, and broken input gives IoError naming file, dataset and frame.
#include <hdf5.h>
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "io/fp_env.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"

using namespace kiln;
using namespace kiln::io;
namespace fs = std::filesystem;

namespace {

std::string temp_path(const std::string& tag) {
    static int counter = 0;
    return (fs::temp_directory_path() / ("kiln_h5frames_" + tag + "_" + std::to_string(getpid()) + "_" +
                                         std::to_string(counter++) + ".h5"))
        .string();
}

// Removes the file when the test ends, pass or fail.
struct TempFile {
    std::string path;
    explicit TempFile(const std::string& tag) : path(temp_path(tag)) {}
    ~TempFile() {
        std::error_code ec;
        fs::remove(path, ec);
        fs::remove(path + ".partial", ec);
    }
};

template <typename T>
HostArray poisson_frame(size_t rows, size_t cols, double mean, uint32_t seed) {
    std::mt19937 rng(seed);
    std::poisson_distribution<int> pd(mean);
    std::vector<T> v(rows * cols);
    for (auto& x : v) x = T(pd(rng));
    return HostArray::from(Shape{rows, cols}, v);
}

bool same_bytes(const HostArray& a, const HostArray& b) {
    return a.dtype == b.dtype && a.shape == b.shape && a.bytes == b.bytes;
}

// See test_bslz4.cpp: Debian's plugin folder, in front because HDF5 1.10
// stops searching at a folder that does not exist.
bool bitshuffle_plugin_available() {
    io::FloatEnvGuard fp;  // the plugin, once loaded, would flush subnormals (io/fp_env.hpp)
    if (H5Zfilter_avail(32008) > 0) return true;
    H5PLprepend("/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins");
    return H5Zfilter_avail(32008) > 0;
}

// Reads frame `frame` through HDF5's own filter pipeline (the plugin).
std::vector<uint32_t> read_via_hdf5(const std::string& path, const std::string& dataset, size_t frame,
                                    size_t rows, size_t cols) {
    io::FloatEnvGuard fp;  // the plugin, once loaded, would flush subnormals (io/fp_env.hpp)
    std::vector<uint32_t> out(rows * cols, 0xDEADBEEF);
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
    hid_t fs_id = H5Dget_space(d);
    const hsize_t start[3] = {frame, 0, 0}, count[3] = {1, rows, cols};
    H5Sselect_hyperslab(fs_id, H5S_SELECT_SET, start, nullptr, count, nullptr);
    hid_t ms = H5Screate_simple(3, count, nullptr);
    const herr_t r = H5Dread(d, H5T_NATIVE_UINT32, ms, fs_id, H5P_DEFAULT, out.data());
    H5Sclose(ms);
    H5Sclose(fs_id);
    H5Dclose(d);
    H5Fclose(f);
    REQUIRE(r >= 0);
    return out;
}

// A bitshuffle-LZ4 stack at /entry/data/data of `count` copies of frame.
void write_stack(const std::string& path, const HostArray& frame, int count) {
    FrameStackWriter w(path, "/entry/data/data", frame.shape.y(), frame.shape.x(), frame.dtype, true);
    for (int k = 0; k < count; ++k) w.write_frame(frame);
    w.close();
}

// Stores `chunk` as frame `frame`'s chunk of /entry/data/data unfiltered,
// as a crashed detector or a crafted file might leave it.
void write_raw_chunk(const std::string& path, hsize_t frame, const std::vector<uint8_t>& chunk) {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/entry/data/data", H5P_DEFAULT);
    const hsize_t offset[3] = {frame, 0, 0};
    const herr_t r = H5Dwrite_chunk(d, H5P_DEFAULT, 0, offset, chunk.size(), chunk.data());
    H5Dclose(d);
    H5Fclose(f);
    REQUIRE(r >= 0);
}

}  // namespace

TEST_CASE("bitshuffle-LZ4 frame stack round trip", "[io][h5frames][bslz4]") {
    TempFile file("bslz4");
    const size_t rows = 37, cols = 41;
    std::vector<HostArray> frames;
    for (uint32_t k = 0; k < 3; ++k) frames.push_back(poisson_frame<uint32_t>(rows, cols, 2.0 + k, k));
    {
        FrameStackWriter w(file.path, "/entry/data/data", rows, cols, DType::uint32, true);
        for (const auto& f : frames) w.write_frame(f);
        CHECK(w.frames_written() == 3);
        CHECK_FALSE(fs::exists(file.path));  // not before close
        w.close();
    }
    REQUIRE(fs::exists(file.path));
    CHECK_FALSE(fs::exists(file.path + ".partial"));

    FrameStackReader r(file.path);
    CHECK(r.frames() == 3);
    CHECK(r.rows() == rows);
    CHECK(r.cols() == cols);
    CHECK(r.dtype() == DType::uint32);
    CHECK(r.is_bslz4());
    CHECK(r.one_frame_chunks());
    for (size_t k = 0; k < 3; ++k) {
        INFO("frame " << k);
        CHECK(same_bytes(r.read_frame(k), frames[k]));
        uint32_t mask = 99;
        const auto chunk = r.read_chunk(k, &mask);
        CHECK(mask == 0);
        CHECK(chunk.size() < frames[k].nbytes());  // stored compressed
        std::vector<uint8_t> out(frames[k].nbytes());
        kiln::bslz4_decompress(chunk, 4, out, "frame");
        CHECK(std::memcmp(out.data(), frames[k].data(), out.size()) == 0);
    }

    INFO(
        "HDF5 filter 32008 not found: install Debian's bitshuffle package or set "
        "HDF5_PLUGIN_PATH to the folder holding libh5bshuf.so");
    REQUIRE(bitshuffle_plugin_available());
    for (size_t k = 0; k < 3; ++k) {
        const auto via_plugin = read_via_hdf5(file.path, "/entry/data/data", k, rows, cols);
        CHECK(std::memcmp(via_plugin.data(), frames[k].data(), frames[k].nbytes()) == 0);
    }
}

// Debian's filter plugins are built with -ffast-math: loading one turns on
// flush-to-zero for the whole process. kiln's reader and writer load it
// (the writer asks HDF5 whether filter 32008 is there) and must leave the
// caller's floating-point environment as it was. ctest runs each test in its
// own process, so here the plugin is loaded for the first time by kiln.
TEST_CASE("frame stacks keep the caller's subnormal floats", "[io][h5frames][bslz4]") {
    TempFile file("fenv");
    H5PLprepend("/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins");
    {
        FrameStackWriter w(file.path, "/data", 5, 7, DType::uint32, true);
        w.write_frame(poisson_frame<uint32_t>(5, 7, 3.0, 1));
        w.close();
    }
    FrameStackReader r(file.path, "/data");
    CHECK(r.read_frame(0).nbytes() == 5 * 7 * 4);
    INFO("HDF5 filter 32008 not found: install Debian's bitshuffle package");
    REQUIRE(H5Zfilter_avail(32008) > 0);  // the plugin is loaded now
    volatile float tiny = 1e-39f;          // subnormal in float32
    const float half = tiny * 0.5f;
    CHECK(std::fpclassify(half) == FP_SUBNORMAL);
    volatile double dtiny = 1e-310;
    CHECK(dtiny * 0.5 > 0.0);
}

TEST_CASE("frame stacks written by the HDF5 plugin", "[io][h5frames][bslz4]") {
    REQUIRE(bitshuffle_plugin_available());
    TempFile file("plugin");
    const size_t n = 4, rows = 13, cols = 127;  // 1651 pixels: 3 trailing raw elements
    std::vector<uint32_t> all;
    for (uint32_t k = 0; k < n; ++k) {
        const auto f = poisson_frame<uint32_t>(rows, cols, 30.0, 100 + k);
        all.insert(all.end(), f.as<uint32_t>().begin(), f.as<uint32_t>().end());
    }
    {
        io::FloatEnvGuard fp;
        hid_t f = H5Fcreate(file.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dims[3] = {n, rows, cols};
        hid_t space = H5Screate_simple(3, dims, nullptr);
        const unsigned cd[2] = {0, 2};
        for (hsize_t per_chunk : {1, 2}) {
            hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
            const hsize_t chunk[3] = {per_chunk, rows, cols};
            H5Pset_chunk(dcpl, 3, chunk);
            H5Pset_filter(dcpl, 32008, H5Z_FLAG_MANDATORY, 2, cd);
            const std::string name = "stack" + std::to_string(per_chunk);
            hid_t d = H5Dcreate2(f, name.c_str(), H5T_STD_U32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            REQUIRE(H5Dwrite(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()) >= 0);
            H5Dclose(d);
            H5Pclose(dcpl);
        }
        H5Sclose(space);
        H5Fclose(f);
    }
    for (const char* name : {"/stack1", "/stack2"}) {
        INFO(name);
        FrameStackReader r(file.path, name);
        CHECK(r.is_bslz4());
        CHECK(r.one_frame_chunks() == (std::string(name) == "/stack1"));
        for (size_t k = 0; k < n; ++k) {
            const HostArray f = r.read_frame(k);
            CHECK(std::memcmp(f.data(), all.data() + k * rows * cols, f.nbytes()) == 0);
        }
        if (!r.one_frame_chunks()) CHECK_THROWS_AS(r.read_chunk(0), IoError);
    }
}

TEST_CASE("uncompressed frame stacks of every dtype", "[io][h5frames]") {
    for (DType t : array_dtypes) {
        INFO(dtype_name(t));
        TempFile file("plain");
        std::vector<HostArray> frames;
        for (uint32_t k = 0; k < 2; ++k) {
            HostArray a(Shape{5, 7}, t);
            std::mt19937 rng(k);
            for (auto& b : a.bytes) b = std::byte(rng() & 0x3F);  // finite floats too
            frames.push_back(a);
        }
        FrameStackWriter w(file.path, "/data", 5, 7, t, false);
        for (const auto& f : frames) w.write_frame(f);
        w.close();
        FrameStackReader r(file.path, "/data");
        CHECK(r.dtype() == t);
        CHECK_FALSE(r.is_bslz4());
        for (size_t k = 0; k < 2; ++k) {
            CHECK(same_bytes(r.read_frame(k), frames[k]));
            const auto raw = r.read_chunk(k);  // unfiltered: the frame's bytes
            REQUIRE(raw.size() == frames[k].nbytes());
            CHECK(std::memcmp(raw.data(), frames[k].data(), raw.size()) == 0);
        }
    }
}

TEST_CASE("a contiguous 2-D dataset is a stack of one frame", "[io][h5frames]") {
    TempFile file("single");
    std::vector<double> v(6 * 9);
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.25 * double(i) - 3;
    {
        io::FloatEnvGuard fp;
        hid_t f = H5Fcreate(file.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dims[2] = {6, 9};
        hid_t space = H5Screate_simple(2, dims, nullptr);
        hid_t d = H5Dcreate2(f, "/image", H5T_IEEE_F64BE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        REQUIRE(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
        H5Dclose(d);
        H5Sclose(space);
        H5Fclose(f);
    }
    FrameStackReader r(file.path, "/image");
    CHECK(r.frames() == 1);
    CHECK(r.rows() == 6);
    CHECK(r.cols() == 9);
    CHECK(r.dtype() == DType::float64);
    CHECK_FALSE(r.one_frame_chunks());
    CHECK(same_bytes(r.read_frame(0), HostArray::from(Shape{6, 9}, v)));  // big-endian, converted
    CHECK_THROWS_AS(r.read_chunk(0), IoError);
}

TEST_CASE("frame stack errors", "[io][h5frames]") {
    SECTION("a writer dropped without close leaves no file") {
        TempFile file("dropped");
        {
            FrameStackWriter w(file.path, "/entry/data/data", 4, 4, DType::uint16, true);
            w.write_frame(HostArray(Shape{4, 4}, DType::uint16));
            CHECK(fs::exists(file.path + ".partial"));
        }
        CHECK_FALSE(fs::exists(file.path));
        CHECK_FALSE(fs::exists(file.path + ".partial"));
    }
    SECTION("wrong frames are refused") {
        TempFile file("wrong");
        FrameStackWriter w(file.path, "/d", 4, 6, DType::uint16, true);
        CHECK_THROWS_AS(w.write_frame(HostArray(Shape{6, 4}, DType::uint16)), InvalidArgument);
        CHECK_THROWS_AS(w.write_frame(HostArray(Shape{4, 6}, DType::uint32)), InvalidArgument);
        CHECK_NOTHROW(w.write_frame(HostArray(Shape{1, 4, 6}, DType::uint16)));
        w.close();
        CHECK_THROWS_AS(w.write_frame(HostArray(Shape{4, 6}, DType::uint16)), InvalidArgument);
        FrameStackReader r(file.path, "/d");
        CHECK_THROWS_AS(r.read_frame(1), InvalidArgument);
    }
    SECTION("missing files and datasets name themselves") {
        const std::string missing = temp_path("missing");
        CHECK_THROWS_WITH(FrameStackReader(missing), Catch::Contains(missing));
        TempFile file("nodata");
        FrameStackWriter w(file.path, "/a", 2, 2, DType::float32, false);
        w.close();
        CHECK_THROWS_WITH(FrameStackReader(file.path, "/b"),
                          Catch::Contains(file.path) && Catch::Contains("/b"));
    }
    SECTION("a corrupt chunk gives IoError naming file, dataset and frame") {
        TempFile file("corrupt");
        const auto frame = poisson_frame<uint32_t>(9, 11, 5.0, 7);
        write_stack(file.path, frame, 3);
        // Replace frame 1's chunk by a truncated copy, as a crashed detector might leave it.
        auto chunk = kiln::bslz4_compress({static_cast<const uint8_t*>(frame.data()), frame.nbytes()}, 4);
        chunk.resize(chunk.size() - 9);
        write_raw_chunk(file.path, 1, chunk);
        FrameStackReader r(file.path);
        CHECK(same_bytes(r.read_frame(0), frame));
        CHECK_THROWS_AS(r.read_frame(1), IoError);
        CHECK_THROWS_WITH(r.read_frame(1), Catch::Contains(file.path) &&
                                               Catch::Contains("/entry/data/data") &&
                                               Catch::Contains("frame 1"));
        CHECK(same_bytes(r.read_frame(2), frame));
    }
}

TEST_CASE("frame stacks whose sizes kiln cannot hold are refused with the sizes", "[io][h5frames][hostile]") {
    SECTION("a stack of 2^30 frames of 2^30 x 4 pixels (2^62 elements)") {
        TempFile file("huge");
        {
            hid_t f = H5Fcreate(file.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
            const hsize_t dims[3] = {hsize_t(1) << 30, hsize_t(1) << 30, 4}, chunk[3] = {1, 1, 4};
            hid_t space = H5Screate_simple(3, dims, nullptr);
            hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
            H5Pset_chunk(dcpl, 3, chunk);
            hid_t d = H5Dcreate2(f, "/d", H5T_NATIVE_UINT16, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            REQUIRE(d >= 0);
            H5Dclose(d);
            H5Pclose(dcpl);
            H5Sclose(space);
            H5Fclose(f);
        }
        CHECK_THROWS_WITH(FrameStackReader(file.path, "/d"),
                          Catch::Contains(file.path) && Catch::Contains("1073741824 frames") &&
                              Catch::Contains("at most 2^60"));
    }
    SECTION("a chunk larger than any compression of a frame is not allocated") {
        TempFile file("bigchunk");
        const auto frame = poisson_frame<uint32_t>(9, 11, 5.0, 7);
        write_stack(file.path, frame, 2);
        std::vector<uint8_t> chunk(100000, 0);
        write_raw_chunk(file.path, 1, chunk);
        FrameStackReader r(file.path);
        CHECK(same_bytes(r.read_frame(0), frame));
        CHECK_THROWS_WITH(r.read_chunk(1), Catch::Contains("frame 1") && Catch::Contains("declares 100000 bytes") &&
                                               Catch::Contains("396 bytes"));
    }
}

TEST_CASE("an unfiltered chunk shorter than a chunk is refused before HDF5 copies it", "[io][h5frames][hostile]") {
    // Found by the HDF5 fuzzer: the last chunk of an unfiltered dataset
    // stored with fewer bytes than a chunk holds, at the end of the file.
    // HDF5 1.10 trusts the index: H5Dread copied past its own buffer and
    // H5Dread_chunk wrote past the caller's (sized by
    // H5Dget_chunk_storage_size).
    TempFile file("short_raw");
    const auto frame = poisson_frame<uint16_t>(4, 8, 50.0, 3);
    {
        hid_t f = H5Fcreate(file.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dims[3] = {3, 4, 8}, chunk[3] = {1, 4, 8};
        hid_t space = H5Screate_simple(3, dims, nullptr);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 3, chunk);
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(lcpl, 1);
        hid_t d = H5Dcreate2(f, "/entry/data/data", H5T_STD_U16LE, space, lcpl, dcpl, H5P_DEFAULT);
        REQUIRE(d >= 0);
        for (hsize_t k = 0; k < 3; ++k) {
            const hsize_t offset[3] = {k, 0, 0};
            REQUIRE(H5Dwrite_chunk(d, H5P_DEFAULT, 0, offset, k == 2 ? 20 : 64, frame.data()) >= 0);
        }
        H5Dclose(d);
        H5Pclose(lcpl);
        H5Pclose(dcpl);
        H5Sclose(space);
        H5Fclose(f);
    }
    FrameStackReader r(file.path);
    CHECK(same_bytes(r.read_frame(0), frame));
    CHECK(same_bytes(r.read_frame(1), frame));
    CHECK_THROWS_WITH(r.read_frame(2), Catch::Contains("frame 2") &&
                                           Catch::Contains("unfiltered chunk of 20 bytes") && Catch::Contains("hold 64"));
    CHECK_THROWS_WITH(r.read_chunk(2), Catch::Contains("frame 2") &&
                                           Catch::Contains("unfiltered chunk of 20 bytes") && Catch::Contains("hold 64"));
    // The others' chunks are the frame's bytes as stored.
    const std::vector<uint8_t> chunk = r.read_chunk(1);
    REQUIRE(chunk.size() == 64);
    CHECK(std::memcmp(chunk.data(), frame.data(), 64) == 0);
}
