// NPY reader and writer: round trips of every dtype, files written by NumPy
// (tests/data/make_npy.py), and every refused input.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/io.hpp"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& name) { return (kiln::test::data_dir() / "npy" / name).string(); }

/// A fresh directory under the system temp dir, removed at scope exit.
using kiln::test::TempDir;

std::vector<std::byte> file_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto* p = reinterpret_cast<const std::byte*>(c.data());
    return {p, p + c.size()};
}

/// Random values of the dtype covering its whole range (floats include NaN and
/// signed zero, so the round trip must be bit exact, not just value equal).
HostArray random_array(Shape shape, DType dtype, unsigned seed) {
    HostArray a(shape, dtype);
    std::mt19937 rng(seed);
    for (auto& b : a.bytes) b = std::byte(rng() & 0xff);
    return a;
}

long entry_count(const fs::path& dir) {
    return std::distance(fs::directory_iterator(dir), fs::directory_iterator{});
}

template <typename T> std::vector<T> values(const HostArray& a) {
    auto s = a.as<T>();
    return {s.begin(), s.end()};
}

using kiln::test::io_error;

} // namespace

TEST_CASE("npy round trip of every dtype and rank", "[io][npy]") {
    TempDir dir;
    unsigned seed = 1;
    for (DType dtype : array_dtypes) {
        for (Shape shape : {Shape{13}, Shape{3, 7}, Shape{3, 5, 7}, Shape{1}, Shape{1, 1, 1}}) {
            INFO(dtype_name(dtype) << " " << shape.str());
            HostArray a = random_array(shape, dtype, seed++);
            std::string path = dir.file("a.npy");
            io::write_npy(path, a);
            HostArray b = io::read_npy(path);
            CHECK(b.shape == a.shape);
            CHECK(b.dtype == a.dtype);
            CHECK(b.bytes == a.bytes);
            HostArray c = io::parse_npy(io::encode_npy(a), "memory");
            CHECK(c.shape == a.shape);
            CHECK(c.bytes == a.bytes);
        }
    }
}

TEST_CASE("npy writer matches numpy.save byte for byte", "[io][npy]") {
    // NumPy 1.x writes format 1.0 with the header padded to 64 bytes.
    for (const char* name : {"le_f4_3x5.npy", "u1_4.npy", "i1_9.npy"}) {
        INFO(name);
        std::vector<std::byte> from_numpy = file_bytes(fixture(name));
        REQUIRE(!from_numpy.empty());
        CHECK(io::encode_npy(io::read_npy(fixture(name))) == from_numpy);
    }
    HostArray a = HostArray::from<float>({3, 5}, std::vector<float>(15, 0.0f));
    CHECK(io::encode_npy(a).size() % 64 == 15 * 4 % 64);
}

TEST_CASE("npy reads files written by NumPy", "[io][npy]") {
    SECTION("little-endian float32 2-D") {
        HostArray a = io::read_npy(fixture("le_f4_3x5.npy"));
        CHECK(a.shape == Shape{3, 5});
        std::vector<float> expect;
        for (int i = 0; i < 15; ++i) expect.push_back(float(i) * 0.5f - 3.0f);
        CHECK(values<float>(a) == expect);
    }
    SECTION("big-endian float64 1-D") {
        HostArray a = io::read_npy(fixture("be_f8_7.npy"));
        CHECK(a.shape == Shape{7});
        CHECK(values<double>(a) ==
              std::vector<double>{-0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375});
    }
    SECTION("big-endian int16 3-D") {
        HostArray a = io::read_npy(fixture("be_i2_2x3x4.npy"));
        CHECK(a.shape == Shape{2, 3, 4});
        std::vector<int16_t> expect;
        for (int i = 0; i < 24; ++i) expect.push_back(int16_t((i - 12) * 1000));
        CHECK(values<int16_t>(a) == expect);
    }
    SECTION("big-endian uint32") {
        HostArray a = io::read_npy(fixture("be_u4_5.npy"));
        CHECK(values<uint32_t>(a) ==
              std::vector<uint32_t>{0, 1, 0xdeadbeefu, 0xffffffffu, 65536});
    }
    SECTION("format 2.0") {
        HostArray a = io::read_npy(fixture("v2_u2_4x6.npy"));
        CHECK(a.shape == Shape{4, 6});
        std::vector<uint16_t> expect;
        for (int i = 0; i < 24; ++i) expect.push_back(uint16_t(i * 2731));
        CHECK(values<uint16_t>(a) == expect);
    }
    SECTION("format 3.0") {
        HostArray a = io::read_npy(fixture("v3_i4_3.npy"));
        CHECK(values<int32_t>(a) == std::vector<int32_t>{INT32_MIN, 0, INT32_MAX});
    }
    SECTION("bool as uint8") {
        HostArray a = io::read_npy(fixture("b1_5.npy"));
        CHECK(a.dtype == DType::uint8);
        CHECK(values<uint8_t>(a) == std::vector<uint8_t>{1, 0, 1, 1, 0});
    }
    SECTION("one-byte types") {
        CHECK(values<int8_t>(io::read_npy(fixture("i1_9.npy"))) ==
              std::vector<int8_t>{-4, -3, -2, -1, 0, 1, 2, 3, 4});
        CHECK(values<uint8_t>(io::read_npy(fixture("u1_4.npy"))) ==
              std::vector<uint8_t>{0, 127, 128, 255});
    }
}

TEST_CASE("npy refuses what kiln cannot represent", "[io][npy]") {
    struct Case {
        const char* file;
        const char* says;
    };
    for (Case c : {Case{"fortran_f4_3x4.npy", "Fortran-order"},
                   Case{"object_2.npy", "object arrays"},
                   Case{"structured_2.npy", "structured dtypes"},
                   Case{"scalar_0d.npy", "0 dimensions"},
                   Case{"f4_4d.npy", "4 dimensions"},
                   Case{"empty_0x3.npy", "zero extent"}}) {
        INFO(c.file);
        std::string msg = io_error([&] { io::read_npy(fixture(c.file)); });
        CHECK_THAT(msg, Catch::Contains(c.says));
        CHECK_THAT(msg, Catch::Contains(c.file));
    }
    std::string msg = io_error([&] { io::read_npy(fixture("structured_2.npy")); });
    CHECK_THAT(msg, Catch::Contains("accepted: '<f2' '<f4'"));
}

TEST_CASE("npy refuses malformed bytes", "[io][npy]") {
    HostArray a = HostArray::from<int32_t>({2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 6});
    const std::vector<std::byte> good = io::encode_npy(a);
    const size_t header = good.size() - 24;
    REQUIRE(header % 64 == 0);
    auto parse = [](std::vector<std::byte> b) { io::parse_npy(b, "x.npy"); };
    auto edited = [&](size_t at, std::string text) {
        std::vector<std::byte> b = good;
        for (size_t i = 0; i < text.size(); ++i) b[at + i] = std::byte(text[i]);
        return b;
    };

    CHECK_THAT(io_error([&] { parse(edited(1, "NUMPX")); }), Catch::Contains("bad magic"));
    CHECK_THAT(io_error([&] { parse({}); }), Catch::Contains("bad magic"));
    CHECK_THAT(io_error([&] { parse(edited(6, "\x04")); }),
               Catch::Contains("format version 4.0"));
    for (size_t cut : {size_t(7), size_t(9), size_t(40), header - 1}) {
        INFO(cut);
        CHECK_THAT(io_error([&] { parse({good.begin(), good.begin() + cut}); }),
                   Catch::Contains("truncated header"));
    }
    for (size_t cut : {header, header + 1, header + 23}) {
        INFO(cut);
        std::string msg = io_error([&] { parse({good.begin(), good.begin() + cut}); });
        CHECK_THAT(msg, Catch::Contains("truncated data"));
        CHECK_THAT(msg, Catch::Contains("needs 24 bytes"));
    }
    // The header text starts at offset 10: "{'descr': '<i4', ..." puts the
    // key at 12 and the byte order at 21.
    CHECK_THAT(io_error([&] { parse(edited(10, "[")); }), Catch::Contains("malformed header"));
    CHECK_THAT(io_error([&] { parse(edited(12, "dexcr")); }),
               Catch::Contains("unexpected key 'dexcr'"));
    CHECK_THAT(io_error([&] { parse(edited(21, "|i4")); }), Catch::Contains("no byte order"));
    CHECK_THAT(io_error([&] { parse(edited(21, "<m8")); }), Catch::Contains("unsupported dtype"));  // timedelta64

    // Trailing bytes after the data are ignored, as numpy.load does.
    std::vector<std::byte> longer = good;
    longer.push_back(std::byte{7});
    CHECK(io::parse_npy(longer, "x.npy").as<int32_t>()[5] == 6);
    // '=' (native order) is accepted.
    CHECK(io::parse_npy(edited(21, "="), "x.npy").as<int32_t>()[5] == 6);
}

TEST_CASE("npy read of truncated and missing files", "[io][npy]") {
    TempDir dir;
    std::vector<std::byte> bytes = file_bytes(fixture("be_i2_2x3x4.npy"));
    REQUIRE(bytes.size() == 128 + 48);
    for (size_t cut : {5, 60, 128, 175}) {
        INFO(cut);
        std::string path = dir.file("cut.npy");
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(cut));
        std::string msg = io_error([&] { io::read_npy(path); });
        CHECK_THAT(msg, Catch::Contains(path));
        CHECK_THAT(msg, Catch::Contains(cut < 128 ? (cut < 6 ? "bad magic" : "truncated header")
                                                  : "truncated data"));
    }
    CHECK_THAT(io_error([&] { io::read_npy(dir.file("missing.npy")); }),
               Catch::Contains("No such file"));
    CHECK_THAT(io_error([&] { io::read_npy(dir.path.string()); }),
               Catch::Contains("not a regular file"));
}

TEST_CASE("npy write is atomic", "[io][npy]") {
    TempDir dir;
    std::string path = dir.file("a.npy");
    HostArray first = HostArray::from<float>({3}, std::vector<float>{1, 2, 3});
    io::write_npy(path, first);

    SECTION("an inconsistent array is refused before the file is touched") {
        HostArray bad = first;
        bad.bytes.pop_back();
        CHECK_THROWS_AS(io::write_npy(path, bad), InvalidArgument);
        CHECK_THROWS_AS(io::write_npy(path, HostArray{}), InvalidArgument);
        CHECK(io::read_npy(path).bytes == first.bytes);
    }
    SECTION("a failed rename leaves no temporary behind") {
        fs::create_directory(dir.file("sub"));
        fs::create_directory(dir.file("sub/a.npy"));
        std::string msg = io_error([&] { io::write_npy(dir.file("sub/a.npy"), first); });
        CHECK_THAT(msg, Catch::Contains("cannot rename"));
        CHECK(entry_count(dir.file("sub")) == 1);
    }
    SECTION("a missing directory is an IoError") {
        CHECK_THAT(io_error([&] { io::write_npy(dir.file("nowhere/a.npy"), first); }),
                   Catch::Contains("cannot create"));
    }
    SECTION("overwriting replaces the contents") {
        HostArray second = HostArray::from<uint16_t>({2, 2}, std::vector<uint16_t>{9, 8, 7, 6});
        io::write_npy(path, second);
        HostArray back = io::read_npy(path);
        CHECK(back.dtype == DType::uint16);
        CHECK(back.bytes == second.bytes);
        CHECK(entry_count(dir.path) == 1);
    }
}

TEST_CASE("npy headers declaring shapes kiln cannot hold name the shape", "[io][npy][hostile]") {
    // A header written by hand: magic, version 1.0, length, dict padded to 64.
    auto npy = [](const std::string& shape) {
        std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
        dict.append(64 - (10 + dict.size() + 1) % 64, ' ');
        dict += '\n';
        std::string out = "\x93NUMPY";
        out += char(1);
        out += char(0);
        out += char(dict.size() & 0xff);
        out += char(dict.size() >> 8);
        out += dict;
        const auto* p = reinterpret_cast<const std::byte*>(out.data());
        return std::vector<std::byte>(p, p + out.size());
    };
    // 2^32 x 2^32 elements overflow 64 bits: refused by Shape, extents whole.
    CHECK_THAT(io_error([&] { io::parse_npy(npy("(4294967296, 4294967296)"), "big.npy"); }),
               Catch::Contains("big.npy") && Catch::Contains("(4294967296, 4294967296)") &&
                   Catch::Contains("at most 2^60"));
    CHECK_THAT(io_error([&] { io::parse_npy(npy("(18446744073709551615,)"), "max.npy"); }),
               Catch::Contains("at most 2^60"));
    // A shape Shape accepts whose bytes the file lacks: both sizes, nothing allocated.
    CHECK_THAT(io_error([&] { io::parse_npy(npy("(1099511627776,)"), "tera.npy"); }),
               Catch::Contains("needs 4398046511104 bytes") && Catch::Contains("the file has 0"));
    TempDir dir;
    const std::string path = dir.file("tera.npy");
    const auto bytes = npy("(1048576, 1048576)");
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    CHECK_THAT(io_error([&] { io::read_npy(path); }),
               Catch::Contains(path) && Catch::Contains("needs 4398046511104 bytes"));
}
