// Issue 18's formats: 64-bit integer and float16 NPY, 64-bit integer and
// OME-TIFF files (read against the arrays tests/data/make_formats.py saved
// beside them with NumPy), TIFF write options, and HDF5 datasets by path.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>

#include "cpu_support.hpp"
#include "io/file.hpp"
#include "kiln/io.hpp"

using namespace kiln;
using kiln::test::io_error;
using kiln::test::TempDir;

namespace {

std::string fixture(const std::string& name) { return (kiln::test::data_dir() / "formats" / name).string(); }

void check_same_array(const HostArray& got, const HostArray& want) {
    CHECK(got.shape == want.shape);
    CHECK(got.dtype == want.dtype);
    CHECK(got.bytes == want.bytes);
}

/// Every bit pattern, so floats include NaN payloads, infinities and -0.
HostArray random_array(Shape shape, DType dtype, unsigned seed) {
    HostArray a(shape, dtype);
    std::mt19937 rng(seed);
    for (auto& b : a.bytes) b = std::byte(rng() & 0xff);
    return a;
}

}  // namespace

TEST_CASE("npy int64 and uint64 in either byte order", "[io][formats]") {
    for (const char* order : {"le", "be"}) {
        INFO(order);
        const HostArray i = io::read_npy(fixture(std::string(order) + "_i8_5x3.npy"));
        CHECK(i.dtype == DType::int64);
        CHECK(i.shape == Shape{5, 3});
        CHECK(i.as<int64_t>()[0] == INT64_MIN);  // the fixture sets the dtype's ends
        CHECK(i.as<int64_t>()[14] == INT64_MAX);
        const HostArray u = io::read_npy(fixture(std::string(order) + "_u8_7.npy"));
        CHECK(u.dtype == DType::uint64);
        CHECK(u.as<uint64_t>()[0] == 0);
        CHECK(u.as<uint64_t>()[6] == UINT64_MAX);
    }
    check_same_array(io::read_npy(fixture("be_i8_5x3.npy")), io::read_npy(fixture("le_i8_5x3.npy")));
    check_same_array(io::read_npy(fixture("be_u8_7.npy")), io::read_npy(fixture("le_u8_7.npy")));
    const HostArray three = io::read_npy((kiln::test::data_dir() / "npy" / "i8_3.npy").string());
    CHECK(std::vector<int64_t>(three.as<int64_t>().begin(), three.as<int64_t>().end()) ==
          std::vector<int64_t>{0, 1, 2});
}

TEST_CASE("npy float16 reads as float32 bit for bit as NumPy converts it", "[io][formats]") {
    // Zero, every subnormal, the largest normals, infinities and NaNs (with
    // their payloads) of both signs: the conversion is exact, so the bytes match.
    const HostArray want = io::read_npy(fixture("f2_sample_as_f4.npy"));
    REQUIRE(want.dtype == DType::float32);
    for (const char* file : {"le_f2_sample.npy", "be_f2_sample.npy"}) {
        INFO(file);
        check_same_array(io::read_npy(fixture(file)), want);
        check_same_array(io::parse_npy(kiln::io::read_file_bytes(fixture(file)), file), want);
    }
}

TEST_CASE("tiff int64/uint64, OME-TIFF: files written by tifffile", "[io][formats][tiff]") {
    for (const char* code : {"i8", "u8"}) {
        const std::string c = code;
        INFO(c);
        const HostArray page = io::read_npy(fixture(c + "_13x17.npy"));
        CHECK(page.dtype == (c == "i8" ? DType::int64 : DType::uint64));
        check_same_array(io::read_tiff(fixture(c + "_13x17.tif")), page);
        check_same_array(io::read_tiff(fixture("tiled_deflate_" + c + "_13x17.tif")), page);
        check_same_array(io::read_tiff(fixture("stack_bigtiff_" + c + "_3x9x11.tif")),
                         io::read_npy(fixture("stack_" + c + "_3x9x11.npy")));
    }
    for (const char* ome : {"ome_z_u2_5x9x11", "ome_t_f4_4x9x11", "ome_i2_9x11"}) {
        INFO(ome);
        check_same_array(io::read_array(fixture(std::string(ome) + ".ome.tif")),
                         io::read_npy(fixture(std::string(ome) + ".npy")));
    }
    const std::string zc = fixture("ome_zc_u1_2x3x5x7.ome.tif");
    CHECK_THAT(io_error([&] { io::read_tiff(zc); }),
               Catch::Contains(zc) && Catch::Contains("SizeZ=3 SizeC=2 SizeT=1") && Catch::Contains("(Z, Y, X)"));
    const std::string two = fixture("ome_two_series.ome.tif");
    CHECK_THAT(io_error([&] { io::read_tiff(two); }), Catch::Contains("2 images (series)"));
}

TEST_CASE("tiff write options: compression, tiles, BigTIFF read back exactly", "[io][formats][tiff]") {
    TempDir dir;
    unsigned seed = 1;
    const io::TiffCompression codecs[] = {io::TiffCompression::none, io::TiffCompression::lzw,
                                          io::TiffCompression::deflate, io::TiffCompression::zstd};
    for (DType dtype : array_dtypes)
        for (io::TiffCompression codec : codecs)
            for (uint32_t tile : {0u, 16u})
                for (Shape shape : {Shape{13, 17}, Shape{3, 20, 35}}) {
                    const bool big = seed % 3 == 0;
                    INFO(dtype_name(dtype) << " " << io::tiff_compression_name(codec) << " tile " << tile << " "
                                           << shape.str() << (big ? " bigtiff" : ""));
                    const HostArray a = random_array(shape, dtype, seed++);
                    const std::string path = dir.file("a.tif");
                    io::write_tiff(path, a, io::TiffWriteOptions{codec, tile, big});
                    check_same_array(io::read_tiff(path), a);
                    // BigTIFF's version number is 43 (classic: 42), in the file's byte order.
                    const std::vector<std::byte> head = kiln::io::read_file_bytes(path);
                    CHECK((head[2] == std::byte{43} || head[3] == std::byte{43}) == big);
                }
    CHECK(dir.entries() == 1);
    CHECK_THROWS_AS(io::write_tiff(dir.file("b.tif"), random_array(Shape{5, 5}, DType::uint8, 1),
                                   io::TiffWriteOptions{io::TiffCompression::none, 24, false}),
                    InvalidArgument);
    CHECK(io::parse_tiff_compression("deflate") == io::TiffCompression::deflate);
    CHECK_THROWS_WITH(io::parse_tiff_compression("jpeg"), Catch::Contains("none, lzw, deflate, zstd"));
}

TEST_CASE("hdf5 datasets by path read what h5py wrote", "[io][formats][hdf5]") {
    const std::string file = fixture("datasets.h5");
    for (const char* name : {"/entry/data/data", "/entry/data/image", "/entry/instrument/vector",
                             "/entry/data/single", "/entry/data/tiled"}) {
        INFO(name);
        std::string npy = "h5" + std::string(name);
        for (char& c : npy)
            if (c == '/') c = '_';
        check_same_array(io::read_array(file + ":" + name), io::read_npy(fixture(npy + ".npy")));
    }
    // A file without a dataset reads NeXus's default one.
    check_same_array(io::read_array(file), io::read_npy(fixture("h5_entry_data_data.npy")));
    CHECK(io::read_array(file + ":/entry/data/data").dtype == DType::int64);
    CHECK(io::read_array(file + ":/entry/data/single").shape == Shape{1, 5, 7});

    CHECK_THAT(io_error([&] { io::read_array(file + ":/entry/data/nope"); }),
               Catch::Contains(file + ":/entry/data/nope") && Catch::Contains("no such dataset") &&
                   Catch::Contains("group /entry/data holds datasets: c64, data, four_d, image, single, tiled"));
    CHECK_THAT(io_error([&] { io::read_array(file + ":/entry/nothere/x"); }),
               Catch::Contains("group /entry holds datasets: none; groups: data, empty_group, instrument"));
    CHECK_THAT(io_error([&] { io::read_array(file + ":/entry/instrument"); }),
               Catch::Contains("is a group, not a dataset; it holds datasets: vector"));
    CHECK_THAT(io_error([&] { io::read_array(file + ":/entry/data/four_d"); }),
               Catch::Contains("4 dimensions (2, 2, 3, 4)") && Catch::Contains("1, 2 or 3 dimensions"));
    CHECK_THAT(io_error([&] { io::read_array(file + ":/entry/data/c64"); }), Catch::Contains("no kiln dtype"));
    TempDir dir;
    io::write_npy(dir.file("npy.h5"), io::read_npy(fixture("le_u8_7.npy")));
    CHECK_THAT(io_error([&] { io::read_array(dir.file("npy.h5") + ":/x"); }),
               Catch::Contains("cannot open as an HDF5 file"));
}

TEST_CASE("hdf5 datasets written by path read back exactly", "[io][formats][hdf5]") {
    TempDir dir;
    unsigned seed = 1;
    for (DType dtype : array_dtypes)
        for (Shape shape : {Shape{13}, Shape{13, 17}, Shape{3, 9, 11}})
            for (int gzip : {0, 6}) {
                INFO(dtype_name(dtype) << " " << shape.str() << " gzip " << gzip);
                const HostArray a = random_array(shape, dtype, seed++);
                const std::string file = dir.file("out.nxs");
                io::write_h5_dataset(file, "/entry/result/values", a, io::H5WriteOptions{gzip});
                check_same_array(io::read_array(file + ":/entry/result/values"), a);
                io::write_array(dir.file("plain.HDF5") + ":/x", a);
                check_same_array(io::read_array(dir.file("plain.HDF5") + ":/x"), a);
            }
    CHECK(dir.entries() == 2);  // no temporary file left behind
    const HostArray a = random_array(Shape{3}, DType::uint8, 1);
    CHECK_THROWS_AS(io::write_h5_dataset(dir.file("c.h5"), "relative", a), InvalidArgument);
    CHECK_THROWS_AS(io::write_h5_dataset(dir.file("c.h5"), "/x", a, io::H5WriteOptions{10}), InvalidArgument);
    CHECK_THROWS_AS(io::write_h5_dataset(dir.path.string() + "/missing/c.h5", "/x", a), IoError);
    CHECK(dir.entries() == 2);
}

TEST_CASE("hdf5 dataset paths split at the colon after the file's extension", "[io][formats][hdf5]") {
    const auto split = [](const std::string& p) { return io::split_h5_path(p); };
    CHECK(split("a/scan.h5:/entry/data/data")->file == "a/scan.h5");
    CHECK(split("a/scan.h5:/entry/data/data")->dataset == "/entry/data/data");
    CHECK(split("x.NXS:/a")->file == "x.NXS");
    CHECK(split("odd:/name.hdf:/d")->file == "odd:/name.hdf");
    CHECK(split("scan.hdf5")->dataset == io::default_h5_dataset);
    CHECK_FALSE(split("image.tif"));
    CHECK_FALSE(split("image.npy:/x"));
    CHECK(io::known_array_extension("scan.h5:/entry/x"));
}
