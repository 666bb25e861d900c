// Hostile FITS files: headers that declare more data than the file holds,
// crafted tile-compressed images that crash or hang cfitsio 4.2 (issue 13),
// and BITPIX 64 values float64 cannot hold. Each must be refused with a
// clear IoError before cfitsio or an allocation sees it.
#include <catch2/catch.hpp>

#include <fitsio.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "io/fits_header.hpp"
#include "kiln/io.hpp"

using kiln::DType;
using kiln::HostArray;
using kiln::Shape;
using kiln::test::io_error;
using kiln::test::TempDir;

namespace {

// One 80-column card: "KEYWORD = value".
std::string card(const std::string& keyword, const std::string& value) {
    std::string c = keyword;
    c.resize(8, ' ');
    c += "= ";
    c += std::string(value.size() < 20 ? 20 - value.size() : 0, ' ') + value;
    c.resize(80, ' ');
    return c;
}

// Cards, END and blank padding to whole 2880-byte blocks.
std::string header(const std::vector<std::string>& cards) {
    std::string h;
    for (const std::string& c : cards) h += c;
    h += std::string("END").append(77, ' ');
    h.append((2880 - h.size() % 2880) % 2880, ' ');
    return h;
}

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::string write(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

// The file with the card for `keyword` (in its first header that has it,
// after byte `from`) replaced by `replacement` (a whole card).
std::string replace_card(std::string bytes, const std::string& keyword, const std::string& replacement,
                         size_t from = 2880) {
    std::string key = keyword;
    key.resize(8, ' ');
    for (size_t at = from; at + 80 <= bytes.size(); at += 80)
        if (bytes.compare(at, 8, key) == 0) return bytes.replace(at, 80, replacement);
    FAIL("no card " << keyword);
    return bytes;
}

void ok(int status) {
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    INFO("cfitsio: " << text);
    REQUIRE(status == 0);
}

// A 64 x 48 int16 image, tile-compressed with cfitsio (rows of 64 pixels).
std::string compressed_file(const std::string& path, int compression) {
    fitsfile* f = nullptr;
    int status = 0;
    ok(fits_create_diskfile(&f, path.c_str(), &status));
    ok(fits_set_compression_type(f, compression, &status));
    long axes[2] = {64, 48};
    ok(fits_create_img(f, SHORT_IMG, 2, axes, &status));
    std::vector<short> v(64 * 48);
    for (size_t i = 0; i < v.size(); ++i) v[i] = short(int(i * 37 % 2001) - 1000);
    ok(fits_write_img(f, TSHORT, 1, LONGLONG(v.size()), v.data(), &status));
    ok(fits_close_file(f, &status));
    return read_all(path);
}

// Where the compressed image's HDU and its first descriptor lie.
kiln::io::FitsHdu compressed_hdu(const std::string& path) {
    const kiln::io::File file = kiln::io::File::open_read(path);
    const auto hdus = kiln::io::scan_fits_headers(file, file.size());
    REQUIRE(hdus.size() == 2);
    REQUIRE(*hdus[1].value("TTYPE1") == "COMPRESSED_DATA");
    return hdus[1];
}

void put_u32(std::string& bytes, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[at + size_t(i)] = char(v >> (24 - 8 * i));
}

}  // namespace

TEST_CASE("FITS headers declaring more data than the file holds are refused before allocating",
          "[io][fits][hostile]") {
    TempDir dir;
    const auto primary = [&](const std::string& name, std::vector<std::string> axes, const char* bitpix = "-32") {
        std::vector<std::string> cards = {card("SIMPLE", "T"), card("BITPIX", bitpix),
                                          card("NAXIS", std::to_string(axes.size()))};
        for (size_t i = 0; i < axes.size(); ++i) cards.push_back(card("NAXIS" + std::to_string(i + 1), axes[i]));
        return write(dir.file(name), header(cards) + std::string(2880, '\0'));
    };
    // Issue 13: 5,760 bytes declaring 100000 x 30000 float32 took 12 GB and
    // 113 s to fail; now the sizes are compared first.
    const std::string mid = primary("mid.fits", {"100000", "30000"});
    std::string msg = io_error([&] { kiln::io::read_fits(mid); });
    CHECK_THAT(msg, Catch::Contains(mid) && Catch::Contains("12000000000 bytes of data") &&
                        Catch::Contains("needs 12000002880 bytes") && Catch::Contains("it has 5760"));
    // 10^6 x 10^6 x 10^6: a shape kiln accepts, which no host holds.
    const std::string cube = primary("cube.fits", {"1000000", "1000000", "1000000"});
    CHECK_THAT(io_error([&] { kiln::io::read_fits(cube); }), Catch::Contains("it has 5760"));
    CHECK_THAT(io_error([&] { kiln::io::fits_image_extensions(cube); }), Catch::Contains("it has 5760"));
    // 2^32 x 2^32: extents kept whole (they once read as 0), refused by Shape.
    const std::string huge = primary("huge.fits", {"4294967296", "4294967296"});
    CHECK_THAT(io_error([&] { kiln::io::read_fits(huge); }),
               Catch::Contains("(4294967296, 4294967296)") && Catch::Contains("2^60") && Catch::Contains(huge));
    // One byte short, in an image extension after an empty primary.
    const std::string ext = write(dir.file("ext.fits"),
                                  header({card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0")}) +
                                      header({card("XTENSION", "'IMAGE   '"), card("BITPIX", "16"),
                                              card("NAXIS", "2"), card("NAXIS1", "40"), card("NAXIS2", "36"),
                                              card("PCOUNT", "0"), card("GCOUNT", "1")}) +
                                      std::string(2879, '\0'));
    CHECK_THAT(io_error([&] { kiln::io::read_fits(ext); }),
               Catch::Contains("HDU 2 (IMAGE)") && Catch::Contains("needs 8640") && Catch::Contains("it has 8639"));
    // Exactly enough: read.
    const std::string exact = write(dir.file("exact.fits"),
                                    header({card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "1"),
                                            card("NAXIS1", "10")}) + std::string(10, '\7') + std::string(2870, '\0'));
    CHECK(kiln::io::read_fits(exact).shape == Shape{10});
}

TEST_CASE("crafted tile-compressed FITS images are refused before cfitsio reads them", "[io][fits][hostile]") {
    TempDir dir;
    const std::string good = dir.file("rice.fits");
    const std::string bytes = compressed_file(good, RICE_1);
    REQUIRE(kiln::io::read_fits(good).shape == Shape{48, 64});
    struct Case {
        const char* what;
        std::string file;
        std::vector<const char*> says;
    };
    const auto edit = [&](const char* keyword, const std::string& value) {
        return replace_card(bytes, keyword, card(keyword, value));
    };
    const std::string long_name(70, 'C');
    std::vector<Case> cases = {
        {"zero tile size (SIGFPE in imcomp_get_compressed_image_par)", edit("ZTILE1", "0"), {"ZTILE1 = 0", "accepted: 1 to ZNAXIS1 = 64"}},
        {"negative tile size", edit("ZTILE2", "-3"), {"ZTILE2 = -3"}},
        {"tile larger than the image", edit("ZTILE1", "65"), {"ZTILE1 = 65"}},
        {"Rice block size 0 (a division by zero)", edit("ZVAL1", "0"), {"ZVAL1 = 0", "accepted: 16 or 32"}},
        {"unknown compression", edit("ZCMPTYPE", "'BOGUS_9 '"), {"'BOGUS_9'", "accepted: RICE_1"}},
        {"bad ZBITPIX", edit("ZBITPIX", "12"), {"ZBITPIX = 12"}},
        {"zero ZNAXIS", edit("ZNAXIS", "0"), {"ZNAXIS = 0", "1 to 6"}},
        {"negative axis", edit("ZNAXIS2", "-48"), {"ZNAXIS2 = -48"}},
        {"rows not one per tile", edit("ZNAXIS2", "4800"), {"one row per tile (4800)"}},
        {"heap outside the data", replace_card(bytes, "ZNAME1", card("THEAP", "99999999")), {"THEAP = 99999999"}},
        {"heap larger than the file", edit("PCOUNT", "999999999999"), {"needs", "bytes; it has"}},
        {"column name too long for cfitsio's buffer (FORTIFY abort in ffgtbp)",
         replace_card(bytes, "TTYPE1", card("TTYPE1", long_name)), {"TTYPE1 has 70 characters", "at most 68"}},
        {"a non-integer tile size", edit("ZTILE1", "'abc'"), {"ZTILE1 = 'abc'", "accepted: an integer"}},
    };
    // An uncompressed image of 2^40 bytes claimed by a file of a few KB (one
    // tile per row still): refused against the 16 GiB / 4096 x file bound.
    {
        std::string big = replace_card(bytes, "ZNAXIS1", card("ZNAXIS1", "1048576"));
        big = replace_card(big, "ZTILE1", card("ZTILE1", "1048576"));
        big = replace_card(big, "ZNAXIS2", card("ZNAXIS2", "48"));
        cases.push_back({"an image far larger than the file", big, {"kiln reads at most", "4096 times the file"}});
    }
    {
        std::string tiles = replace_card(bytes, "ZNAXIS1", card("ZNAXIS1", "1073741824"));
        tiles = replace_card(tiles, "ZTILE1", card("ZTILE1", "1073741824"));
        cases.push_back({"tiles too large for cfitsio's int arithmetic", tiles, {"2^28"}});
    }
    // A descriptor pointing past the heap.
    {
        const kiln::io::FitsHdu hdu = compressed_hdu(good);
        std::string off = bytes;
        put_u32(off, size_t(hdu.data_start) + 4, 0x7fffff00u);
        cases.push_back({"a tile beyond the heap", off, {"tile 1 of 48", "beyond the heap"}});
    }
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        INFO(c.what);
        const std::string path = write(dir.file("bad" + std::to_string(i) + ".fits"), c.file);
        const std::string msg = io_error([&] { kiln::io::read_fits(path); });
        CHECK_THAT(msg, Catch::Contains(path) && Catch::Contains("HDU 2 (BINTABLE)"));
        for (const char* s : c.says) CHECK_THAT(msg, Catch::Contains(s));
        CHECK_THAT(io_error([&] { kiln::io::fits_image_extensions(path); }), Catch::Contains(path));
    }
}

TEST_CASE("a GZIP tile whose stream never ends is refused, not inflated forever", "[io][fits][hostile]") {
    TempDir dir;
    const std::string good = dir.file("gzip.fits");
    std::string bytes = compressed_file(good, GZIP_1);
    REQUIRE(kiln::io::read_fits(good).shape == Shape{48, 64});
    const kiln::io::FitsHdu hdu = compressed_hdu(good);
    // Shorten tile 3's stream by 8 bytes (gzip's trailer and some data):
    // cfitsio 4.2 grows its buffer without end waiting for the rest.
    const size_t descriptor = size_t(hdu.data_start) + 2 * size_t(std::stoll(*hdu.value("NAXIS1")));
    const auto count = uint32_t((uint8_t(bytes[descriptor]) << 24) | (uint8_t(bytes[descriptor + 1]) << 16) |
                                (uint8_t(bytes[descriptor + 2]) << 8) | uint8_t(bytes[descriptor + 3]));
    put_u32(bytes, descriptor, count - 8);
    const std::string cut = write(dir.file("cut.fits"), bytes);
    CHECK_THAT(io_error([&] { kiln::io::read_fits(cut); }),
               Catch::Contains("tile 3 of 48") && Catch::Contains("GZIP stream") && Catch::Contains("truncated"));
    // Garbage instead of tile 1's stream.
    std::string garbage = read_all(good);
    const size_t table = 48 * size_t(std::stoll(*hdu.value("NAXIS1")));
    const size_t heap = size_t(hdu.data_start) + (hdu.value("THEAP") ? size_t(std::stoll(*hdu.value("THEAP"))) : table);
    for (size_t i = 0; i < 16; ++i) garbage[heap + i] ^= 0x5a;
    const std::string bad = write(dir.file("garbage.fits"), garbage);
    CHECK_THAT(io_error([&] { kiln::io::read_fits(bad); }), Catch::Contains("GZIP stream"));
}

TEST_CASE("BITPIX 64 reads as int64/uint64 exactly; with BLANK, values float64 cannot hold are refused",
          "[io][fits][hostile]") {
    TempDir dir;
    const auto write_int64 = [&](const std::string& name, int bitpix, int type, const void* values, long n,
                                 bool blank = false) {
        const std::string path = dir.file(name);
        fitsfile* f = nullptr;
        int status = 0;
        ok(fits_create_diskfile(&f, path.c_str(), &status));
        long axes[2] = {n / 2, 2};
        ok(fits_create_img(f, bitpix, 2, axes, &status));
        LONGLONG blank_value = 7;
        if (blank) ok(fits_write_key(f, TLONGLONG, "BLANK", &blank_value, nullptr, &status));
        ok(fits_write_img(f, type, 1, n, const_cast<void*>(values), &status));
        ok(fits_close_file(f, &status));
        return path;
    };
    const int64_t two53 = int64_t(1) << 53;
    std::vector<LONGLONG> odd = {0, -1, two53, -two53, two53 + 2, two53 + 1, INT64_MIN, 12345};
    const HostArray a = kiln::io::read_fits(write_int64("odd.fits", LONGLONG_IMG, TLONGLONG, odd.data(), 8));
    REQUIRE(a.dtype == DType::int64);
    for (size_t i = 0; i < odd.size(); ++i) CHECK(a.as<int64_t>()[i] == odd[i]);
    // Unsigned 64-bit (BZERO 2^63), to 2^64 - 1.
    std::vector<ULONGLONG> u = {0, ~uint64_t(0)};
    const HostArray b = kiln::io::read_fits(write_int64("u.fits", ULONGLONG_IMG, TULONGLONG, u.data(), 2));
    REQUIRE(b.dtype == DType::uint64);
    CHECK(b.as<uint64_t>()[1] == ~uint64_t(0));
    // With BLANK the image is float64 with NaN: exactly representable values,
    // also beyond 2^53 (even numbers, powers of two), are read...
    std::vector<LONGLONG> fine = odd;
    fine[5] = 7;
    const HostArray c = kiln::io::read_fits(write_int64("fine.fits", LONGLONG_IMG, TLONGLONG, fine.data(), 8, true));
    REQUIRE(c.dtype == DType::float64);
    CHECK(std::isnan(c.at(5)));
    for (size_t i = 0; i < fine.size(); ++i)
        if (i != 5) CHECK(c.at(i) == double(fine[i]));
    // ... and 2^53 + 1, which rounds, is refused, naming it and where it is.
    const std::string path = write_int64("odd_blank.fits", LONGLONG_IMG, TLONGLONG, odd.data(), 8, true);
    CHECK_THAT(io_error([&] { kiln::io::read_fits(path); }),
               Catch::Contains("9007199254740993") && Catch::Contains("(y, x) = (1, 1)") &&
                   Catch::Contains("element 5") && Catch::Contains("2^53"));
}

TEST_CASE("FITS headers that kiln and cfitsio could read differently are refused", "[io][fits][hostile]") {
    TempDir dir;
    const std::string good = dir.file("rice.fits");
    const std::string bytes = compressed_file(good, RICE_1);
    const kiln::io::FitsHdu hdu = compressed_hdu(good);
    const size_t second = 2880;  // the compressed image's header starts in the second block
    REQUIRE(bytes.compare(second, 8, "XTENSION") == 0);
    struct Case {
        const char* what;
        std::string file;
        std::vector<const char*> says;
    };
    std::vector<Case> cases;
    {
        // Found by the FITS fuzzer: "END" followed by a stray byte in the
        // keyword field ends the primary header for cfitsio, not for a
        // reader comparing the whole field, so the two saw different HDUs.
        std::string b = bytes;
        const size_t end = b.find("END     ");
        b[end + 6] = 'x';
        cases.push_back({"stray byte after END", b, {"HDU 1 (primary)", "keyword field 'END   x '"}});
    }
    {
        std::string b = bytes;
        b[second + 80 * 3 + 15] = '\0';  // in NAXIS1's value
        cases.push_back({"a NUL in a value (a C string ends there)", b, {"HDU 2", "\\x00", "printable ASCII"}});
    }
    {
        // Found by the fuzzer: a second ZTILE2 whose value is a string; cfitsio
        // found it, read 0 and divided by it.
        std::string b = replace_card(bytes, "ZNAME1", card("ZTILE2", "'BYTEPIX '"));
        cases.push_back({"a keyword given twice", b, {"ZTILE2 is given twice", "'BYTEPIX'"}});
    }
    {
        // NAXIS1 and NAXIS2 swapped: cfitsio reads them by place.
        std::string b = bytes;
        const std::string naxis1 = b.substr(second + 80 * 3, 80), naxis2 = b.substr(second + 80 * 4, 80);
        b.replace(second + 80 * 3, 80, naxis2);
        b.replace(second + 80 * 4, 80, naxis1);
        cases.push_back({"mandatory keywords out of place", b, {"card 4 must be NAXIS1, not 'NAXIS2'"}});
    }
    {
        // Found by the fuzzer: cfitsio reads a value after an '=' anywhere in
        // the card; a reader looking only at column 9 missed ZIMAGE = T and
        // let a zero tile size through to cfitsio's division.
        std::string b = replace_card(bytes, "ZTILE1", card("ZTILE1", "0"));
        std::string zimage = "ZIMAGE      =                T";
        zimage.resize(80, ' ');
        b = replace_card(b, "ZIMAGE", zimage);
        cases.push_back({"'=' after column 9", b, {"ZTILE1 = 0"}});
    }
    cases.push_back({"ZIMAGE that is not quite T (found by the fuzzer: cfitsio took it for T)",
                     replace_card(replace_card(bytes, "ZTILE1", card("ZTILE1", "0")), "ZIMAGE", card("ZIMAGE", "Tt")),
                     {"ZIMAGE = 'Tt' is not a logical value"}});
    cases.push_back({"a BLANK too long for cfitsio's message buffer (found by the fuzzer: FORTIFY abort in ffc2j)",
                     replace_card(bytes, "ZNAME1", card("BLANK", "1234567890123456789012345678901")),
                     {"BLANK = '1234567890123456789012345678901'", "64 bits"}});
    cases.push_back({"a BINTABLE whose columns do not fill its rows",
                     replace_card(bytes, "TFORM1", card("TFORM1", "'1QB(5) '")), {"take 16 bytes a row, but NAXIS1 = 8"}});
    cases.push_back({"HCOMPRESS_1 (cfitsio's decoder overruns on crafted tiles)",
                     replace_card(bytes, "ZCMPTYPE", card("ZCMPTYPE", "'HCOMPRESS_1'")),
                     {"HCOMPRESS_1 tiles are not read", "accepted: RICE_1"}});
    {
        // Tile 3's Rice stream cut to half its bytes: cfitsio's decoder reads
        // on past the tile's buffer until its pixels are done.
        std::string b = bytes;
        const size_t descriptor = size_t(hdu.data_start) + 2 * size_t(std::stoll(*hdu.value("NAXIS1")));
        const auto count = uint32_t((uint8_t(b[descriptor]) << 24) | (uint8_t(b[descriptor + 1]) << 16) |
                                    (uint8_t(b[descriptor + 2]) << 8) | uint8_t(b[descriptor + 3]));
        put_u32(b, descriptor, count / 2);
        cases.push_back({"a truncated Rice tile", b, {"tile 3 of 48", "Rice stream", "64 pixels"}});
    }
    cases.push_back({"an empty file", "", {"an empty file, not FITS"}});
    cases.push_back({"a header cut before END", bytes.substr(0, 2880 + 1000), {"HDU 2", "before its header's END"}});
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        INFO(c.what);
        const std::string path = write(dir.file("odd" + std::to_string(i) + ".fits"), c.file);
        const std::string msg = io_error([&] { kiln::io::read_fits(path); });
        CHECK_THAT(msg, Catch::Contains(path));
        for (const char* s : c.says) CHECK_THAT(msg, Catch::Contains(s));
    }
}

TEST_CASE("Rice and PLIO tiles cut at the image's edges read whole", "[io][fits]") {
    // The Rice and PLIO checks walk each tile for its own pixel count: edge
    // tiles are smaller, and a check using the full tile would refuse these
    // valid files. A PLIO tile cut short is refused.
    TempDir dir;
    for (const int compression : {RICE_1, PLIO_1}) {
        INFO("compression " << compression);
        const std::string path = dir.file("edges" + std::to_string(compression) + ".fits");
        fitsfile* f = nullptr;
        int status = 0;
        ok(fits_create_diskfile(&f, path.c_str(), &status));
        ok(fits_set_compression_type(f, compression, &status));
        long tile[2] = {10, 7};
        ok(fits_set_tile_dim(f, 2, tile, &status));
        long axes[2] = {64, 48};
        ok(fits_create_img(f, LONG_IMG, 2, axes, &status));
        std::vector<int> v(64 * 48);
        for (size_t i = 0; i < v.size(); ++i)
            v[i] = compression == PLIO_1 ? int(i / 5 % 7 == 0 ? 0 : i % 300) : int(i * 7919 % 100003) - 50000;
        ok(fits_write_img(f, TINT, 1, LONGLONG(v.size()), v.data(), &status));
        ok(fits_close_file(f, &status));
        const HostArray a = kiln::io::read_fits(path);
        REQUIRE(a.shape == Shape{48, 64});
        for (size_t i = 0; i < v.size(); ++i) REQUIRE(a.at(i) == double(v[i]));
        if (compression != PLIO_1) continue;
        // Found by the FITS fuzzer: pl_l2pi reads as many words as the list's
        // header says, past the tile's buffer.
        std::string b = read_all(path);
        const kiln::io::File file = kiln::io::File::open_read(path);
        const auto hdus = kiln::io::scan_fits_headers(file, file.size());
        REQUIRE(hdus.size() == 2);
        const size_t descriptor = size_t(hdus[1].data_start) + 8;  // tile 2
        const auto count = uint32_t((uint8_t(b[descriptor]) << 24) | (uint8_t(b[descriptor + 1]) << 16) |
                                    (uint8_t(b[descriptor + 2]) << 8) | uint8_t(b[descriptor + 3]));
        REQUIRE(count > 4);
        put_u32(b, descriptor, 4);
        const std::string cut = write(dir.file("cut_plio.fits"), b);
        CHECK_THAT(io_error([&] { kiln::io::read_fits(cut); }),
                   Catch::Contains("tile 2 of 49") && Catch::Contains("PLIO line list of 4 words"));
    }
}
