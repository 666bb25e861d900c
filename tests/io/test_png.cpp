// PNG output and input: stretches worked out by hand, write/read round trips,
// label outlines on a tiny image, and PNGs built byte by byte in this file (an
// encoder independent of stb) for the 16-bit and refused cases.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/io.hpp"

using namespace kiln;
using io::Stretch;
namespace fs = std::filesystem;

namespace {

const double qnan = std::numeric_limits<double>::quiet_NaN();

using kiln::test::TempDir;

std::vector<uint8_t> file_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void put_file(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b[at]) << 24 | uint32_t(b[at + 1]) << 16 | uint32_t(b[at + 2]) << 8 | b[at + 3];
}

/// A minimal PNG encoder (stored deflate blocks, filter 0) following the PNG
/// and zlib specifications, so the reader is tested against something that is
/// not stb. samples are big-endian bytes of each row, without filter bytes.
std::vector<uint8_t> make_png(uint32_t w, uint32_t h, uint8_t depth, uint8_t color_type,
                              const std::vector<uint8_t>& samples) {
    auto crc32 = [](const uint8_t* p, size_t n) {
        uint32_t c = 0xffffffffu;
        for (size_t i = 0; i < n; ++i) {
            c ^= p[i];
            for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
        }
        return c ^ 0xffffffffu;
    };
    auto push32 = [](std::vector<uint8_t>& v, uint32_t x) {
        for (int s = 24; s >= 0; s -= 8) v.push_back(uint8_t(x >> s));
    };
    std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    auto chunk = [&](const char* type, const std::vector<uint8_t>& data) {
        push32(png, uint32_t(data.size()));
        size_t start = png.size();
        png.insert(png.end(), type, type + 4);
        png.insert(png.end(), data.begin(), data.end());
        push32(png, crc32(png.data() + start, png.size() - start));
    };
    std::vector<uint8_t> ihdr;
    push32(ihdr, w);
    push32(ihdr, h);
    ihdr.insert(ihdr.end(), {depth, color_type, 0, 0, 0});
    chunk("IHDR", ihdr);

    size_t row = samples.size() / h;
    std::vector<uint8_t> raw;
    for (uint32_t y = 0; y < h; ++y) {
        raw.push_back(0); // filter type None
        raw.insert(raw.end(), samples.begin() + y * row, samples.begin() + (y + 1) * row);
    }
    uint32_t a = 1, b = 0;
    for (uint8_t c : raw) a = (a + c) % 65521, b = (b + a) % 65521;
    std::vector<uint8_t> z = {0x78, 0x01, 0x01, uint8_t(raw.size()), uint8_t(raw.size() >> 8),
                              uint8_t(~raw.size()), uint8_t(~raw.size() >> 8)};
    z.insert(z.end(), raw.begin(), raw.end());
    push32(z, b << 16 | a);
    chunk("IDAT", z);
    chunk("IEND", {});
    return png;
}

HostArray image_of(Shape s, const std::vector<double>& v) {
    std::vector<float> f(v.begin(), v.end());
    return HostArray::from<float>(s, f);
}

using kiln::test::io_error;

} // namespace

TEST_CASE("to_gray8 linear and log stretches", "[io][png]") {
    // Auto range (-1, 1): 0 is half way, 127.5 rounds to 128; NaN is black.
    HostArray img = image_of({2, 3}, {-1, 0, 1, qnan, 0.5, -0.5});
    CHECK(io::to_gray8(img, Stretch::linear) == std::vector<uint8_t>{0, 128, 255, 0, 191, 64});
    // Log: 255 * log10(1 + 1000 x) / log10(1001) for x = 0, 0.001, 0.5, 1
    // is 0, 25.58, 229.45, 255.
    HostArray ramp = image_of({4}, {0, 0.001, 0.5, 1});
    CHECK_THROWS_AS(io::to_gray8(ramp, Stretch::log), InvalidArgument); // 1-D
    HostArray ramp2 = image_of({1, 4}, {0, 0.001, 0.5, 1});
    CHECK(io::to_gray8(ramp2, Stretch::log) == std::vector<uint8_t>{0, 26, 229, 255});
    // Explicit range clamps, infinities go to the ends.
    HostArray wide = image_of({1, 5}, {-10, 2, 6, INFINITY, -INFINITY});
    CHECK(io::to_gray8(wide, Stretch::linear, std::pair{2.0, 6.0}) ==
          std::vector<uint8_t>{0, 0, 255, 255, 0});
    // The auto range ignores infinities.
    CHECK(io::to_gray8(wide, Stretch::linear) == std::vector<uint8_t>{0, 191, 255, 255, 0});
    // Integer dtypes.
    HostArray u16 = HostArray::from<uint16_t>({1, 3}, std::vector<uint16_t>{100, 1100, 600});
    CHECK(io::to_gray8(u16, Stretch::linear) == std::vector<uint8_t>{0, 255, 128});
    // Constant and all-NaN images are black.
    CHECK(io::to_gray8(image_of({1, 2}, {7, 7}), Stretch::log) == std::vector<uint8_t>{0, 0});
    CHECK(io::to_gray8(image_of({1, 2}, {qnan, qnan}), Stretch::linear) ==
          std::vector<uint8_t>{0, 0});

    CHECK_THROWS_AS(io::to_gray8(img, Stretch::linear, std::pair{1.0, 1.0}), InvalidArgument);
    CHECK_THROWS_AS(io::to_gray8(img, Stretch::linear, std::pair{0.0, qnan}), InvalidArgument);
    CHECK_THROWS_AS(io::to_gray8(HostArray({2, 3, 4}, DType::uint8), Stretch::linear),
                    InvalidArgument);
}

TEST_CASE("gray PNG write then read gives the stretched pixels", "[io][png]") {
    TempDir dir;
    SECTION("uint8 with range (0, 255) is the identity") {
        std::vector<uint8_t> v(13 * 17);
        for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(i * 37 % 256);
        HostArray a = HostArray::from<uint8_t>({13, 17}, v);
        io::write_png_gray(dir.file("a.png"), a, Stretch::linear, std::pair{0.0, 255.0});
        HostArray b = io::read_png(dir.file("a.png"));
        CHECK(b.dtype == DType::uint8);
        CHECK(b.shape == Shape{13, 17});
        CHECK(b.bytes == a.bytes);
    }
    SECTION("float64 with the auto range") {
        HostArray a = HostArray::from<double>({2, 3}, std::vector<double>{3, 5, qnan, 7, 4, 6});
        io::write_png_gray(dir.file("b.png"), a, Stretch::linear);
        HostArray b = io::read_png(dir.file("b.png"));
        CHECK(b.shape == Shape{2, 3});
        auto px = b.as<uint8_t>();
        CHECK(std::vector<uint8_t>(px.begin(), px.end()) ==
              std::vector<uint8_t>{0, 128, 0, 255, 64, 191});
        std::vector<uint8_t> bytes = file_bytes(dir.file("b.png"));
        CHECK(be32(bytes, 16) == 3); // IHDR width
        CHECK(be32(bytes, 20) == 2); // IHDR height
        CHECK(int(bytes[25]) == 0);  // colour type gray
    }
}

TEST_CASE("RGB PNG write", "[io][png]") {
    TempDir dir;
    std::vector<uint8_t> rgb(5 * 3 * 3);
    for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = uint8_t(i * 7);
    io::write_png_rgb(dir.file("c.png"), 5, 3, rgb);
    std::vector<uint8_t> bytes = file_bytes(dir.file("c.png"));
    REQUIRE(bytes.size() > 33);
    CHECK(be32(bytes, 16) == 5);
    CHECK(be32(bytes, 20) == 3);
    CHECK(int(bytes[24]) == 8); // bit depth
    CHECK(int(bytes[25]) == 2); // colour type RGB
    CHECK_THAT(io_error([&] { io::read_png(dir.file("c.png")); }),
               Catch::Contains("3 channels"));
    CHECK_THROWS_AS(io::write_png_rgb(dir.file("d.png"), 5, 3, std::span(rgb).first(44)),
                    InvalidArgument);
    CHECK_THROWS_AS(io::write_png_rgb(dir.file("d.png"), 0, 3, {}), InvalidArgument);
    CHECK(!fs::exists(dir.file("d.png")));
}

TEST_CASE("label outlines on a tiny image", "[io][png]") {
    // Expected boundary worked out by hand and equal to
    // skimage.segmentation.find_boundaries(labels, connectivity=1, mode="inner").
    const std::vector<int32_t> labels = {0, 0, 0, 0, 0, 0, 0, //
                                         0, 1, 1, 1, 3, 0, 0, //
                                         0, 1, 1, 1, 3, 0, 0, //
                                         0, 1, 1, 1, 0, 2, 2, //
                                         0, 0, 0, 0, 2, 2, 2, //
                                         0, 0, 0, 0, 2, 2, 2};
    const std::vector<int> boundary = {0, 0, 0, 0, 0, 0, 0, //
                                       0, 1, 1, 1, 1, 0, 0, //
                                       0, 1, 0, 1, 1, 0, 0, //
                                       0, 1, 1, 1, 0, 1, 1, //
                                       0, 0, 0, 0, 1, 0, 0, //
                                       0, 0, 0, 0, 1, 0, 0};
    std::vector<double> ramp(42);
    for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = double(i);
    HostArray img = image_of({6, 7}, ramp);
    HostArray lab = HostArray::from<int32_t>({6, 7}, labels);
    const std::array<uint8_t, 3> red = {255, 0, 0};
    std::vector<uint8_t> rgb = io::gray_to_rgb_with_outlines(img, lab, Stretch::linear, red);
    REQUIRE(rgb.size() == 42 * 3);
    for (size_t i = 0; i < 42; ++i) {
        INFO("pixel " << i / 7 << "," << i % 7);
        uint8_t gray = uint8_t(std::lround(255.0 * double(i) / 41.0));
        std::array<uint8_t, 3> want = boundary[i] ? red : std::array<uint8_t, 3>{gray, gray, gray};
        CHECK(std::array<uint8_t, 3>{rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]} == want);
    }
    CHECK_THROWS_AS(io::gray_to_rgb_with_outlines(img, HostArray({6, 7}, DType::uint8),
                                                  Stretch::linear, red),
                    InvalidArgument);
    CHECK_THROWS_AS(io::gray_to_rgb_with_outlines(img, HostArray({7, 6}, DType::int32),
                                                  Stretch::linear, red),
                    InvalidArgument);
}

TEST_CASE("read_png of PNGs built by hand", "[io][png]") {
    TempDir dir;
    SECTION("16-bit gray gives uint16") {
        std::vector<uint16_t> v = {0, 1, 258, 65535, 40000, 12345};
        std::vector<uint8_t> be;
        for (uint16_t x : v) be.insert(be.end(), {uint8_t(x >> 8), uint8_t(x)});
        put_file(dir.file("g16.png"), make_png(3, 2, 16, 0, be));
        HostArray a = io::read_png(dir.file("g16.png"));
        CHECK(a.dtype == DType::uint16);
        CHECK(a.shape == Shape{2, 3});
        auto px = a.as<uint16_t>();
        CHECK(std::vector<uint16_t>(px.begin(), px.end()) == v);
    }
    SECTION("8-bit gray gives uint8") {
        std::vector<uint8_t> v = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 255, 128, 77};
        put_file(dir.file("g8.png"), make_png(13, 1, 8, 0, v));
        HostArray a = io::read_png(dir.file("g8.png"));
        CHECK(a.shape == Shape{1, 13});
        CHECK(std::vector<uint8_t>(a.as<uint8_t>().begin(), a.as<uint8_t>().end()) == v);
    }
    SECTION("gray+alpha is refused") {
        put_file(dir.file("ga.png"), make_png(1, 1, 8, 4, {10, 255}));
        CHECK_THAT(io_error([&] { io::read_png(dir.file("ga.png")); }),
                   Catch::Contains("2 channels") && Catch::Contains("gray"));
    }
    SECTION("corrupt, foreign and missing files") {
        std::vector<uint8_t> good = make_png(4, 4, 8, 0, std::vector<uint8_t>(16, 50));
        std::vector<uint8_t> cut(good.begin(), good.begin() + 40);
        put_file(dir.file("cut.png"), cut);
        std::string msg = io_error([&] { io::read_png(dir.file("cut.png")); });
        CHECK_THAT(msg, Catch::Contains("corrupt PNG") && Catch::Contains("cut.png"));
        put_file(dir.file("text.png"), {'h', 'e', 'l', 'l', 'o', ' ', 'p', 'n', 'g'});
        CHECK_THAT(io_error([&] { io::read_png(dir.file("text.png")); }),
                   Catch::Contains("not a PNG"));
        CHECK_THAT(io_error([&] { io::read_png(dir.file("none.png")); }),
                   Catch::Contains("No such file"));
    }
}
