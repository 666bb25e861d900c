#pragma once
// kiln's files (engine/io, library kiln_io): arrays as NPY, FITS, TIFF and
// PNG files, by extension or by format; stacks of detector frames in HDF5; and
// the two steps of replacing several files together. Errors are IoError
// naming the file and the problem.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "kiln/bslz4_host.hpp"
#include "kiln/dtype.hpp"
#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::io {

// Reading and writing arrays by file extension: .npy, .fits (.fit, .fts),
// .tif (.tiff), .png (8-bit grayscale), and a dataset in an HDF5 file (.h5,
// .hdf5, .hdf, .nxs) named after a colon: "scan.h5:/entry/data/data"; case
// does not matter.

/// Reads an array (read_npy, read_fits, read_tiff, read_png or
/// read_h5_dataset); the format comes from the extension. Throws IoError
/// naming the file and the accepted extensions for anything else.
HostArray read_array(const std::string& path);
/// Writes an array (write_npy, write_fits, write_tiff, write_h5_dataset
/// uncompressed, or write_png_gray with the linear stretch for a 2-D array)
/// atomically: a failed write leaves no partial file.
void write_array(const std::string& path, const HostArray& array);
/// Whether read_array/write_array know the file's extension.
bool known_array_extension(const std::string& path);

// HDF5 datasets as arrays.

/// The dataset an HDF5 path without one names (NeXus's and the Eiger's).
inline constexpr const char* default_h5_dataset = "/entry/data/data";
struct H5DatasetPath {
    std::string file, dataset;
};
/// "scan.h5:/entry/data/data" split at the colon before the dataset (the
/// first ":/" after which the part before ends in .h5, .hdf5, .hdf or .nxs);
/// "scan.h5" alone names default_h5_dataset; nullopt for other paths.
std::optional<H5DatasetPath> split_h5_path(const std::string& path);

/// Reads a whole dataset of 1 to 3 dimensions of any kiln dtype (8- to
/// 64-bit integers, 32- and 64-bit floats, either byte order), contiguous or
/// chunked, compressed with any filter HDF5 has (gzip, szip...) or with
/// bitshuffle-LZ4, which kiln decodes itself; 2-D and 3-D datasets are read
/// frame by frame by FrameStackReader, with its checks. Throws IoError naming
/// the file and dataset for: a file that is not HDF5; a missing dataset
/// (listing the datasets and groups of the deepest group on its path that
/// exists); a group (listing what it holds) or other object instead of a
/// dataset; a dataset of 0 or more than 3 dimensions (naming its extents),
/// or of a type kiln has no dtype for, or that is empty.
HostArray read_h5_dataset(const std::string& path, const std::string& dataset = default_h5_dataset);

struct H5WriteOptions {
    int gzip = 0;  ///< deflate level 1-9 (chunks of a page), 0: uncompressed and contiguous
};
/// Writes the array as `dataset` (a path from the root, intermediate groups
/// created) of a new HDF5 file, little-endian, in the array's shape and
/// dtype. Any previous file at PATH is replaced: the file is written under a
/// temporary name and renamed into place, so a failed write leaves no partial
/// file. Throws InvalidArgument for a dataset name that is not a path from
/// the root, an inconsistent array or a gzip level outside 0-9; IoError when
/// writing fails.
void write_h5_dataset(const std::string& path, const std::string& dataset, const HostArray& array,
                      const H5WriteOptions& options = {});

// NumPy .npy files: kiln's own reader and writer, so the CLI and the tests can
// exchange arrays with NumPy without a Python dependency.

/// Reads a .npy file (format 1.0, 2.0 or 3.0). Accepts C-order arrays of 1 to
/// 3 dimensions with descr f4, f8, i1, u1, i2, u2, i4, u4, i8, u8, b1 (bool,
/// read as uint8) or f2 (float16, read as float32: every float16 value,
/// subnormals, infinities and NaN included, is exactly a float32) in any
/// byte order ('<', '>', '|', '='); big-endian data is converted to native
/// order. Anything else (0-d or >3-d arrays, Fortran order, object,
/// structured or other dtypes, a bad magic, a truncated header or data) throws
/// IoError naming the file, the problem and what is accepted.
HostArray read_npy(const std::string& path);

/// Writes a .npy file readable by numpy.load: little-endian, C order, format
/// 1.0, '|u1' for uint8 (never bool). Written to a temporary file next
/// to PATH and renamed over it, so a failed write leaves no partial file and
/// keeps any previous PATH. Throws InvalidArgument for an inconsistent array
/// and IoError when the file cannot be written.
void write_npy(const std::string& path, const HostArray& array);

/// parse_npy is read_npy on bytes already in memory; name_for_errors stands in
/// for the file name in error messages.
HostArray parse_npy(std::span<const std::byte> bytes, const std::string& name_for_errors);

/// The bytes write_npy would write.
std::vector<std::byte> encode_npy(const HostArray& array);

// PNG output for the samples (quick looks at images and masks) and PNG input
// of gray images, through Debian's stb_image and stb_image_write.

/// How values map to gray levels. With x = (v - min) / (max - min) clamped to
/// [0, 1], linear gives x and log gives log10(1 + 1000 x) / log10(1001), which
/// spreads the faint end (astropy's LogStretch with a = 1000). The level is
/// round(255 * result).
enum class Stretch { linear, log };

/// Optional (min, max) of the stretch; without it, the min and max of the
/// finite values are used.
using Range = std::optional<std::pair<double, double>>;

/// One gray level per pixel, row by row, for a 2-D image of any dtype. NaN is
/// 0 (black); -inf and values below min are 0, +inf and values above max 255.
/// When min == max (a constant image) every finite pixel is 0. Throws
/// InvalidArgument for an image that is not 2-D or a range that is not finite
/// with min < max.
std::vector<uint8_t> to_gray8(const HostArray& image2d, Stretch stretch, Range range = {});

/// Writes a 2-D image of any dtype as an 8-bit gray PNG (see to_gray8),
/// atomically. Throws IoError when the file cannot be written.
void write_png_gray(const std::string& path, const HostArray& image2d, Stretch stretch,
                    Range range = {});

/// Writes width x height RGB pixels (3 bytes each, row by row) as a PNG,
/// atomically. Throws InvalidArgument when rgb.size() != width * height * 3.
void write_png_rgb(const std::string& path, int width, int height,
                   std::span<const uint8_t> rgb);

/// The image as gray RGB (see to_gray8) with label boundaries drawn in color.
/// A boundary pixel has a nonzero label and a 4-neighbour inside the image
/// with a different label (skimage's find_boundaries, mode "inner"); a label
/// touching the image edge is not closed along the edge. labels_int32 must be
/// int32 with the image's shape (else InvalidArgument).
std::vector<uint8_t> gray_to_rgb_with_outlines(const HostArray& image2d,
                                               const HostArray& labels_int32, Stretch stretch,
                                               std::array<uint8_t, 3> color, Range range = {});

/// Reads a single-channel gray PNG: 8-bit (and 1/2/4-bit, scaled to 0..255)
/// as uint8, 16-bit as uint16, shape (height, width). Colour, paletted and
/// gray+alpha PNGs throw IoError (convert them to gray first), as do files
/// that are not PNG or are corrupt.
HostArray read_png(const std::string& path);

/// read_png on bytes already in memory; name_for_errors stands in for the
/// path in messages (the fuzz harness feeds it).
HostArray parse_png(std::span<const std::byte> bytes, const std::string& name_for_errors);

// TIFF images and stacks through libtiff (microscopes and detectors write
// stacks as multi-page TIFF).

/// Reads a TIFF file of single-channel images: shape (height, width) for one
/// page (IFD), (pages, height, width) for several, which must all have the
/// same size and sample type (pages in SubIFDs are not read). Samples may be
/// 8-, 16-, 32- or 64-bit unsigned (SampleFormat 1, or none) or signed (2)
/// integers, read as uint8/int8, uint16/int16, uint32/int32, uint64/int64, or
/// 32- or 64-bit IEEE floats (3), read as float32/float64; values are returned as stored
/// (min-is-white images are not inverted, the Orientation tag is not
/// applied). Strips or tiles, either byte order, classic TIFF or BigTIFF, and
/// any compression Debian's libtiff decodes (none, LZW, deflate, PackBits,
/// zstd, LZMA, JPEG...), with or without a predictor.
///
/// An OME-TIFF (OME-XML in the first page's ImageDescription) reads the same
/// way, its pages in file order as (planes, height, width): refused with
/// IoError naming the sizes when more than one of its SizeZ, SizeC and SizeT
/// exceeds 1 (a 4-D or 5-D image), when it holds several images (series), or
/// when its pages are not all its planes (a multi-file OME-TIFF).
///
/// Throws IoError naming the file, the problem and what is accepted for: a
/// missing file or one that is not TIFF; several samples per pixel (RGB, gray
/// with alpha), palette colour, or another photometric interpretation than
/// min-is-black or min-is-white; 1-, 2-, 4-, 12- or 24-bit integer
/// samples, 16-bit floats and complex ones; pages that differ from the first
/// in size or type; strips or tiles that libtiff cannot decode, with
/// libtiff's own message (nothing is printed to stderr). What the file
/// declares is checked before memory is allocated for it: more elements
/// than kiln::Shape holds; uncompressed strips or tiles beyond the end of the
/// file (a truncated file); compressed ones that would have to expand more
/// than their compression can (PackBits 64-fold, deflate 1032, LZW 4096,
/// any other 65536, except for images of at most 16 MiB). OutOfMemory when
/// the host cannot hold the array. Safe to call from several threads at once.
HostArray read_tiff(const std::string& path);

/// read_tiff on bytes already in memory; name_for_errors stands in for the
/// path in messages (the fuzz harness feeds it).
HostArray parse_tiff(std::span<const std::byte> bytes, const std::string& name_for_errors);

/// How write_tiff compresses: zstd where Debian's libtiff has it (else
/// write_tiff throws Unsupported).
enum class TiffCompression { none, lzw, deflate, zstd };
/// "none", "lzw", "deflate", "zstd"; parse_tiff_compression throws
/// InvalidArgument listing them for another name.
std::string_view tiff_compression_name(TiffCompression c);
TiffCompression parse_tiff_compression(std::string_view name);

struct TiffWriteOptions {
    TiffCompression compression = TiffCompression::none;
    /// 0: strips of about 1 MiB; else square tiles of this many pixels a
    /// side, a multiple of 16 (TIFF's rule), edge tiles padded with zeros.
    uint32_t tile = 0;
    /// BigTIFF even when a classic TIFF would do (it is used anyway for
    /// data that could pass 4 GiB).
    bool bigtiff = false;
};

/// Writes a 2-D array as a one-page TIFF file, a 3-D array as one page per
/// index of its first axis, in the host's byte order: BitsPerSample 8, 16,
/// 32 or 64 with SampleFormat 1 (uint8, uint16, uint32, uint64), 2 (int8,
/// int16, int32, int64) or 3 (float32, float64), min-is-black. Uncompressed
/// in strips of about 1 MiB unless options say otherwise; compressed integer
/// images use the horizontal predictor. Arrays whose data could pass 4 GiB
/// are written as BigTIFF. A 3-D array of one page reads back as 2-D.
/// Written to a temporary file beside PATH and renamed over it, so a failed
/// write leaves no partial file. Throws InvalidArgument for a 1-D or
/// inconsistent array or a tile size that is not a multiple of 16, IoError
/// when the file cannot be written.
void write_tiff(const std::string& path, const HostArray& array);
void write_tiff(const std::string& path, const HostArray& array, const TiffWriteOptions& options);

// FITS images through cfitsio.

/// Reads a FITS image: the primary HDU, or the image extension whose EXTNAME
/// (or HDUNAME) is `extension` (case-insensitive). If no extension is named and
/// the primary HDU holds no data (NAXIS = 0), as in files whose images all live
/// in extensions, the first image extension holding data is read.
///
/// FITS axes are reversed into kiln's (z, y, x) order: NAXIS1 is x. Images
/// have 1 to 3 axes; for NAXIS > 3, axes beyond the second whose length is 1
/// are dropped (radio images carry degenerate frequency and Stokes axes), so
/// (NAXIS1..4) = (512, 512, 1, 1) reads as (512, 512). Tile-compressed images
/// read like plain ones.
///
/// BSCALE and BZERO are applied; the dtype follows from BITPIX and them:
///   BITPIX   8: uint8; int8 when BZERO = -128 (and BSCALE = 1)
///   BITPIX  16: int16; uint16 when BZERO = 32768
///   BITPIX  32: int32; uint32 when BZERO = 2^31
///   BITPIX  64: int64; uint64 when BZERO = 2^63
///   BITPIX -32: float32;  BITPIX -64: float64
/// Any other BSCALE/BZERO gives float32 for 8- and 16-bit data, float64 for
/// 32- and 64-bit. An integer image with a BLANK keyword is returned as that
/// float type too, its blank pixels as NaN (BITPIX 64 with BLANK: float64,
/// read when every value is exactly a float64, all integers up to 2^53 in
/// magnitude, else IoError naming the first value that is not and its
/// position). NaN in float images stays NaN.
///
/// Before cfitsio reads beyond the primary header, the file is checked by
/// check_fits_file (engine/io/fits_guard.hpp): data the file cannot hold (a
/// header declaring more bytes than follow it, both sizes in the message) and
/// tile-compressed images cfitsio cannot read safely are refused there, so
/// nothing is allocated for them.
///
/// Throws IoError naming the file and the problem (with cfitsio's message) for
/// a missing, unreadable, corrupt, truncated or non-FITS file, a named
/// extension that is absent or not an image (a table), an HDU without data, or
/// an image kiln cannot represent (more than 3 non-degenerate axes, or more
/// elements than kiln::Shape accepts); OutOfMemory when the host cannot hold
/// the image.
HostArray read_fits(const std::string& path, const std::string& extension = "");

/// Writes an array as the primary image of a new FITS file, axes reversed
/// (x is NAXIS1). float32/float64 as BITPIX -32/-64 (NaN kept), uint8, int16
/// int32 and int64 as BITPIX 8/16/32/64; uint16, uint32 and uint64 as BITPIX
/// 16/32/64 with BZERO 32768, 2^31 and 2^63, int8 as BITPIX 8 with BZERO
/// -128 (the FITS conventions cfitsio and astropy use). The file is written under a temporary name in the
/// same directory and renamed into place, so `path` never holds a partial
/// file. Throws IoError if `path` exists and overwrite is false, or if
/// writing fails.
void write_fits(const std::string& path, const HostArray& array, bool overwrite = true);

/// EXTNAMEs of the image extensions that hold data, in file order: the names
/// read_fits accepts (the primary HDU and unnamed extensions are not listed).
/// Throws IoError as read_fits does for an unreadable file.
std::vector<std::string> fits_image_extensions(const std::string& path);

// Stacks of detector frames in HDF5 (the NeXus layout detectors write:
// /entry/data/data, shape (frames, rows, cols), one chunk per frame, usually
// compressed with bitshuffle-LZ4, HDF5 filter 32008).
//
// The reader can hand out a frame's chunk as stored (HDF5 direct chunk read),
// so the compressed bytes can travel to the GPU and be decoded there. The
// writer compresses with kiln's own encoder and writes chunks directly; the
// dataset still declares filter 32008, so h5py with hdf5plugin, or any HDF5
// program with the bitshuffle plugin, reads the files.
//
// Debian's HDF5 is the serial build, which is not thread-safe: kiln's readers
// and writers take one process-wide lock around their HDF5 calls, so they may
// be used from several threads (the calls then take turns); one reader or
// writer object is not to be used by two threads at once, except its const
// methods.

/// Read access to a 3-D (frames, rows, cols) or 2-D (one frame) HDF5 dataset
/// of any kiln dtype. Errors are IoError naming the file, dataset and frame.
class FrameStackReader {
public:
    /// Opens the file read-only; throws IoError if the file or dataset cannot
    /// be opened or the dataset is not a stack of frames of a kiln dtype.
    explicit FrameStackReader(const std::string& path, const std::string& dataset = "/entry/data/data");
    ~FrameStackReader();
    FrameStackReader(FrameStackReader&& other) noexcept;
    FrameStackReader& operator=(FrameStackReader&& other) noexcept;
    FrameStackReader(const FrameStackReader&) = delete;
    FrameStackReader& operator=(const FrameStackReader&) = delete;

    size_t frames() const { return frames_; }
    size_t rows() const { return rows_; }
    size_t cols() const { return cols_; }
    DType dtype() const { return dtype_; }
    /// Whether the dataset's only filter is bitshuffle with LZ4 (32008).
    /// Single chunks may still be stored unfiltered (their filter mask).
    bool is_bslz4() const { return bslz4_; }
    /// Whether read_for_decoder hands out bitshuffle-LZ4 chunks: is_bslz4(),
    /// one frame per chunk, and elements in the host's byte order.
    bool gpu_decodable() const { return bslz4_ && one_frame_chunks_ && !big_endian_; }
    /// Whether each chunk holds exactly one whole frame (needed by read_chunk).
    bool one_frame_chunks() const { return one_frame_chunks_; }

    /// Stored (compressed) size of a frame's chunk in bytes; a frame's bytes
    /// when the dataset has no filters.
    size_t chunk_bytes(size_t frame) const;

    /// A frame's chunk exactly as stored, without decompressing it. With
    /// filter_mask, receives HDF5's filter mask: bit i set means filter i of
    /// the pipeline was skipped for this chunk (in a bitshuffle-LZ4 dataset,
    /// bit 0: the frame's bytes stored unfiltered). Throws IoError unless
    /// chunks hold one frame each, or if the frame was never written.
    std::vector<uint8_t> read_chunk(size_t frame, uint32_t* filter_mask = nullptr) const;
    /// As above, into `out` (resized), reusing its memory across frames.
    void read_chunk(size_t frame, std::vector<uint8_t>& out, uint32_t* filter_mask = nullptr) const;

    /// A frame as a GPU decoder (Bslz4Decoder) takes it, into `out` (resized):
    /// the stored chunk when it is bitshuffle-LZ4 compressed (returns
    /// ChunkCoding::bslz4), else the decoded frame's bytes in the host's byte
    /// order (ChunkCoding::raw, to be copied as is): a chunk whose filter mask
    /// skips bitshuffle, and every frame of a dataset that is not
    /// gpu_decodable() (read as read_frame does). Throws as read_frame.
    ChunkCoding read_for_decoder(size_t frame, std::vector<uint8_t>& out) const;

    /// Where a frame's chunk is stored in the file, so that it can be read
    /// without HDF5 (pread from several threads at once, say).
    struct StoredChunk {
        uint64_t offset = 0;  ///< first byte in the file
        uint64_t bytes = 0;   ///< stored size
        ChunkCoding coding = ChunkCoding::bslz4;  ///< raw: stored unfiltered, a frame's bytes
    };
    /// For a gpu_decodable() stack, where `frame`'s chunk lies: the bytes
    /// there are what read_for_decoder hands out, with the same coding.
    /// nullopt when the frame has to be read through read_for_decoder: a
    /// stack that is not gpu_decodable(), a chunk never written (the fill
    /// value), a dataset reached through an external link (in another file).
    /// Checks the chunk as read_chunk does: IoError for a chunk beyond the
    /// end of the file, an unfiltered one of another size than a frame's, or
    /// one larger than a frame takes compressed.
    /// HDF5 1.10 finds this by walking the chunk index, in time growing with
    /// the frame's index (about 10 ns per frame before it with a version 1
    /// B-tree, 70 with an extensible array); chunk_bytes is a quick lookup.
    std::optional<StoredChunk> stored_chunk(size_t frame) const;
    /// Per frame, what stored_chunk gives (nullopt: never written).
    using ChunkTable = std::vector<std::optional<StoredChunk>>;
    /// Every frame's stored_chunk, read from the chunk index in one pass
    /// (kiln reads the index itself, with pread; HDF5's own lock is held only
    /// to ask where the dataset's header lies and to count its chunks), each
    /// checked as stored_chunk checks it. nullopt where kiln does not read
    /// the dataset's index (indexes read: the version 1 B-tree of HDF5's
    /// default format and the fixed array of libver latest; not the
    /// extensible array, version 2 B-tree, single chunk or implicit ones) or
    /// where stored_chunk gives nothing (a stack that is not gpu_decodable(),
    /// or reached through an external link) and for a stack of more frames
    /// than its file has bytes: ask stored_chunk frame by frame then. Throws IoError as stored_chunk does, for an index that is
    /// malformed (bounds, order, cycles, checksums), and for one listing
    /// another number of chunks than HDF5 counts.
    std::optional<ChunkTable> chunk_table() const;
    /// Whether the dataset lies in the file opened (not reached through an
    /// external link).
    bool own_file() const { return own_file_; }

    /// One decoded frame, shape (rows, cols). Bitshuffle-LZ4 chunks, of any
    /// shape, are decoded by kiln's decoder (no HDF5 plugin needed); other
    /// filters go through HDF5's own pipeline. Other bitshuffle variants are
    /// refused when the reader opens (HDF5 1.10 trusts what a filter returns).
    HostArray read_frame(size_t frame) const;

    const std::string& path() const { return path_; }
    const std::string& dataset() const { return dataset_; }

private:
    std::string where(size_t frame) const;
    void check_frame(size_t frame) const;
    void check_stored(size_t frame, bool decoding) const;
    void check_within_file(size_t frame, uint64_t address, uint64_t bytes) const;
    void read_bslz4_chunks(size_t frame, HostArray& out) const;
    // Whether a one-frame chunk is stored for the frame (a quick lookup).
    bool chunk_written(size_t frame) const;
    // The frame read through HDF5 as mem_type (an hid_t), under HdfCall.
    void read_hyperslab(size_t frame, int64_t mem_type, void* out) const;
    // One chunk of a frame, as the chunk index records it.
    struct ChunkAt {
        uint64_t r, c;        // the chunk's first row and column in the frame
        unsigned mask;        // HDF5's filter mask
        uint64_t address, bytes;
        bool stored;          // false: never written
    };
    // Calls f(ChunkAt) for every chunk the frame touches (defined in the .cpp).
    template <typename F>
    void for_each_chunk(size_t frame, F&& f) const;
    void check_chunk(size_t frame, const ChunkAt& at, bool decoding) const;
    // A stored chunk as stored_chunk hands it out, checked (check_chunk, and
    // no larger than a frame takes compressed).
    StoredChunk located(size_t frame, const ChunkAt& at) const;
    void release() noexcept;

    std::string path_, dataset_;
    int64_t file_ = -1, dset_ = -1;  // HDF5 handles (hid_t)
    size_t frames_ = 0, rows_ = 0, cols_ = 0;
    DType dtype_ = DType::float32;
    bool big_endian_ = false, bslz4_ = false, filtered_ = false, one_frame_chunks_ = false, rank3_ = true;
    bool chunked_ = false;
    bool own_file_ = true;                // the dataset lies in the opened file itself
    int filters_ = 0;                     // filters in the dataset's pipeline
    uint32_t missing_filters_ = 0;        // bit i: filter i is not available to HDF5
    uint32_t bitshuffle_filters_ = 0;     // bit i: filter i is bitshuffle (32008)
    std::string missing_ids_;             // their filter ids, for messages
    uint64_t chunk_[3] = {1, 1, 1};       // chunk dimensions (frames, rows, cols)
    uint64_t file_size_ = 0, base_ = 0;   // bytes of the file; HDF5's base address (user block)
};

/// One HDF5 dataset of frames: a file and a dataset in it.
struct StackPart {
    std::string path, dataset;
};

/// The frame stacks that `path` holds under `dataset`, in frame order: the
/// file itself when `dataset` is a dataset in it; for an Eiger master file,
/// whose `dataset` is missing but whose group (the part of `dataset` before
/// its last '/', /entry/data) holds links named data_000001, data_000002...
/// (six digits), the datasets they point to, in name order; links to other
/// files are resolved to those files (relative names against the master's
/// folder), so each part names the file its chunks lie in. A `dataset` that
/// is itself an external link is resolved the same way. Throws IoError naming
/// the file when it cannot be opened as HDF5 or has neither.
std::vector<StackPart> stack_parts(const std::string& path, const std::string& dataset = "/entry/data/data");

/// Writes a stack of frames to a new HDF5 file: dataset (frames, rows, cols),
/// growing by one frame per write_frame, one chunk per frame, optionally
/// bitshuffle-LZ4 compressed. The file appears at `path` only when close()
/// succeeds (it is written under a temporary name and renamed); a writer
/// destroyed without close() removes its temporary file.
class FrameStackWriter {
public:
    /// Creates the temporary file and the dataset (intermediate groups too).
    /// Throws InvalidArgument for a zero extent, IoError if HDF5 refuses.
    FrameStackWriter(const std::string& path, const std::string& dataset, size_t rows, size_t cols,
                     DType dtype, bool bslz4);
    ~FrameStackWriter();
    FrameStackWriter(FrameStackWriter&& other) noexcept;
    FrameStackWriter& operator=(FrameStackWriter&& other) noexcept;
    FrameStackWriter(const FrameStackWriter&) = delete;
    FrameStackWriter& operator=(const FrameStackWriter&) = delete;

    /// Appends one frame of shape (rows, cols) (or (1, rows, cols)) and the
    /// writer's dtype; InvalidArgument otherwise, IoError if writing fails.
    void write_frame(const HostArray& frame);
    /// Appends one frame given as its bitshuffle-LZ4 chunk, compressed
    /// already (bslz4_compress of the frame's bytes), stored as it is.
    /// InvalidArgument for a writer made without bslz4 or a chunk that does
    /// not announce a frame's size; IoError if writing fails.
    void write_chunk(std::span<const uint8_t> chunk);
    /// Finishes the file and moves it to `path`. Later calls do nothing.
    void close();

    size_t frames_written() const { return frames_; }

private:
    std::string where() const;
    void release() noexcept;
    void discard() noexcept;

    std::string path_, temp_path_, dataset_;
    int64_t file_ = -1, dset_ = -1;
    size_t rows_ = 0, cols_ = 0, frames_ = 0;
    DType dtype_ = DType::float32;
    bool bslz4_ = false, closed_ = false;
};

// Files that must appear together: each written under a temporary name,
// then all moved into place.

/// Renames the finished temporary TMP over PATH (atomic within one file
/// system). On failure removes TMP and returns the system's reason, so that
/// writers whose library fills the temporary itself report it in their own
/// words; returns an empty error_code on success.
[[nodiscard]] std::error_code move_into_place(const std::string& tmp, const std::string& path);

/// Creates a new empty file in PATH's directory named .STEM.kiln-XXXXXX.EXT
/// (PATH's stem and extension, so that writers choosing the format by the
/// extension take it for PATH) and returns its name; on failure an empty
/// name and the system's reason in ec. For callers that write several files
/// and move them into place together (move_into_place) once all succeeded.
std::string create_temporary_beside(const std::string& path, std::error_code& ec);

}  // namespace kiln::io
#pragma GCC visibility pop
