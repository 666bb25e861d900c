#include "kiln/io.hpp"

#include <fitsio.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <cstring>
#include <limits>

#include "io/file.hpp"
#include "io/fits_guard.hpp"
#include "kiln/error.hpp"

namespace kiln::io {
namespace {

// Closes the file on every path out, so an exception never leaks a handle.
struct FitsHandle {
    fitsfile* file = nullptr;
    FitsHandle() = default;
    FitsHandle(const FitsHandle&) = delete;
    FitsHandle& operator=(const FitsHandle&) = delete;
    ~FitsHandle() {
        int status = 0;
        if (file) fits_close_file(file, &status);
    }
};

// cfitsio's short text for the status plus the messages it stacked while
// failing, which usually say more (which keyword, which byte). Lines that only
// repeat a file name are left out: the caller names the file already.
std::string cfitsio_message(int status, const std::string& path) {
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    std::string message = std::string(text) + " (cfitsio status " + std::to_string(status) + ")";
    char line[FLEN_ERRMSG] = {};
    std::string details;
    while (fits_read_errmsg(line)) {
        std::string l = line;
        while (!l.empty() && (l.back() == ' ' || l.back() == ':')) l.pop_back();
        // cfitsio cuts lines at 80 characters, so a long name may appear cut short.
        const bool names_file = l.find(path) != std::string::npos || path.rfind(l, 0) == 0;
        if (l.empty() || names_file) continue;
        details += (details.empty() ? "" : "; ") + l;
    }
    return details.empty() ? message : message + ": " + details;
}

[[noreturn]] void fail(const std::string& path, const std::string& problem, int status = 0) {
    if (status == MEMORY_ALLOCATION)
        throw OutOfMemory("FITS file '" + path + "': " + problem + ": " + cfitsio_message(status, path));
    throw IoError("FITS file '" + path + "': " + problem +
                  (status ? ": " + cfitsio_message(status, path) : std::string()));
}

void open_for_reading(FitsHandle& h, const std::string& path) {
    fits_clear_errmsg();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) && !ec) fail(path, "no such file");
    // Before cfitsio parses anything beyond the primary header: it trusts
    // values a crafted file can set.
    check_fits_file(path);
    int status = 0;
    // The disk variant takes the name literally: no "[ext]" or "!" syntax.
    if (fits_open_diskfile(&h.file, path.c_str(), READONLY, &status)) {
        h.file = nullptr;
        fail(path,
             status == FILE_NOT_OPENED
                 ? "cannot be opened"
                 : "is not a readable FITS file (not FITS, or a corrupt or truncated header)",
             status);
    }
}

// FITS axis lengths of the current HDU, NAXIS1 (x) first.
std::vector<LONGLONG> image_axes(FitsHandle& h, const std::string& path, int* bitpix) {
    std::vector<LONGLONG> axes(999);
    int naxis = 0, status = 0;
    if (fits_get_img_paramll(h.file, int(axes.size()), bitpix, &naxis, axes.data(), &status))
        fail(path, "cannot read the image header", status);
    axes.resize(size_t(naxis));
    return axes;
}

std::string extension_name(FitsHandle& h) {
    char name[FLEN_VALUE] = {};
    int status = 0;
    if (fits_read_key_str(h.file, "EXTNAME", name, nullptr, &status)) {
        fits_clear_errmsg();
        return {};
    }
    return name;
}

// Calls visit() at each HDU after the primary until it returns true or the
// file ends.
template <typename F>
void for_each_extension(FitsHandle& h, const std::string& path, F visit) {
    for (int number = 2;; ++number) {
        int type = 0, status = 0;
        if (fits_movabs_hdu(h.file, number, &type, &status)) {
            if (status == END_OF_FILE) {
                fits_clear_errmsg();
                return;
            }
            fail(path, "cannot read HDU " + std::to_string(number), status);
        }
        if (visit(type)) return;
    }
}

std::vector<std::string> image_extensions(FitsHandle& h, const std::string& path) {
    std::vector<std::string> names;
    for_each_extension(h, path, [&](int type) {
        int bitpix = 0;
        if (type == IMAGE_HDU && !image_axes(h, path, &bitpix).empty()) {
            std::string name = extension_name(h);
            if (!name.empty()) names.push_back(name);
        }
        return false;
    });
    return names;
}

void move_to_image(FitsHandle& h, const std::string& path, const std::string& extension) {
    int bitpix = 0;
    if (extension.empty()) {
        if (!image_axes(h, path, &bitpix).empty()) return;
        bool found = false;
        for_each_extension(h, path, [&](int type) {
            found = type == IMAGE_HDU && !image_axes(h, path, &bitpix).empty();
            return found;
        });
        if (!found) fail(path, "holds no image: the primary HDU is empty and no image extension has data");
        return;
    }
    int status = 0;
    if (fits_movnam_hdu(h.file, ANY_HDU, const_cast<char*>(extension.c_str()), 0, &status)) {
        fits_clear_errmsg();
        std::string known;
        for (const std::string& name : image_extensions(h, path)) known += (known.empty() ? "" : ", ") + name;
        fail(path, "has no extension named '" + extension +
                       "'; its image extensions are: " + (known.empty() ? "(none)" : known));
    }
    int type = 0;
    fits_get_hdu_type(h.file, &type, &status);
    if (type != IMAGE_HDU)
        fail(path, "extension '" + extension + "' is " +
                       (type == BINARY_TBL ? "a binary table" : "an ASCII table") + ", not an image");
    if (image_axes(h, path, &bitpix).empty())
        fail(path, "extension '" + extension + "' holds no data (NAXIS = 0)");
}

double key_or(FitsHandle& h, const char* key, double fallback, bool* present = nullptr) {
    double value = fallback;
    int status = 0;
    if (fits_read_key_dbl(h.file, key, &value, nullptr, &status)) {
        fits_clear_errmsg();
        value = fallback;
    }
    if (present) *present = status == 0;
    return value;
}

DType dtype_for(int bitpix, double bscale, double bzero, bool blank, const std::string& path) {
    const bool plain = bscale == 1.0 && bzero == 0.0;
    const bool shifted = bscale == 1.0;
    DType t;
    switch (bitpix) {
        case BYTE_IMG:
            t = plain ? DType::uint8 : shifted && bzero == -128.0 ? DType::int8 : DType::float32;
            break;
        case SHORT_IMG:
            t = plain ? DType::int16 : shifted && bzero == 32768.0 ? DType::uint16 : DType::float32;
            break;
        case LONG_IMG:
            t = plain ? DType::int32 : shifted && bzero == 2147483648.0 ? DType::uint32 : DType::float64;
            break;
        case LONGLONG_IMG:
            t = plain ? DType::int64 : shifted && bzero == 9223372036854775808.0 ? DType::uint64 : DType::float64;
            break;
        case FLOAT_IMG:
            t = DType::float32;
            break;
        case DOUBLE_IMG:
            t = DType::float64;
            break;
        default:
            fail(path, "has BITPIX " + std::to_string(bitpix) + "; accepted: 8, 16, 32, 64, -32, -64");
    }
    if (blank && !dtype_is_float(t))
        t = bitpix == BYTE_IMG || bitpix == SHORT_IMG ? DType::float32 : DType::float64;
    return t;
}

int cfitsio_type(DType t) {
    switch (t) {
        case DType::float32:
            return TFLOAT;
        case DType::float64:
            return TDOUBLE;
        case DType::int8:
            return TSBYTE;
        case DType::uint8:
            return TBYTE;
        case DType::int16:
            return TSHORT;
        case DType::uint16:
            return TUSHORT;
        case DType::int32:
            return TINT;
        case DType::uint32:
            return TUINT;
        case DType::int64:
            return TLONGLONG;
        case DType::uint64:
            return TULONGLONG;
        case DType::complex64:
        case DType::complex128:
            throw Unsupported("FITS files: kiln does not write " + std::string(dtype_name(t)) +
                              " images; save complex arrays as .npy");
    }
    return 0;
}

Shape kiln_shape(const std::vector<LONGLONG>& axes, const std::string& path) {
    std::vector<size_t> kept;
    std::string lengths;
    for (size_t i = 0; i < axes.size(); ++i) {
        lengths += (i ? ", " : "") + std::to_string(axes[i]);
        if (axes[i] <= 0) fail(path, "has NAXIS" + std::to_string(i + 1) + " = 0: the image holds no data");
        if (i < 2 || axes.size() <= 3 || axes[i] != 1) kept.push_back(size_t(axes[i]));
    }
    if (kept.size() > 3)
        fail(path, "has an image with axes (" + lengths +
                       "); kiln reads at most 3 axes, after dropping "
                       "length-1 axes beyond the second");
    std::vector<size_t> dims(kept.rbegin(), kept.rend());
    try {
        return Shape::of(dims.size(), dims.data());
    } catch (const InvalidArgument& e) {
        fail(path, "has an image of axes (" + lengths + "), which kiln cannot hold: " + e.what());
    }
}

// "(y, x) = (3, 17)": element i of the shape in kiln's (z, y, x) order.
std::string position(const Shape& shape, size_t i) {
    static const char* const names[] = {"z", "y", "x"};
    std::string axes, at;
    for (size_t d = shape.ndim(); d-- > 0;) {
        const std::string sep = d + 1 < shape.ndim() ? ", " : "";
        axes = names[3 - shape.ndim() + d] + sep + axes;
        at = std::to_string(i % shape[d]) + sep + at;
        i /= shape[d];
    }
    return "(" + axes + ") = (" + at + ")";
}

// BITPIX 64 integers with BLANK (with BZERO 2^63: unsigned ones) into
// float64, whose NaN marks the blanks, refusing any value that float64
// would round rather than round it silently. The raw integers are read into the float64 array's own
// bytes (8 each) and converted in place; BLANK values become NaN.
void read_int64_exactly(FitsHandle& h, const std::string& path, HostArray& out, bool is_unsigned) {
    int status = 0, any_null = 0;
    LONGLONG blank = 0;
    const bool has_blank = fits_read_key(h.file, TLONGLONG, "BLANK", &blank, nullptr, &status) == 0;
    status = 0;
    fits_clear_errmsg();
    std::vector<LONGLONG> first(out.shape.ndim(), 1);
    fits_read_pixll(h.file, is_unsigned ? TULONGLONG : TLONGLONG, first.data(), LONGLONG(out.size()), nullptr,
                    out.data(), &any_null, &status);
    if (status) fail(path, "cannot read the image data (truncated or corrupt file?)", status);
    auto* raw = static_cast<std::byte*>(out.data());
    for (size_t i = 0; i < out.size(); ++i) {
        int64_t v = 0;
        std::memcpy(&v, raw + 8 * i, 8);
        const uint64_t u = uint64_t(v);
        // BLANK is a raw value: for unsigned data the stored one is u - 2^63.
        const bool null = has_blank && (is_unsigned ? int64_t(u ^ (uint64_t(1) << 63)) : v) == blank;
        const double d = null ? std::numeric_limits<double>::quiet_NaN() : is_unsigned ? double(u) : double(v);
        const bool exact = null || (is_unsigned ? d < 18446744073709551616.0 && uint64_t(d) == u
                                                : d < 9223372036854775808.0 && int64_t(d) == v);
        if (!exact)
            throw IoError("FITS file '" + path + "': the BITPIX 64 value " +
                          (is_unsigned ? std::to_string(u) : std::to_string(v)) + " at " + position(out.shape, i) +
                          " (element " + std::to_string(i) +
                          ") is not exactly a float64, which a BITPIX 64 image with BLANK is read as (for NaN); such "
                          "images are read when every value is (all integers up to 2^53 in magnitude are)");
        std::memcpy(raw + 8 * i, &d, 8);
    }
}

}  // namespace

HostArray read_fits(const std::string& path, const std::string& extension) {
    FitsHandle h;
    open_for_reading(h, path);
    move_to_image(h, path, extension);
    int bitpix = 0;
    std::vector<LONGLONG> axes = image_axes(h, path, &bitpix);
    const Shape shape = kiln_shape(axes, path);
    bool blank = false;
    const double bscale = key_or(h, "BSCALE", 1.0), bzero = key_or(h, "BZERO", 0.0);
    key_or(h, "BLANK", 0.0, &blank);
    blank = blank && bitpix > 0;
    HostArray out(shape, dtype_for(bitpix, bscale, bzero, blank, path));

    std::vector<LONGLONG> first(axes.size(), 1);
    constexpr double two_63 = 9223372036854775808.0;
    if (bitpix == LONGLONG_IMG && dtype_is_float(out.dtype) && bscale == 1.0 && (bzero == 0.0 || bzero == two_63)) {
        read_int64_exactly(h, path, out, bzero == two_63);
        return out;
    }
    int any_null = 0, status = 0;
    const int type = cfitsio_type(out.dtype);
    // Tile compression stores NaN as a null value, so those need the null check.
    // Plain float images skip it: cfitsio's check would turn infinities into NaN.
    const bool compressed = fits_is_compressed_image(h.file, &status);
    if (blank || (compressed && dtype_is_float(out.dtype))) {
        HostArray null_flags(shape, DType::uint8);  // OutOfMemory, not bad_alloc, when too large
        char* is_null = reinterpret_cast<char*>(null_flags.data());
        fits_read_pixnullll(h.file, type, first.data(), LONGLONG(out.size()), out.data(), is_null, &any_null,
                            &status);
        visit_dtype(out.dtype, [&](auto t) {
            using T = decltype(t);
            if constexpr (std::is_floating_point_v<T>) {
                auto values = out.as<T>();
                for (size_t i = 0; i < values.size(); ++i)
                    if (is_null[i]) values[i] = std::numeric_limits<T>::quiet_NaN();
            }
        });
    } else {
        // A null nulval turns off cfitsio's undefined-pixel handling: NaN passes through.
        fits_read_pixll(h.file, type, first.data(), LONGLONG(out.size()), nullptr, out.data(), &any_null,
                        &status);
    }
    if (status) fail(path, "cannot read the image data (truncated or corrupt file?)", status);
    return out;
}

std::vector<std::string> fits_image_extensions(const std::string& path) {
    FitsHandle h;
    open_for_reading(h, path);
    return image_extensions(h, path);
}

void write_fits(const std::string& path, const HostArray& array, bool overwrite) {
    if (array.shape.empty())
        throw InvalidArgument("write_fits: the array has no shape; give a 1-, 2- or 3-D array");
    std::error_code ignored;
    if (!overwrite && std::filesystem::exists(path, ignored))
        fail(path, "already exists; pass overwrite = true to replace it");
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent, ignored))
        fail(path, "cannot be written: directory '" + parent.string() + "' does not exist");
    fits_clear_errmsg();
    static const std::pair<DType, int> bitpix_codes[] = {
        {DType::float32, FLOAT_IMG}, {DType::float64, DOUBLE_IMG}, {DType::int8, SBYTE_IMG},
        {DType::uint8, BYTE_IMG},    {DType::int16, SHORT_IMG},    {DType::uint16, USHORT_IMG},
        {DType::int32, LONG_IMG},    {DType::uint32, ULONG_IMG},   {DType::int64, LONGLONG_IMG},
        {DType::uint64, ULONGLONG_IMG}};
    int bitpix = 0;
    for (const auto& [t, code] : bitpix_codes)
        if (t == array.dtype) bitpix = code;

    // Unique within the process by the counter, across processes by the clock;
    // cfitsio refuses to create a file that exists, so a clash fails, never clobbers.
    static std::atomic<uint64_t> counter{0};
    const std::string temp = path + ".tmp-" +
                             std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
                             "-" + std::to_string(counter++);
    std::vector<LONGLONG> axes;
    for (size_t i = array.shape.ndim(); i-- > 0;) axes.push_back(LONGLONG(array.shape[i]));
    std::vector<LONGLONG> first(axes.size(), 1);

    int status = 0;
    {
        FitsHandle h;
        if (fits_create_diskfile(&h.file, temp.c_str(), &status)) {
            h.file = nullptr;
            fail(path, "cannot be created (temporary file '" + temp + "')", status);
        }
        fits_create_imgll(h.file, bitpix, int(axes.size()), axes.data(), &status);
        fits_write_pixll(h.file, cfitsio_type(array.dtype), first.data(), LONGLONG(array.size()),
                         const_cast<void*>(array.data()), &status);
        // cfitsio calls do nothing once status is set, so closing needs a fresh one.
        int close_status = 0;
        fits_close_file(h.file, &close_status);
        h.file = nullptr;
        if (!status) status = close_status;
    }
    if (status) {
        std::filesystem::remove(temp, ignored);
        fail(path, "cannot be written", status);
    }
    if (const std::error_code ec = move_into_place(temp, path))
        fail(path, "cannot be renamed into place from '" + temp + "': " + ec.message());
}

}  // namespace kiln::io
