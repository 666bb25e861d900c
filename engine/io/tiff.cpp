// The TIFF reader: single-channel images and stacks of them, through libtiff,
// from a file (read_tiff) or from memory (parse_tiff). What a file declares is
// checked before anything is allocated for it (see check_sizes).
#include <tiffio.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "io/file.hpp"
#include "io/tiff_ome.hpp"
#include "io/tiff_util.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"

namespace kiln::io {
namespace {

const char* const accepted =
    "kiln reads single-channel (gray) images of 8-, 16-, 32- or 64-bit unsigned or signed integers or "
    "32- or 64-bit floats, and stacks of such pages of one shape and type";

// Compressed data that would decode to at most this much is never refused
// as too small for its image (codecs such as LERC store a constant image in
// a few bytes, whatever its size).
constexpr uint64_t small_image_bytes = uint64_t(16) << 20;

// Where libtiff reads from: bytes in memory (parse_tiff), or a file read
// with pread (read_tiff). Never mapped ("m" when opening), so a file
// truncated while being read is a read error, not a SIGBUS.
struct Source {
    std::span<const std::byte> memory;
    const File* file = nullptr;
    uint64_t size = 0, position = 0;
    std::string failure;  // why reading the file failed, for the message
};

// libtiff's client procedures over a Source. They are called from C: nothing
// may be thrown out of them.
tmsize_t read_source(thandle_t handle, void* buffer, tmsize_t n) {
    auto& s = *static_cast<Source*>(handle);
    if (n < 0) return -1;
    const uint64_t left = s.position < s.size ? s.size - s.position : 0;
    const size_t count = size_t(std::min<uint64_t>(uint64_t(n), left));
    auto* out = static_cast<std::byte*>(buffer);
    if (s.file) {
        try {
            s.file->read_at(s.position, {out, count});
        } catch (const std::exception& e) {
            s.failure = e.what();
            return -1;
        }
    } else if (count) {
        std::memcpy(out, s.memory.data() + s.position, count);
    }
    s.position += count;
    return tmsize_t(count);
}

tmsize_t refuse_write(thandle_t, void*, tmsize_t) {
    return -1;
}

toff_t seek_source(thandle_t handle, toff_t offset, int whence) {
    auto& s = *static_cast<Source*>(handle);
    const uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? s.position : s.size;
    // toff_t is unsigned: a step back arrives as its two's complement.
    const auto step = int64_t(offset);
    if (whence != SEEK_SET && step < 0) {
        const uint64_t back = 0 - uint64_t(step);
        if (back > base) return toff_t(-1);
        s.position = base - back;
    } else {
        s.position = base + offset;
    }
    return s.position;
}

int close_source(thandle_t) {
    return 0;
}
toff_t source_size(thandle_t handle) {
    return static_cast<Source*>(handle)->size;
}
int no_map(thandle_t, tdata_t*, toff_t*) {
    return 0;
}
void no_unmap(thandle_t, tdata_t, toff_t) {}

uint64_t add_saturating(uint64_t a, uint64_t b) {
    return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}

/// One page (IFD) as kiln will read it.
struct Page {
    uint32_t width = 0, height = 0;
    DType dtype = DType::uint8;
    uint16_t compression = COMPRESSION_NONE;
    bool tiled = false;
    uint32_t strip_rows = 0;  // rows per strip (strips)
    uint32_t tile_width = 0, tile_height = 0;
    uint32_t striles = 0;       // strips or tiles that cover the page
    uint64_t strile_bytes = 0;  // decoded bytes of a whole strip or tile
    uint64_t decoded = 0;       // bytes libtiff decodes for the page
    uint64_t stored = 0;        // bytes of its strips or tiles within the file

    bool same_image(const Page& o) const {
        return width == o.width && height == o.height && dtype == o.dtype;
    }
    std::string str() const {
        return std::to_string(height) + " x " + std::to_string(width) + " " + std::string(dtype_name(dtype));
    }
};

class Reader {
public:
    Reader(std::span<const std::byte> memory, const File* file, uint64_t size, const std::string& name)
        : name_(name) {
        source_.memory = memory;
        source_.file = file;
        source_.size = size;
        messages_.set_name(name);
    }

    HostArray read() {
        check_magic();
        // "r": read; "m": not mapped (see Source).
        tif_.reset(TIFFClientOpenExt(name_.c_str(), "rm", &source_, read_source, refuse_write, seek_source,
                                     close_source, source_size, no_map, no_unmap, messages_.options()));
        if (!tif_) fail("cannot be read as TIFF");
        std::vector<Page> pages = describe_pages();
        check_ome(pages.size());
        const Shape shape = check_sizes(pages);
        HostArray out(shape, pages[0].dtype);                     // OutOfMemory when the host cannot hold it
        const uint64_t page_bytes = out.nbytes() / pages.size();  // checked by Shape and byte_size
        for (size_t p = 0; p < pages.size(); ++p) {
            if (p == 0 ? !TIFFSetDirectory(tif_.get(), 0) : !TIFFReadDirectory(tif_.get()))
                fail("cannot read the directory of page " + std::to_string(p) + " again");
            std::byte* dst = out.bytes.data() + p * page_bytes;
            if (pages[p].tiled)
                read_tiles(pages[p], p, dst);
            else
                read_strips(pages[p], p, dst);
        }
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const {
        std::string text = messages_.text();
        if (!source_.failure.empty()) text = source_.failure + (text.empty() ? "" : "; " + text);
        throw IoError("TIFF file '" + name_ + "': " + problem + (text.empty() ? "" : "; libtiff: " + text));
    }

    void check_magic() const {
        std::byte head[2] = {};
        Source probe = source_;
        if (source_.size < 8 || read_source(&probe, head, 2) != 2 ||
            !((head[0] == std::byte{'I'} && head[1] == std::byte{'I'}) ||
              (head[0] == std::byte{'M'} && head[1] == std::byte{'M'})))
            fail("not a TIFF file (" + std::to_string(source_.size) +
                 " bytes; a TIFF file begins with an 8-byte header starting II or MM)");
    }

    std::vector<Page> describe_pages() {
        std::vector<Page> pages;
        for (;;) {
            if (pages.empty()) {
                const char* text = nullptr;
                if (TIFFGetField(tif_.get(), TIFFTAG_IMAGEDESCRIPTION, &text) && text) description_ = text;
            }
            pages.push_back(describe(pages.size()));
            const Page& page = pages.back();
            if (!pages[0].same_image(page))
                fail("page " + std::to_string(pages.size() - 1) + " is " + page.str() + " but page 0 is " +
                     pages[0].str() + "; " + accepted);
            if (TIFFLastDirectory(tif_.get())) return pages;
            messages_.clear();
            if (!TIFFReadDirectory(tif_.get()))
                fail("cannot read the directory of page " + std::to_string(pages.size()) +
                     " (a truncated or corrupt file)");
        }
    }

    // An OME-TIFF's pages are the planes of its Z, C and T axes: read as a
    // (pages, height, width) stack when at most one of them is longer than 1
    // and the file holds all of their planes itself.
    void check_ome(size_t pages) const {
        const std::optional<OmeSizes> ome = ome_sizes(description_);
        if (!ome) return;
        if (ome->images > 1)
            fail("is an OME-TIFF of " + std::to_string(ome->images) +
                 " images (series); kiln reads files of one image (save each series to a file of its own)");
        if ((ome->z > 1) + (ome->c > 1) + (ome->t > 1) > 1)
            fail("is an OME-TIFF image of " + ome->str() +
                 ", 4-D or 5-D with the rows and columns; kiln reads (Z, Y, X) stacks: save one channel "
                 "and time point per file");
        if (ome->z * ome->c * ome->t != pages)
            fail("is an OME-TIFF image of " + ome->str() + " (" + std::to_string(ome->z * ome->c * ome->t) +
                 " planes), but the file has " + std::to_string(pages) +
                 " pages; kiln reads OME-TIFF files that hold all their planes themselves");
    }

    template <typename T>
    T field(uint32_t tag, T fallback) const {
        T value = fallback;
        if (!TIFFGetFieldDefaulted(tif_.get(), tag, &value)) value = fallback;
        return value;
    }

    DType dtype_of(size_t index) const {
        const auto bits = field<uint16_t>(TIFFTAG_BITSPERSAMPLE, 1);
        const auto format = field<uint16_t>(TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
        if (format == SAMPLEFORMAT_UINT || format == SAMPLEFORMAT_INT) {
            const bool s = format == SAMPLEFORMAT_INT;
            if (bits == 8) return s ? DType::int8 : DType::uint8;
            if (bits == 16) return s ? DType::int16 : DType::uint16;
            if (bits == 32) return s ? DType::int32 : DType::uint32;
            if (bits == 64) return s ? DType::int64 : DType::uint64;
        } else if (format == SAMPLEFORMAT_IEEEFP) {
            if (bits == 32) return DType::float32;
            if (bits == 64) return DType::float64;
        }
        static const char* const formats[] = {"?",    "unsigned integers", "signed integers", "floats",
                                              "void", "complex integers",  "complex floats"};
        const std::string what = format < 7 ? formats[format] : "sample format " + std::to_string(format);
        fail("page " + std::to_string(index) + " holds " + std::to_string(bits) + "-bit " + what + "; " +
             accepted + (bits == 1 ? " (convert 1-bit images to 8-bit first)" : ""));
    }

    Page describe(size_t index) {
        TIFF* tif = tif_.get();
        const std::string at = "page " + std::to_string(index);
        const auto samples = field<uint16_t>(TIFFTAG_SAMPLESPERPIXEL, 1);
        if (samples != 1)
            fail(at + " has " + std::to_string(samples) + " samples per pixel (RGB, or gray with alpha); " +
                 accepted + " (split the channels first)");
        const auto photometric = field<uint16_t>(TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        if (photometric == PHOTOMETRIC_PALETTE)
            fail(at + " is a palette-colour image (its values index a colour map); " + accepted);
        if (photometric != PHOTOMETRIC_MINISBLACK && photometric != PHOTOMETRIC_MINISWHITE)
            fail(at + " has photometric interpretation " + std::to_string(photometric) +
                 "; kiln reads gray images (0 min-is-white or 1 min-is-black)");
        if (field<uint32_t>(TIFFTAG_IMAGEDEPTH, 1) != 1)
            fail(at + " is a volume (ImageDepth " + std::to_string(field<uint32_t>(TIFFTAG_IMAGEDEPTH, 1)) +
                 "); kiln reads 2-D pages");
        Page page;
        page.dtype = dtype_of(index);
        page.width = field<uint32_t>(TIFFTAG_IMAGEWIDTH, 0);
        page.height = field<uint32_t>(TIFFTAG_IMAGELENGTH, 0);
        page.compression = field<uint16_t>(TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        page.tiled = TIFFIsTiled(tif);
        if (page.width == 0 || page.height == 0) fail(at + " has no pixels (" + page.str() + ")");
        const uint64_t row_bytes = uint64_t(page.width) * dtype_size(page.dtype);
        if (TIFFScanlineSize64(tif) != row_bytes)
            fail(at + ": libtiff makes a row " + std::to_string(TIFFScanlineSize64(tif)) + " bytes, not " +
                 std::to_string(row_bytes) + " (a corrupt directory)");
        uint32_t available = 0;
        if (page.tiled) {
            page.tile_width = field<uint32_t>(TIFFTAG_TILEWIDTH, 0);
            page.tile_height = field<uint32_t>(TIFFTAG_TILELENGTH, 0);
            if (page.tile_width == 0 || page.tile_height == 0)
                fail(at + " has tiles of " + std::to_string(page.tile_height) + " x " +
                     std::to_string(page.tile_width) + " pixels (a corrupt directory)");
            // At most 2^32 x 2^32 pixels of 8 bytes: 2^67 would overflow.
            page.strile_bytes = uint64_t(page.tile_width) * page.tile_height;
            if (page.strile_bytes > (uint64_t(1) << 60))
                fail(at + " has tiles of " + std::to_string(page.strile_bytes) +
                     " pixels (a corrupt directory)");
            page.strile_bytes *= dtype_size(page.dtype);
            if (TIFFTileSize64(tif) != page.strile_bytes)
                fail(at + ": libtiff makes a tile " + std::to_string(TIFFTileSize64(tif)) + " bytes, not " +
                     std::to_string(page.strile_bytes) + " (a corrupt directory)");
            const uint64_t across = (uint64_t(page.width) + page.tile_width - 1) / page.tile_width;
            const uint64_t down = (uint64_t(page.height) + page.tile_height - 1) / page.tile_height;
            page.striles = uint32_t(across * down);  // at most 2^32 - 1 in each direction, of 1-pixel tiles
            if (across * down > std::numeric_limits<uint32_t>::max())
                fail(at + " has more than 2^32 tiles (a corrupt directory)");
            page.decoded = uint64_t(page.striles) * page.strile_bytes;
            available = TIFFNumberOfTiles(tif);
        } else {
            page.strip_rows = std::min(field<uint32_t>(TIFFTAG_ROWSPERSTRIP, page.height), page.height);
            if (page.strip_rows == 0) fail(at + " has 0 rows per strip (a corrupt directory)");
            page.strile_bytes = uint64_t(page.strip_rows) * row_bytes;
            page.striles = uint32_t((uint64_t(page.height) + page.strip_rows - 1) / page.strip_rows);
            page.decoded = uint64_t(page.height) * row_bytes;
            available = TIFFNumberOfStrips(tif);
        }
        if (available < page.striles)
            fail(at + " lists " + std::to_string(available) + (page.tiled ? " tiles" : " strips") + " but " +
                 std::to_string(page.striles) + " are needed to cover " + page.str() +
                 " (a corrupt directory)");
        page.stored = stored_bytes(page, at);
        return page;
    }

    // Bytes of the page's strips or tiles that lie within the file. Where
    // they are not compressed, each must hold its pixels and lie there whole
    // (libtiff reads the pixels' bytes whatever size the directory gives).
    uint64_t stored_bytes(const Page& page, const std::string& at) const {
        uint64_t stored = 0;
        for (uint32_t s = 0; s < page.striles; ++s) {
            int err = 0;
            const uint64_t offset = TIFFGetStrileOffsetWithErr(tif_.get(), s, &err);
            const uint64_t count = TIFFGetStrileByteCountWithErr(tif_.get(), s, &err);
            if (err) fail(at + ": cannot read the offset or size of strip or tile " + std::to_string(s));
            const uint64_t in_file = offset < source_.size ? std::min(count, source_.size - offset) : 0;
            if (page.compression != COMPRESSION_NONE) {
                stored = add_saturating(stored, in_file);
                continue;
            }
            const uint64_t rows =
                std::min<uint64_t>(page.strip_rows, page.height - uint64_t(s) * page.strip_rows);
            const uint64_t need =
                page.tiled ? page.strile_bytes : rows * (page.strile_bytes / page.strip_rows);
            if (count < need)
                fail(at + ": " + (page.tiled ? "tile " : "strip ") + std::to_string(s) + " holds " +
                     std::to_string(count) + " bytes but its pixels need " + std::to_string(need) +
                     " (a corrupt directory)");
            if (offset > source_.size || need > source_.size - offset)
                fail(at + ": " + (page.tiled ? "tile " : "strip ") + std::to_string(s) + " needs bytes " +
                     std::to_string(offset) + " to " + std::to_string(offset + need) + " of a file of " +
                     std::to_string(source_.size) + " bytes: the file is truncated");
            stored = add_saturating(stored, need);
        }
        return stored;
    }

    // The array's shape, and whether the file holds enough data for it: what
    // its pages decode to may exceed what their strips and tiles hold only
    // as far as their compression can expand data. Checked before anything
    // is allocated, so a crafted directory declaring a huge image in a small
    // file is refused, not answered with gigabytes of zeros.
    Shape check_sizes(const std::vector<Page>& pages) const {
        const Page& first = pages[0];
        Shape shape;
        try {
            const size_t dims[] = {pages.size(), first.height, first.width};
            shape = pages.size() == 1 ? Shape::of(2, dims + 1) : Shape::of(3, dims);
        } catch (const InvalidArgument& e) {
            fail("holds " + std::to_string(pages.size()) + " pages of " + first.str() +
                 ", more than kiln can hold: " + e.what());
        }
        uint64_t decoded = 0, stored = 0, expansion = 1;
        bool compressed = false;
        for (const Page& page : pages) {
            decoded = add_saturating(decoded, page.decoded);
            stored = add_saturating(stored, page.stored);
            compressed = compressed || page.compression != COMPRESSION_NONE;
            expansion = std::max(expansion, max_expansion(page.compression));
        }
        // Strips may share bytes; the file's size bounds what they can hold.
        stored = std::min(stored, source_.size);
        if (decoded / expansion > stored && !(compressed && decoded <= small_image_bytes))
            fail("declares " + std::to_string(decoded) + " bytes of pixels, but its strips and tiles hold " +
                 std::to_string(stored) + " bytes" +
                 (compressed
                      ? ", which its compression expands at most " + std::to_string(expansion) + "-fold"
                      : " of uncompressed data") +
                 ": a truncated or corrupt file");
        return shape;
    }

    // The most a compression can expand data: PackBits turns 2 bytes into
    // 128, deflate 1 bit into 258 bytes at best (1032-fold), LZW a 12-bit
    // code into at most 4094 bytes; for the others (zstd, LZMA, JPEG...) a
    // bound above what they reach on real data.
    static uint64_t max_expansion(uint16_t compression) {
        switch (compression) {
            case COMPRESSION_NONE:
                return 1;
            case COMPRESSION_PACKBITS:
                return 64;
            case COMPRESSION_ADOBE_DEFLATE:
            case COMPRESSION_DEFLATE:
                return 1032;
            case COMPRESSION_LZW:
                return 4096;
            default:
                return 65536;
        }
    }

    void read_strips(const Page& page, size_t index, std::byte* dst) {
        const uint64_t row_bytes = page.strile_bytes / page.strip_rows;
        for (uint32_t s = 0; s < page.striles; ++s) {
            const uint64_t rows =
                std::min<uint64_t>(page.strip_rows, page.height - uint64_t(s) * page.strip_rows);
            const auto want = tmsize_t(rows * row_bytes);
            messages_.clear();
            if (TIFFReadEncodedStrip(tif_.get(), s, dst + uint64_t(s) * page.strip_rows * row_bytes, want) !=
                want)
                fail("cannot decode strip " + std::to_string(s) + " of page " + std::to_string(index) +
                     " (a truncated or corrupt file)");
        }
    }

    void read_tiles(const Page& page, size_t index, std::byte* dst) {
        std::vector<std::byte> tile;
        try {
            tile.resize(page.strile_bytes);
        } catch (const std::bad_alloc&) {
            throw OutOfMemory("out of host memory: TIFF file '" + name_ + "' has tiles of " +
                              std::to_string(page.strile_bytes) + " bytes");
        }
        const size_t element = dtype_size(page.dtype);
        const uint64_t row_bytes = uint64_t(page.width) * element;
        for (uint64_t y = 0; y < page.height; y += page.tile_height) {
            for (uint64_t x = 0; x < page.width; x += page.tile_width) {
                const uint32_t t = TIFFComputeTile(tif_.get(), uint32_t(x), uint32_t(y), 0, 0);
                messages_.clear();
                if (TIFFReadEncodedTile(tif_.get(), t, tile.data(), tmsize_t(tile.size())) !=
                    tmsize_t(tile.size()))
                    fail("cannot decode tile " + std::to_string(t) + " of page " + std::to_string(index) +
                         " (a truncated or corrupt file)");
                const uint64_t rows = std::min<uint64_t>(page.tile_height, page.height - y);
                const uint64_t cols = std::min<uint64_t>(page.tile_width, page.width - x);
                for (uint64_t r = 0; r < rows; ++r)
                    std::memcpy(dst + (y + r) * row_bytes + x * element,
                                tile.data() + r * page.tile_width * element, cols * element);
            }
        }
    }

    std::string name_;
    std::string description_;  // the first page's ImageDescription
    Source source_;
    TiffMessages messages_;
    TiffHandle tif_{nullptr, TIFFClose};
};

}  // namespace

HostArray read_tiff(const std::string& path) {
    File file = File::open_read(path);
    const uint64_t size = file.size();
    return Reader({}, &file, size, path).read();
}

HostArray parse_tiff(std::span<const std::byte> bytes, const std::string& name_for_errors) {
    return Reader(bytes, nullptr, bytes.size(), name_for_errors).read();
}

}  // namespace kiln::io
