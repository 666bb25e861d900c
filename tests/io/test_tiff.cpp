// TIFF reader and writer: files laid out by tifffile with the arrays they
// hold beside them as .npy (tests/data/tiff/make_fixtures.py), every refusal,
// damaged and hostile files, and write/read round trips of every dtype.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu_support.hpp"
#include "io/file.hpp"
#include "kiln/io.hpp"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& name) {
    return (kiln::test::data_dir() / "tiff" / name).string();
}

using kiln::test::io_error;
using kiln::test::TempDir;

using io::read_file_bytes;

/// Every bit pattern, so floats include NaN payloads, infinities and -0: the
/// round trip must be bit exact.
HostArray random_array(Shape shape, DType dtype, unsigned seed) {
    HostArray a(shape, dtype);
    std::mt19937 rng(seed);
    for (auto& b : a.bytes) b = std::byte(rng() & 0xff);
    return a;
}

void check_same_array(const HostArray& got, const HostArray& want) {
    CHECK(got.shape == want.shape);
    CHECK(got.dtype == want.dtype);
    CHECK(got.bytes == want.bytes);
}

/// Sets the value of a SHORT or LONG tag in the first directory of a classic
/// TIFF file (either byte order), as a crafted file would declare it.
void set_tag(std::vector<std::byte>& tiff, uint16_t tag, uint32_t value) {
    const bool big = tiff[0] == std::byte{'M'};
    auto get = [&](size_t at, int n) {
        uint32_t v = 0;
        for (int i = 0; i < n; ++i) v |= uint32_t(tiff[at + size_t(i)]) << (8 * (big ? n - 1 - i : i));
        return v;
    };
    auto put = [&](size_t at, int n, uint32_t v) {
        for (int i = 0; i < n; ++i) tiff[at + size_t(i)] = std::byte(v >> (8 * (big ? n - 1 - i : i)));
    };
    const size_t ifd = get(4, 4);
    for (size_t e = 0, n = get(ifd, 2); e < n; ++e) {
        const size_t entry = ifd + 2 + 12 * e;
        if (get(entry, 2) != tag) continue;
        REQUIRE(get(entry + 4, 4) == 1);
        const uint32_t type = get(entry + 2, 2);
        REQUIRE((type == 3 || type == 4));
        put(entry + 8, type == 3 ? 2 : 4, value);
        return;
    }
    FAIL("tag " << tag << " is not in the first directory");
}

/// What the code run by f writes to stderr (file descriptor 2).
template <typename F>
std::string stderr_of(F&& f) {
    TempDir dir;
    const std::string path = dir.file("stderr.txt");
    fflush(stderr);
    const int saved = dup(2);
    const int file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE((saved >= 0 && file >= 0));
    dup2(file, 2);
    close(file);
    f();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// clang-format off
const char* const readable[] = {
    "u1_13x17", "i1_13x17", "u2_13x17", "i2_13x17", "u4_13x17", "i4_13x17", "f4_13x17", "f8_13x17",
    "be_i2_13x17", "be_u4_13x17", "be_f4_13x17", "be_f8_13x17", "rows4_u2_13x17", "bigtiff_be_u2_13x17",
    "deflate_pred_u2_13x17", "deflate_fpred_f4_13x17", "lzw_u1_64x80", "lzw_be_f4_13x17",
    "packbits_i2_13x17", "lzma_i4_13x17", "tiled_u2_20x35", "tiled_deflate_be_f8_20x35",
    "miniswhite_u1_13x17", "stack_u2_3x13x17", "stack_tiled_deflate_be_f4_4x9x11"};
// clang-format on

}  // namespace

TEST_CASE("tiff reads files written by tifffile", "[io][tiff]") {
    for (const char* name : readable) {
        INFO(name);
        const std::string tif = fixture(std::string(name) + ".tif");
        const HostArray want = io::read_npy(fixture(std::string(name) + ".npy"));
        check_same_array(io::read_tiff(tif), want);
        check_same_array(io::parse_tiff(read_file_bytes(tif), name), want);
        check_same_array(io::read_array(tif), want);
    }
    // The fixtures cover every kiln dtype, 2-D and 3-D.
    CHECK(io::read_tiff(fixture("stack_u2_3x13x17.tif")).shape == Shape{3, 13, 17});
    CHECK(io::read_tiff(fixture("i1_13x17.tif")).dtype == DType::int8);
}

TEST_CASE("tiff round trip of every dtype, 2-D and 3-D", "[io][tiff]") {
    TempDir dir;
    unsigned seed = 1;
    for (DType dtype : array_dtypes) {
        // (300, 1031) float64 rows are 8248 bytes: several strips of 127 rows.
        for (Shape shape :
             {Shape{13, 17}, Shape{3, 13, 17}, Shape{1, 31}, Shape{2, 1, 1}, Shape{300, 1031}}) {
            INFO(dtype_name(dtype) << " " << shape.str());
            const HostArray a = random_array(shape, dtype, seed++);
            const std::string path = dir.file("a.tif");
            io::write_tiff(path, a);
            check_same_array(io::read_tiff(path), a);
            io::write_array(dir.file("b.TIFF"), a);
            check_same_array(io::read_array(dir.file("b.TIFF")), a);
        }
    }
    CHECK(dir.entries() == 2);  // no temporaries left behind
    // A stack of one page is one page.
    const HostArray one = random_array({1, 5, 7}, DType::uint16, 99);
    io::write_tiff(dir.file("one.tif"), one);
    const HostArray back = io::read_tiff(dir.file("one.tif"));
    CHECK(back.shape == Shape{5, 7});
    CHECK(back.bytes == one.bytes);
}

TEST_CASE("tiff refuses what kiln cannot represent", "[io][tiff]") {
    // The message names the file, says what is wrong with it and what kiln reads.
    auto refusal = [](const char* file) {
        const std::string msg = io_error([&] { io::read_tiff(fixture(file)); });
        CHECK_THAT(msg, Catch::Contains(fixture(file)) &&
                            Catch::Contains("kiln reads single-channel (gray) images of 8-, 16-, 32- or 64-bit"));
        return msg;
    };
    CHECK_THAT(refusal("rgb_u1_5x7.tif"), Catch::Contains("page 0 has 3 samples per pixel (RGB"));
    CHECK_THAT(refusal("palette_u1_5x7.tif"), Catch::Contains("page 0 is a palette-colour image"));
    CHECK_THAT(refusal("f2_5x7.tif"), Catch::Contains("holds 16-bit floats"));
    CHECK_THAT(refusal("c8_5x7.tif"), Catch::Contains("holds 64-bit complex floats"));
    CHECK_THAT(refusal("bool_5x7.tif"), Catch::Contains("holds 1-bit unsigned integers") &&
                                            Catch::Contains("convert 1-bit images to 8-bit"));
    CHECK_THAT(refusal("pages_of_two_shapes.tif"),
               Catch::Contains("page 1 is 6 x 7 uint16 but page 0 is 5 x 7 uint16"));
    CHECK_THAT(refusal("pages_of_two_dtypes.tif"),
               Catch::Contains("page 1 is 5 x 7 float32 but page 0 is 5 x 7 uint16"));
}

TEST_CASE("tiff refuses damaged files with libtiff's reason", "[io][tiff]") {
    TempDir dir;
    const std::vector<std::byte> plain = read_file_bytes(fixture("f4_13x17.tif"));
    const std::vector<std::byte> deflate = read_file_bytes(fixture("deflate_pred_u2_13x17.tif"));
    auto parse = [](const std::vector<std::byte>& b) { io::parse_tiff(b, "x.tif"); };

    SECTION("uncompressed data cut short") {
        std::ofstream(dir.file("cut.tif"), std::ios::binary)
            .write(reinterpret_cast<const char*>(plain.data()), std::streamsize(plain.size() - 100));
        const std::string msg = io_error([&] { io::read_tiff(dir.file("cut.tif")); });
        CHECK_THAT(msg, Catch::Contains(dir.file("cut.tif")) && Catch::Contains("strip 0 needs bytes") &&
                            Catch::Contains("the file is truncated"));
    }
    SECTION("compressed data cut short") {
        const std::string msg = io_error([&] { parse({deflate.begin(), deflate.end() - 40}); });
        CHECK_THAT(msg, Catch::Contains("cannot decode strip 3 of page 0") && Catch::Contains("libtiff: "));
    }
    SECTION("compressed data overwritten") {
        std::vector<std::byte> bad = deflate;
        for (size_t i = bad.size() - 200; i < bad.size(); ++i) bad[i] = std::byte(i * 37);
        CHECK_THAT(io_error([&] { parse(bad); }),
                   Catch::Contains("cannot decode strip") && Catch::Contains("libtiff: "));
    }
    SECTION("directories cut off, and files that are not TIFF") {
        for (size_t cut : {size_t(0), size_t(7), size_t(8), size_t(12), size_t(60)}) {
            INFO(cut);
            CHECK_THAT(io_error([&] {
                           parse({plain.begin(), plain.begin() + ptrdiff_t(cut)});
                       }),
                       Catch::Contains("x.tif"));
        }
        CHECK_THAT(io_error([&] { parse(read_file_bytes(fixture("u1_13x17.npy"))); }),
                   Catch::Contains("not a TIFF file"));
        CHECK_THAT(io_error([&] { io::read_tiff(dir.file("missing.tif")); }),
                   Catch::Contains("No such file"));
    }
    SECTION("no message reaches stderr") {
        std::vector<std::byte> overwritten = deflate;
        for (size_t i = 200; i < overwritten.size(); ++i) overwritten[i] = std::byte(i * 37);
        const std::string printed = stderr_of([&] {
            io_error([&] { parse({deflate.begin(), deflate.end() - 40}); });
            io_error([&] { parse(overwritten); });
            io_error([&] { parse({plain.begin(), plain.begin() + 60}); });
            io_error([&] { parse({plain.begin(), plain.begin() + 12}); });
        });
        CHECK(printed.empty());
    }
}

TEST_CASE("tiff refuses crafted sizes before allocating", "[io][tiff][hostile]") {
    constexpr uint16_t width = 256, length = 257, rows_per_strip = 278;
    SECTION("a compressed image far larger than its data could expand to") {
        // 1100 bytes of LZMA data (one strip) cannot hold 16 GiB of int32.
        std::vector<std::byte> b = read_file_bytes(fixture("lzma_i4_13x17.tif"));
        set_tag(b, width, 65536);
        set_tag(b, length, 65536);
        set_tag(b, rows_per_strip, 65536);
        const std::string msg = io_error([&] { io::parse_tiff(b, "big.tif"); });
        CHECK_THAT(msg, Catch::Contains("declares 17179869184 bytes of pixels") &&
                            Catch::Contains("expands at most 65536-fold"));
    }
    SECTION("an uncompressed image beyond the end of the file") {
        std::vector<std::byte> b = read_file_bytes(fixture("u1_13x17.tif"));
        set_tag(b, length, 4000000);
        set_tag(b, rows_per_strip, 4000000);
        CHECK_THAT(io_error([&] { io::parse_tiff(b, "long.tif"); }),
                   Catch::Contains("needs bytes") && Catch::Contains("the file is truncated"));
    }
    SECTION("more strips than the directory lists") {
        // libtiff fills the missing strips in with empty ones at offset 0.
        std::vector<std::byte> b = read_file_bytes(fixture("u1_13x17.tif"));
        set_tag(b, rows_per_strip, 4);
        CHECK_THAT(io_error([&] { io::parse_tiff(b, "strips.tif"); }),
                   Catch::Contains("strip 1 holds 0 bytes but its pixels need 68"));
    }
}

TEST_CASE("tiff reads from several threads at once", "[io][tiff]") {
    // Each thread's messages are its own: libtiff's handlers are per file.
    std::vector<std::string> failures(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < failures.size(); ++t) {
        threads.emplace_back([t, &failures] {
            const std::string good = fixture(readable[t * 5]), bad = fixture("rgb_u1_5x7.tif");
            const HostArray want = io::read_npy(good + ".npy");
            for (int i = 0; i < 20; ++i) {
                if (io::read_tiff(good + ".tif").bytes != want.bytes) failures[t] = "wrong values";
                const std::vector<std::byte> cut = read_file_bytes(good + ".tif");
                const std::string name = "thread" + std::to_string(t) + ".tif";
                try {
                    io::parse_tiff(std::span(cut).first(cut.size() / 2), name);
                    failures[t] = "no error";
                } catch (const IoError& e) {
                    if (std::string(e.what()).find(name) == std::string::npos) failures[t] = e.what();
                }
                try {
                    io::read_tiff(bad);
                } catch (const IoError& e) {
                    if (std::string(e.what()).find("3 samples per pixel") == std::string::npos)
                        failures[t] = e.what();
                }
            }
        });
    }
    for (std::thread& t : threads) t.join();
    for (const std::string& f : failures) CHECK(f.empty());
}

TEST_CASE("tiff write refusals and atomicity", "[io][tiff]") {
    TempDir dir;
    const HostArray a = random_array({4, 6}, DType::int16, 7);
    CHECK_THROWS_AS(io::write_tiff(dir.file("a.tif"), random_array({13}, DType::uint8, 1)), InvalidArgument);
    CHECK_THROWS_AS(io::write_tiff(dir.file("a.tif"), HostArray{}), InvalidArgument);
    HostArray short_one = a;
    short_one.bytes.pop_back();
    CHECK_THROWS_AS(io::write_tiff(dir.file("a.tif"), short_one), InvalidArgument);
    CHECK(dir.entries() == 0);
    CHECK_THAT(io_error([&] { io::write_tiff(dir.file("nowhere/a.tif"), a); }),
               Catch::Contains("nowhere/a.tif") && Catch::Contains("cannot be created"));
    // A directory in the way: the rename fails and the temporary goes.
    fs::create_directory(dir.file("sub"));
    fs::create_directory(dir.file("sub/a.tif"));
    CHECK_THAT(io_error([&] { io::write_tiff(dir.file("sub/a.tif"), a); }),
               Catch::Contains("cannot be renamed into place"));
    CHECK(std::distance(fs::directory_iterator(dir.file("sub")), fs::directory_iterator{}) == 1);
    // Overwriting replaces.
    io::write_tiff(dir.file("a.tif"), random_array({2, 3, 5}, DType::float64, 3));
    io::write_tiff(dir.file("a.tif"), a);
    check_same_array(io::read_tiff(dir.file("a.tif")), a);
}
