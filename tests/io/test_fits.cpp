// io::read_fits / write_fits against files written by cfitsio calls made
// here (raw integers plus scaling keywords, tables, several HDUs), by astropy
// (fixtures from tests/data/make_astro.py), and against broken files.
#include <catch2/catch.hpp>

#include <fitsio.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/io.hpp"

namespace fs = std::filesystem;
using kiln::DType;
using kiln::HostArray;
using kiln::Shape;

namespace {

// A fresh directory per test, removed afterwards.
using kiln::test::TempDir;

// Thin cfitsio writer for fixtures: every call must succeed.
class RawFits {
public:
    explicit RawFits(const std::string& path) { ok(fits_create_diskfile(&f_, path.c_str(), &s_)); }
    ~RawFits() {
        int status = 0;
        if (f_) fits_close_file(f_, &status);
    }
    RawFits& image(int bitpix, std::vector<long> fits_axes) {
        ok(fits_create_img(f_, bitpix, int(fits_axes.size()), fits_axes.data(), &s_));
        return *this;
    }
    template <typename T>
    RawFits& pixels(int type, std::vector<T> values) {
        ok(fits_write_img(f_, type, 1, LONGLONG(values.size()), values.data(), &s_));
        return *this;
    }
    // Written after the pixels, so cfitsio stored the raw values unscaled.
    RawFits& key(const char* name, double value) {
        // Integers as integers: BLANK must be one.
        LONGLONG integer = LONGLONG(value);
        if (double(integer) == value)
            ok(fits_write_key(f_, TLONGLONG, name, &integer, nullptr, &s_));
        else
            ok(fits_write_key(f_, TDOUBLE, name, &value, nullptr, &s_));
        return *this;
    }
    RawFits& name(const char* extname) {
        ok(fits_write_key(f_, TSTRING, "EXTNAME", const_cast<char*>(extname), nullptr, &s_));
        return *this;
    }
    RawFits& table(const char* extname) {
        char col[] = "FLUX", form[] = "E";
        char* names[] = {col};
        char* forms[] = {form};
        ok(fits_create_tbl(f_, BINARY_TBL, 2, 1, names, forms, nullptr, extname, &s_));
        float values[] = {1.5f, 2.5f};
        ok(fits_write_col(f_, TFLOAT, 1, 1, 1, 2, values, &s_));
        return *this;
    }
    // Pixels equal to null are stored as undefined (ZBLANK when compressed).
    RawFits& pixels_with_null(std::vector<float> values, float null) {
        LONGLONG first[2] = {1, 1};
        ok(fits_write_pixnullll(f_, TFLOAT, first, LONGLONG(values.size()), values.data(), &null, &s_));
        return *this;
    }
    RawFits& compressed() {
        ok(fits_set_compression_type(f_, RICE_1, &s_));
        return *this;
    }

private:
    void ok(int status) {
        char text[FLEN_STATUS] = {};
        fits_get_errstatus(status, text);
        INFO("cfitsio: " << text);
        REQUIRE(status == 0);
    }
    fitsfile* f_ = nullptr;
    int s_ = 0;
};

// The header keyword as written in the file (checked with cfitsio directly).
double header_value(const std::string& path, const char* key) {
    fitsfile* f = nullptr;
    int status = 0;
    double v = std::numeric_limits<double>::quiet_NaN();
    fits_open_diskfile(&f, path.c_str(), READONLY, &status);
    fits_read_key(f, TDOUBLE, key, &v, nullptr, &status);
    int close_status = 0;
    fits_close_file(f, &close_status);
    return status ? std::numeric_limits<double>::quiet_NaN() : v;
}

// Equal element for element, NaN matching NaN.
void check_values(const HostArray& a, const std::vector<double>& want) {
    REQUIRE(a.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        INFO("element " << i);
        if (std::isnan(want[i]))
            CHECK(std::isnan(a.at(i)));
        else
            CHECK(a.at(i) == want[i]);
    }
}

HostArray random_array(Shape shape, DType dtype, uint32_t seed) {
    HostArray a(shape, dtype);
    std::mt19937 bits(seed);
    for (auto& byte : a.bytes) byte = std::byte(bits() & 0xff);
    // Random bytes give NaN and infinities rarely: place them on purpose.
    kiln::visit_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        auto v = a.as<T>();
        v[0] = std::numeric_limits<T>::lowest();
        v[1] = std::numeric_limits<T>::max();
        if constexpr (std::is_floating_point_v<T>) {
            for (size_t i = 2; i < v.size(); ++i) v[i] = T(int32_t(bits())) / T(1 << 20);
            v[2] = std::numeric_limits<T>::quiet_NaN();
            v[3] = -std::numeric_limits<T>::infinity();
        }
    });
    return a;
}

}  // namespace

TEST_CASE("FITS round trip of every dtype and rank", "[io][fits]") {
    TempDir dir;
    const Shape shapes[] = {Shape{13}, Shape{13, 17}, Shape{3, 5, 7}, Shape{1, 5, 7}};
    // BITPIX and BZERO each dtype must be stored with (the FITS conventions).
    const struct {
        DType dtype;
        int bitpix;
        double bzero;
    } kinds[] = {{DType::float32, -32, 0}, {DType::float64, -64, 0},
                 {DType::int8, 8, -128},   {DType::uint8, 8, 0},
                 {DType::int16, 16, 0},    {DType::uint16, 16, 32768},
                 {DType::int32, 32, 0},    {DType::uint32, 32, 2147483648.0},
                 {DType::int64, 64, 0},    {DType::uint64, 64, 9223372036854775808.0}};
    uint32_t seed = 1;
    for (const auto& kind : kinds)
        for (const Shape& shape : shapes) {
            INFO(kiln::dtype_name(kind.dtype) << " " << shape.str());
            const HostArray a = random_array(shape, kind.dtype, seed++);
            const std::string path = dir.file("a.fits");
            kiln::io::write_fits(path, a);
            CHECK(header_value(path, "BITPIX") == kind.bitpix);
            CHECK(header_value(path, "NAXIS1") == double(shape[shape.ndim() - 1]));
            if (kind.bzero != 0) CHECK(header_value(path, "BZERO") == kind.bzero);
            const HostArray b = kiln::io::read_fits(path);
            CHECK(b.dtype == a.dtype);
            CHECK(b.shape == a.shape);
            // Bit for bit, NaN included.
            CHECK(b.bytes == a.bytes);
        }
    CHECK(dir.entries() == 1);  // no temporary file left behind
}

TEST_CASE("FITS scaling and blanks give the documented dtypes", "[io][fits]") {
    TempDir dir;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::string path = dir.file("scaled.fits");
    auto read = [&] { return kiln::io::read_fits(path); };
    const std::vector<short> raw16{-32768, -999, 0, 7, 32767, 12};

    SECTION("BITPIX 16 with BSCALE and BZERO -> float32") {
        RawFits(path).image(16, {3, 2}).pixels(TSHORT, raw16).key("BSCALE", 2.5).key("BZERO", -3);
        const HostArray a = read();
        CHECK(a.dtype == DType::float32);
        CHECK(a.shape == Shape{2, 3});
        std::vector<double> want;
        for (short r : raw16) want.push_back(double(float(r * 2.5 - 3)));
        check_values(a, want);
    }
    SECTION("BITPIX 16 with BZERO 32768 -> uint16") {
        RawFits(path).image(16, {6}).pixels(TSHORT, raw16).key("BZERO", 32768);
        const HostArray a = read();
        CHECK(a.dtype == DType::uint16);
        check_values(a, {0, 31769, 32768, 32775, 65535, 32780});
    }
    SECTION("BITPIX 16 with BLANK -> float32 with NaN") {
        RawFits(path).image(16, {6}).pixels(TSHORT, raw16).key("BLANK", -999);
        const HostArray a = read();
        CHECK(a.dtype == DType::float32);
        check_values(a, {-32768, nan, 0, 7, 32767, 12});
    }
    SECTION("BITPIX 32 with BLANK and BZERO -> float64 with NaN") {
        const std::vector<int> raw{-2147483647 - 1, 5, 2147483647, -1};
        RawFits(path).image(32, {4}).pixels(TINT, raw).key("BLANK", -1).key("BZERO", 10);
        const HostArray a = read();
        CHECK(a.dtype == DType::float64);
        check_values(a, {-2147483638.0, 15, 2147483657.0, nan});
    }
    SECTION("BITPIX 32 with an integer BZERO other than 2^31 -> float64") {
        RawFits(path).image(32, {2}).pixels(TINT, std::vector<int>{1, -1}).key("BZERO", 5);
        const HostArray a = read();
        CHECK(a.dtype == DType::float64);
        check_values(a, {6, 4});
    }
    SECTION("BITPIX 8 with BSCALE -> float32; with BZERO -128 -> int8") {
        const std::vector<unsigned char> raw8{0, 1, 128, 255};
        RawFits(path).image(8, {4}).pixels(TBYTE, raw8).key("BSCALE", 0.5);
        CHECK(read().dtype == DType::float32);
        check_values(read(), {0, 0.5, 64, 127.5});
        fs::remove(path);
        RawFits(path).image(8, {4}).pixels(TBYTE, raw8).key("BZERO", -128);
        CHECK(read().dtype == DType::int8);
        check_values(read(), {-128, -127, 0, 127});
    }
    SECTION("BITPIX 64 -> int64, every value exactly") {
        const std::vector<LONGLONG> raw{-(1ll << 40), 3, (1ll << 53) + 1, INT64_MIN, INT64_MAX};
        RawFits(path).image(64, {5}).pixels(TLONGLONG, raw);
        const HostArray a = read();
        CHECK(a.dtype == DType::int64);
        CHECK(std::vector<int64_t>(a.as<int64_t>().begin(), a.as<int64_t>().end()) ==
              std::vector<int64_t>(raw.begin(), raw.end()));
    }
    SECTION("BITPIX -32 keeps NaN and applies BSCALE") {
        const std::vector<float> raw{1.5f, float(nan), -2};
        RawFits(path).image(-32, {3}).pixels(TFLOAT, raw).key("BSCALE", 2);
        const HostArray a = read();
        CHECK(a.dtype == DType::float32);
        check_values(a, {3, nan, -4});
    }
}

TEST_CASE("FITS extensions are found by name", "[io][fits]") {
    TempDir dir;
    const std::string path = dir.file("multi.fits");
    {
        RawFits f(path);
        f.image(8, {});
        f.image(16, {3, 2}).pixels(TSHORT, std::vector<short>{1, 2, 3, 4, 5, 6}).name("SCI");
        f.table("CAT");
        f.image(-32, {2, 1}).pixels(TFLOAT, std::vector<float>{0.25f, -1}).name("ERR");
        f.image(-32, {1}).pixels(TFLOAT, std::vector<float>{9});  // unnamed
        f.image(16, {}).name("EMPTY");
    }
    CHECK(kiln::io::fits_image_extensions(path) == std::vector<std::string>{"SCI", "ERR"});

    const HostArray first = kiln::io::read_fits(path);  // empty primary: first image extension
    CHECK(first.dtype == DType::int16);
    CHECK(first.shape == Shape{2, 3});
    check_values(first, {1, 2, 3, 4, 5, 6});
    const HostArray err = kiln::io::read_fits(path, "err");
    CHECK(err.shape == Shape{1, 2});
    check_values(err, {0.25, -1});

    CHECK_THROWS_WITH(kiln::io::read_fits(path, "NOPE"),
                      Catch::Contains(path) && Catch::Contains("NOPE") && Catch::Contains("SCI, ERR"));
    CHECK_THROWS_WITH(kiln::io::read_fits(path, "CAT"), Catch::Contains("binary table"));
    CHECK_THROWS_WITH(kiln::io::read_fits(path, "EMPTY"), Catch::Contains("no data"));

    const std::string tables = dir.file("tables.fits");
    RawFits(tables).image(8, {}).table("CAT");
    CHECK_THROWS_WITH(kiln::io::read_fits(tables), Catch::Contains("holds no image"));
    CHECK(kiln::io::fits_image_extensions(tables).empty());
}

TEST_CASE("FITS axes: degenerate ones beyond three are dropped", "[io][fits]") {
    TempDir dir;
    const std::string path = dir.file("axes.fits");
    std::vector<float> values(7 * 5 * 3);
    for (size_t i = 0; i < values.size(); ++i) values[i] = float(i);
    RawFits(path).image(-32, {7, 5, 1, 3}).pixels(TFLOAT, values);
    const HostArray a = kiln::io::read_fits(path);
    CHECK(a.shape == Shape{3, 5, 7});
    check_values(a, std::vector<double>(values.begin(), values.end()));

    fs::remove(path);
    RawFits(path).image(-32, {7, 5, 1, 3, 2}).pixels(TFLOAT, values).pixels(TFLOAT, values);
    CHECK_THROWS_WITH(kiln::io::read_fits(path), Catch::Contains("(7, 5, 1, 3, 2)"));
}

TEST_CASE("FITS tile-compressed images read like plain ones", "[io][fits]") {
    TempDir dir;
    const std::string path = dir.file("rice.fits");
    std::vector<short> values(31 * 29);
    for (size_t i = 0; i < values.size(); ++i) values[i] = short(int(i * 37 % 2001) - 1000);
    RawFits(path).compressed().image(16, {29, 31}).pixels(TSHORT, values);
    const HostArray a = kiln::io::read_fits(path);
    CHECK(a.dtype == DType::int16);
    CHECK(a.shape == Shape{31, 29});
    check_values(a, std::vector<double>(values.begin(), values.end()));

    // Quantized floats: undefined pixels come back as NaN, the rest within
    // the quantization step (cfitsio's default is sigma / 4 of the noise).
    const std::string floats = dir.file("rice_float.fits");
    std::vector<float> smooth(50 * 40);
    for (size_t i = 0; i < smooth.size(); ++i) smooth[i] = float(std::sin(double(i) * 0.1));
    smooth[5] = smooth[1999] = -9999;
    RawFits(floats).compressed().image(-32, {50, 40}).pixels_with_null(smooth, -9999);
    const HostArray f = kiln::io::read_fits(floats);
    CHECK(f.dtype == DType::float32);
    CHECK(std::isnan(f.at(5)));
    CHECK(std::isnan(f.at(1999)));
    for (size_t i = 0; i < smooth.size(); ++i)
        if (i != 5 && i != 1999) REQUIRE(f.at(i) == Approx(smooth[i]).margin(0.01));
}

TEST_CASE("FITS files written by astropy", "[io][fits]") {
    struct FitsCase {
        const char* file;
        const char* extension;
        std::vector<size_t> shape;
        const char* dtype;
        std::vector<double> values;
    };
    const FitsCase cases[] = {
#include "../data/astro/fits_cases.inc"
    };
    for (const FitsCase& c : cases) {
        INFO(c.file << " [" << c.extension << "]");
        const HostArray a = kiln::io::read_fits((kiln::test::data_dir() / "astro" / c.file).string(), c.extension);
        // As documented: with more than 3 axes, length-1 axes beyond the second go.
        std::vector<size_t> dims;
        for (size_t i = 0; i < c.shape.size(); ++i)
            if (c.shape.size() <= 3 || i + 2 >= c.shape.size() || c.shape[i] != 1) dims.push_back(c.shape[i]);
        CHECK(a.shape == Shape::of(dims.size(), dims.data()));
        const std::string dtype = c.dtype;
        CHECK(a.dtype == kiln::parse_dtype(dtype));
        check_values(a, c.values);
    }
}

TEST_CASE("FITS errors name the file and the problem", "[io][fits]") {
    TempDir dir;
    const std::string good = dir.file("good.fits");
    HostArray image(Shape{40, 50}, DType::float32);
    kiln::io::write_fits(good, image);
    std::ifstream in(good, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const auto write_bytes = [&](const std::string& name, const std::string& content) {
        std::ofstream(dir.file(name), std::ios::binary) << content;
        return dir.file(name);
    };

    const std::string short_data = write_bytes("short_data.fits", bytes.substr(0, 2880 + 4000));
    CHECK_THROWS_AS(kiln::io::read_fits(short_data), kiln::IoError);
    // Refused before anything is allocated, with the size the header asks
    // for and the size the file has.
    CHECK_THROWS_WITH(kiln::io::read_fits(short_data), Catch::Contains(short_data) &&
                                                           Catch::Contains("needs 10880 bytes") &&
                                                           Catch::Contains("it has 6880"));
    const std::string short_header = write_bytes("short_header.fits", bytes.substr(0, 1000));
    CHECK_THROWS_WITH(kiln::io::read_fits(short_header), Catch::Contains(short_header));
    const std::string text = write_bytes("notes.txt", "SIMPLE? no, just some text\n");
    CHECK_THROWS_WITH(kiln::io::read_fits(text), Catch::Contains(text) && Catch::Contains("not FITS"));
    const std::string empty = write_bytes("empty.fits", "");
    CHECK_THROWS_AS(kiln::io::read_fits(empty), kiln::IoError);
    CHECK_THROWS_AS(kiln::io::fits_image_extensions(text), kiln::IoError);
    CHECK_THROWS_WITH(kiln::io::read_fits(dir.file("missing.fits")), Catch::Contains("no such file"));
}

TEST_CASE("FITS writes replace files whole or not at all", "[io][fits]") {
    TempDir dir;
    const std::string path = dir.file("out.fits");
    const HostArray first = random_array(Shape{5, 6}, DType::int16, 7);
    const HostArray second = random_array(Shape{2, 3}, DType::float64, 8);
    kiln::io::write_fits(path, first);
    CHECK_THROWS_WITH(kiln::io::write_fits(path, second, false), Catch::Contains("exists"));
    CHECK(kiln::io::read_fits(path).bytes == first.bytes);
    kiln::io::write_fits(path, second, true);
    CHECK(kiln::io::read_fits(path).shape == second.shape);
    CHECK(dir.entries() == 1);

    const std::string nowhere = dir.file("no/such/dir/out.fits");
    CHECK_THROWS_WITH(kiln::io::write_fits(nowhere, first), Catch::Contains(nowhere));
    CHECK(dir.entries() == 1);
    CHECK_THROWS_AS(kiln::io::write_fits(path, HostArray{}), kiln::InvalidArgument);
}
