// Writes the FITS seed corpus of fuzz_fits (fuzz/corpus/fits) with cfitsio:
// small images of every BITPIX, scaled and blank-flagged ones, a cube, named
// extensions, and tile-compressed images with each compression cfitsio
// offers. Run once when the corpus should change:
//   build-fuzz/fuzz/fuzz_make_corpus fuzz/corpus/fits
#include <fitsio.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void ok(int status, const std::string& what) {
    if (!status) return;
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    std::fprintf(stderr, "%s: %s\n", what.c_str(), text);
    std::exit(1);
}

// An image of w x h (x d) pixels of the given BITPIX, with values that vary.
void image(fitsfile* f, int bitpix, long w, long h, long d, const std::string& what) {
    int status = 0;
    long axes[3] = {w, h, d};
    ok(fits_create_img(f, bitpix, d > 1 ? 3 : 2, axes, &status), what);
    const size_t n = size_t(w * h * d);
    auto fill = [&](auto zero, int datatype) {
        std::vector<decltype(zero)> v(n);
        for (size_t i = 0; i < n; ++i)
            v[i] = decltype(zero)(int(i * 37 % 201) - (bitpix == BYTE_IMG ? 0 : 100));
        ok(fits_write_img(f, datatype, 1, LONGLONG(n), v.data(), &status), what);
    };
    switch (bitpix) {
        case BYTE_IMG: fill((unsigned char)0, TBYTE); break;
        case SHORT_IMG: fill(short(0), TSHORT); break;
        case LONG_IMG: fill(int(0), TINT); break;
        case LONGLONG_IMG: fill(LONGLONG(0), TLONGLONG); break;
        case FLOAT_IMG: fill(0.0f, TFLOAT); break;
        default: fill(0.0, TDOUBLE); break;
    }
}

fitsfile* create(const std::string& path) {
    std::remove(path.c_str());
    fitsfile* f = nullptr;
    int status = 0;
    ok(fits_create_diskfile(&f, path.c_str(), &status), path);
    return f;
}

void close(fitsfile* f, const std::string& what) {
    int status = 0;
    ok(fits_close_file(f, &status), what);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_make_corpus FOLDER\n");
        return 2;
    }
    const std::string dir = argv[1];
    for (const int bitpix : {BYTE_IMG, SHORT_IMG, LONG_IMG, LONGLONG_IMG, FLOAT_IMG, DOUBLE_IMG}) {
        const std::string path = dir + "/bitpix" + std::to_string(bitpix) + ".fits";
        fitsfile* f = create(path);
        image(f, bitpix, 7, 5, 1, path);
        close(f, path);
    }
    {
        const std::string path = dir + "/scaled_blank.fits";
        fitsfile* f = create(path);
        image(f, SHORT_IMG, 6, 4, 1, path);
        int status = 0;
        double bscale = 0.5, bzero = 10;
        long blank = -100;
        ok(fits_update_key(f, TDOUBLE, "BSCALE", &bscale, nullptr, &status), path);
        ok(fits_update_key(f, TDOUBLE, "BZERO", &bzero, nullptr, &status), path);
        ok(fits_update_key(f, TLONG, "BLANK", &blank, nullptr, &status), path);
        close(f, path);
    }
    {
        const std::string path = dir + "/cube_float.fits";
        fitsfile* f = create(path);
        image(f, FLOAT_IMG, 4, 3, 2, path);
        close(f, path);
    }
    {
        const std::string path = dir + "/extensions.fits";
        fitsfile* f = create(path);
        int status = 0;
        ok(fits_create_img(f, BYTE_IMG, 0, nullptr, &status), path);
        for (const char* name : {"SCI", "ERR"}) {
            image(f, FLOAT_IMG, 5, 3, 1, path);
            ok(fits_update_key(f, TSTRING, "EXTNAME", const_cast<char*>(name), nullptr, &status), path);
        }
        close(f, path);
    }
    const struct {
        int type;
        const char* name;
        int bitpix;
    } compressions[] = {{RICE_1, "rice", SHORT_IMG},     {GZIP_1, "gzip1", FLOAT_IMG}, {GZIP_2, "gzip2", LONG_IMG},
                        {PLIO_1, "plio", BYTE_IMG},     {HCOMPRESS_1, "hcompress", SHORT_IMG},
                        {RICE_1, "rice_float", FLOAT_IMG}};
    for (const auto& c : compressions) {
        const std::string path = dir + "/tiles_" + c.name + ".fits";
        fitsfile* f = create(path);
        int status = 0;
        ok(fits_set_compression_type(f, c.type, &status), path);
        long tile[2] = {16, 4};
        ok(fits_set_tile_dim(f, 2, tile, &status), path);
        image(f, c.bitpix, 16, 12, 1, path);
        close(f, path);
    }
    return 0;
}
