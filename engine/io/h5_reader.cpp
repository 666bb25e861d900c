// FrameStackReader (kiln/io.hpp): opens an HDF5 frame stack, checks its
// dataset (rank, extents, dtype, filters) and its chunk index against the
// file, and reads frames: bitshuffle-LZ4 chunks are decoded by kiln, other
// data goes through HDF5; chunks can also be handed out as stored.
#include "kiln/io.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <span>
#include <utility>

#include "io/file.hpp"
#include "io/h5_chunk_index.hpp"
#include "io/h5_util.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/error.hpp"

namespace kiln::io {

namespace {

// The most bytes a chunk of `bytes` takes compressed with bitshuffle-LZ4
// (a few bytes per block at worst); a larger claim is not such a chunk, and
// would be allocated before reading.
uint64_t most_compressed(uint64_t bytes) { return bytes + bytes / 8 + 4096; }

void byteswap_elements(std::span<std::byte> bytes, size_t elem_size) {
    for (size_t i = 0; i + elem_size <= bytes.size(); i += elem_size)
        std::reverse(bytes.begin() + i, bytes.begin() + i + elem_size);
}

}  // namespace

FrameStackReader::FrameStackReader(const std::string& path, const std::string& dataset)
    : path_(path), dataset_(dataset) {
    HdfCall guard;
    const std::string at = path + ":" + dataset;
    file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file_ < 0) throw IoError(path + ": cannot open as an HDF5 file" + h5_detail());
    dset_ = H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT);
    if (dset_ < 0) {
        const std::string detail = h5_detail();
        release();
        throw IoError(at + ": no such dataset" + detail);
    }
    try {
        Handle space(H5Dget_space(dset_), H5Sclose);
        const int rank = H5Sget_simple_extent_ndims(space.get());
        if (rank != 2 && rank != 3)
            throw IoError(at + ": dataset has rank " + std::to_string(rank) +
                          "; a frame stack is (frames, rows, cols) or one (rows, cols) frame");
        hsize_t dims[3] = {1, 1, 1};
        H5Sget_simple_extent_dims(space.get(), rank == 3 ? dims : dims + 1, nullptr);
        rank3_ = rank == 3;
        frames_ = dims[0];
        rows_ = dims[1];
        cols_ = dims[2];
        if (rows_ == 0 || cols_ == 0)
            throw IoError(at + ": frames of " + std::to_string(rows_) + "x" + std::to_string(cols_) +
                          " pixels; both extents must be >= 1");
        try {
            // Every frame, and the whole stack, must be a shape kiln can hold.
            if (frames_ > 0)
                (void)Shape{frames_, rows_, cols_};
            else
                (void)Shape{rows_, cols_};
        } catch (const InvalidArgument& e) {
            throw IoError(at + ": dataset of " + std::to_string(frames_) + " frames of " +
                          std::to_string(rows_) + "x" + std::to_string(cols_) +
                          " pixels, which kiln cannot hold: " + e.what());
        }

        Handle type(H5Dget_type(dset_), H5Tclose);
        const auto dt = dtype_of_h5(type.get());
        if (!dt)
            throw IoError(at + ": element type (HDF5 class " + std::to_string(int(H5Tget_class(type.get()))) +
                          ", " + std::to_string(H5Tget_size(type.get())) +
                          " bytes) has no kiln dtype; accepted: 8/16/32/64-bit integers, "
                          "32/64-bit floats");
        dtype_ = *dt;
        big_endian_ = H5Tget_order(type.get()) == H5T_ORDER_BE;

        Handle dcpl(H5Dget_create_plist(dset_), H5Pclose);
        {
            std::error_code ec;
            file_size_ = std::filesystem::file_size(path, ec);
            if (ec) throw IoError(path + ": cannot read its size: " + ec.message());
            Handle fcpl(H5Fget_create_plist(file_), H5Pclose);
            hsize_t userblock = 0;
            H5Pget_userblock(fcpl.get(), &userblock);
            base_ = userblock;
            // A dataset reached through an external link lies in another
            // file, whose offsets stored_chunk must not hand out as this one's.
            H5O_info_t file_info{}, dset_info{};
            own_file_ = H5Oget_info_by_name2(file_, "/", &file_info, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
                        H5Oget_info2(dset_, &dset_info, H5O_INFO_BASIC) >= 0 &&
                        file_info.fileno == dset_info.fileno;
            H5Eclear2(H5E_DEFAULT);
        }
        if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED) {
            hsize_t chunk[3] = {1, 0, 0};
            H5Pget_chunk(dcpl.get(), rank, rank == 3 ? chunk : chunk + 1);
            chunked_ = true;
            for (int i = 0; i < 3; ++i) chunk_[i] = std::max<uint64_t>(1, chunk[i]);
            one_frame_chunks_ = (rank == 2 || chunk[0] == 1) && chunk[1] == rows_ && chunk[2] == cols_;
            filters_ = std::max(0, H5Pget_nfilters(dcpl.get()));
            filtered_ = filters_ > 0;
            for (int i = 0; i < filters_ && i < 32; ++i) {
                unsigned flags = 0, cd[16] = {};
                size_t n_cd = 16;
                const H5Z_filter_t id =
                    H5Pget_filter2(dcpl.get(), unsigned(i), &flags, &n_cd, cd, 0, nullptr, nullptr);
                if (id == bslz4_filter) bitshuffle_filters_ |= 1u << i;
                if (H5Zfilter_avail(id) <= 0) {
                    H5Eclear2(H5E_DEFAULT);
                    missing_filters_ |= 1u << i;
                    missing_ids_ += (missing_ids_.empty() ? "" : ", ") + std::to_string(id);
                }
            }
            if (H5Pget_nfilters(dcpl.get()) == 1) {
                unsigned flags = 0, cd[16] = {};
                size_t n_cd = 16;
                const H5Z_filter_t id = H5Pget_filter2(dcpl.get(), 0, &flags, &n_cd, cd, 0, nullptr, nullptr);
                bslz4_ = id == bslz4_filter && n_cd >= 5 && cd[4] == bslz4_lz4 && cd[2] == dtype_size(dtype_);
            }
            if (bitshuffle_filters_ && !bslz4_) {
                // HDF5 1.10 does not check the size of what a filter returns
                // and copies a whole chunk from it: a crafted chunk through the
                // bitshuffle plugin reads past its buffer (found by kiln's
                // fuzzer). kiln decodes bitshuffle itself, LZ4 only.
                unsigned flags = 0, cd[16] = {};
                size_t n_cd = 16;
                H5Pget_filter2(dcpl.get(), 0, &flags, &n_cd, cd, 0, nullptr, nullptr);
                throw IoError(at + ": bitshuffle (filter 32008) " +
                              (filters_ > 1 ? std::string("with other filters")
                                            : "with parameters " + std::to_string(n_cd > 2 ? cd[2] : 0) +
                                                  "-byte elements, compression " +
                                                  std::to_string(n_cd > 4 ? cd[4] : 0)) +
                              "; kiln reads bitshuffle-LZ4 (compression 2) as the dataset's only filter, "
                              "with the dataset's element size");
            }
        }
    } catch (...) {
        release();
        throw;
    }
}

FrameStackReader::~FrameStackReader() {
    release();
}

FrameStackReader::FrameStackReader(FrameStackReader&& o) noexcept {
    *this = std::move(o);
}

FrameStackReader& FrameStackReader::operator=(FrameStackReader&& o) noexcept {
    if (this != &o) {
        release();
        path_ = std::move(o.path_);
        dataset_ = std::move(o.dataset_);
        file_ = std::exchange(o.file_, -1);
        dset_ = std::exchange(o.dset_, -1);
        frames_ = o.frames_;
        rows_ = o.rows_;
        cols_ = o.cols_;
        dtype_ = o.dtype_;
        big_endian_ = o.big_endian_;
        bslz4_ = o.bslz4_;
        filtered_ = o.filtered_;
        filters_ = o.filters_;
        missing_filters_ = o.missing_filters_;
        bitshuffle_filters_ = o.bitshuffle_filters_;
        missing_ids_ = std::move(o.missing_ids_);
        chunked_ = o.chunked_;
        std::copy(std::begin(o.chunk_), std::end(o.chunk_), std::begin(chunk_));
        file_size_ = o.file_size_;
        base_ = o.base_;
        one_frame_chunks_ = o.one_frame_chunks_;
        rank3_ = o.rank3_;
        own_file_ = o.own_file_;
    }
    return *this;
}

void FrameStackReader::release() noexcept {
    close_dataset_and_file(dset_, file_);
}

std::string FrameStackReader::where(size_t frame) const {
    return path_ + ":" + dataset_ + " frame " + std::to_string(frame);
}

void FrameStackReader::check_frame(size_t frame) const {
    if (dset_ < 0) throw InvalidArgument(path_ + ": reader was moved from");
    if (frame >= frames_)
        throw InvalidArgument(where(frame) + ": no such frame; the stack holds " + std::to_string(frames_) +
                              " (0 to " + std::to_string(frames_ ? frames_ - 1 : 0) + ")");
}

template <typename F>
void FrameStackReader::for_each_chunk(size_t frame, F&& f) const {
    const uint64_t first = rank3_ ? frame / chunk_[0] * chunk_[0] : 0;
    for (uint64_t r = 0; r < rows_; r += chunk_[1]) {
        for (uint64_t c = 0; c < cols_; c += chunk_[2]) {
            const hsize_t offset[3] = {first, r, c};
            unsigned mask = 0;
            haddr_t address = HADDR_UNDEF;
            hsize_t bytes = 0;
            if (H5Dget_chunk_info_by_coord(dset_, rank3_ ? offset : offset + 1, &mask, &address, &bytes) < 0)
                throw IoError(where(frame) + ": its chunk index cannot be read" + h5_detail());
            f(ChunkAt{r, c, mask, uint64_t(address), uint64_t(bytes), address != HADDR_UNDEF});
        }
    }
}

// HDF5 trusts its chunk index: a chunk recorded past the end of the file (a
// truncated file, or a crafted index) makes it copy beyond its own buffers.
void FrameStackReader::check_within_file(size_t frame, uint64_t address, uint64_t bytes) const {
    if (address > file_size_ || base_ > file_size_ - address || bytes > file_size_ - address - base_)
        throw IoError(where(frame) + ": its data at byte " + std::to_string(base_ + address) + " (" +
                      std::to_string(bytes) + " bytes) lies beyond the end of the file (" +
                      std::to_string(file_size_) +
                      " bytes): the file is truncated or its chunk index is corrupt");
}

void FrameStackReader::check_chunk(size_t frame, const ChunkAt& at, bool decoding) const {
    if (!at.stored) return;  // never written: the fill value
    check_within_file(frame, at.address, at.bytes);
    // HDF5 passes a chunk through an optional filter it does not have
    // as if unfiltered, copying a chunk's size from a shorter buffer.
    if (decoding && (at.mask & missing_filters_) != missing_filters_)
        throw IoError(where(frame) + ": its chunk is stored through HDF5 filter " + missing_ids_ +
                      ", which this HDF5 does not have (install its plugin and set HDF5_PLUGIN_PATH)");
    // A chunk whose filter mask skips every filter is stored as is.
    const uint64_t nominal = chunk_[0] * chunk_[1] * chunk_[2] * dtype_size(dtype_);
    const unsigned all = filters_ >= 32 ? ~0u : (1u << filters_) - 1;
    if ((!filtered_ || (at.mask & all) == all) && at.bytes != nominal)
        throw IoError(where(frame) + ": an unfiltered chunk of " + std::to_string(at.bytes) +
                      " bytes in a dataset whose chunks hold " + std::to_string(nominal) +
                      " (corrupt chunk index)");
}

void FrameStackReader::check_stored(size_t frame, bool decoding) const {
    // Every chunk a frame touches must lie within the file, and an
    // unfiltered chunk must have a chunk's size.
    if (!chunked_) {
        const haddr_t address = H5Dget_offset(dset_);
        const hsize_t bytes = H5Dget_storage_size(dset_);
        if (address != HADDR_UNDEF) check_within_file(frame, address, bytes);
        return;
    }
    for_each_chunk(frame, [&](const ChunkAt& at) { check_chunk(frame, at, decoding); });
}

std::optional<FrameStackReader::StoredChunk> FrameStackReader::stored_chunk(size_t frame) const {
    check_frame(frame);
    if (!gpu_decodable() || !own_file_) return std::nullopt;
    HdfCall guard;
    std::optional<StoredChunk> out;
    for_each_chunk(frame, [&](const ChunkAt& at) {
        if (at.stored) out = located(frame, at);  // else never written: read_for_decoder gives the fill value
    });
    return out;
}

FrameStackReader::StoredChunk FrameStackReader::located(size_t frame, const ChunkAt& at) const {
    check_chunk(frame, at, false);
    const uint64_t frame_bytes = byte_size(Shape{rows_, cols_}, dtype_);
    const bool raw = (at.mask & bitshuffle_filters_) != 0;  // check_chunk: then a frame's bytes
    if (!raw && at.bytes > most_compressed(frame_bytes))
        throw IoError(where(frame) + ": its chunk declares " + std::to_string(at.bytes) +
                      " bytes, more than a frame of " + std::to_string(frame_bytes) + " bytes takes compressed");
    return StoredChunk{base_ + at.address, at.bytes, raw ? ChunkCoding::raw : ChunkCoding::bslz4};
}

std::optional<FrameStackReader::ChunkTable> FrameStackReader::chunk_table() const {
    if (dset_ < 0) throw InvalidArgument(path_ + ": reader was moved from");
    // A stack of more frames than its file has bytes is mostly frames never
    // written: its table would outgrow the file.
    if (!gpu_decodable() || !own_file_ || frames_ > file_size_) return std::nullopt;
    const std::string at = path_ + ":" + dataset_;
    std::optional<ChunkIndexQuery> query;
    {
        HdfCall guard;
        query = chunk_index_query(file_, dset_);
        H5Eclear2(H5E_DEFAULT);
    }
    if (!query) return std::nullopt;
    const File file = File::open_read(path_);
    const ChunkIndex index = read_chunk_index(file, file_size_, *query, at);
    if (!index.supported) return std::nullopt;
    // One pass of HDF5's own over the index (checked by kiln's first): the
    // count of chunks must agree.
    hsize_t counted = 0;
    {
        HdfCall guard;
        Handle space(H5Dget_space(dset_), H5Sclose);
        if (H5Dget_num_chunks(dset_, space.get(), &counted) < 0)
            throw IoError(at + ": its chunk index cannot be read" + h5_detail());
    }
    if (index.chunks.size() != counted)
        throw IoError(at + ": its chunk index (" + index.kind + ") lists " + std::to_string(index.chunks.size()) +
                      " chunks as kiln reads it, HDF5 counts " + std::to_string(counted));
    ChunkTable table(frames_);
    for (const IndexedChunk& c : index.chunks)
        table[c.frame] = located(c.frame, ChunkAt{0, 0, c.mask, c.address, c.bytes, true});
    return table;
}

bool FrameStackReader::chunk_written(size_t frame) const {
    HdfCall guard;
    const hsize_t offset[3] = {rank3_ ? hsize_t(frame) : 0, 0, 0};
    hsize_t bytes = 0;
    const bool written = H5Dget_chunk_storage_size(dset_, rank3_ ? offset : offset + 1, &bytes) >= 0 && bytes > 0;
    H5Eclear2(H5E_DEFAULT);
    return written;
}

size_t FrameStackReader::chunk_bytes(size_t frame) const {
    check_frame(frame);
    if (!one_frame_chunks_)
        throw IoError(where(frame) + ": direct chunk access needs chunks of exactly one frame (1, " +
                      std::to_string(rows_) + ", " + std::to_string(cols_) + ")");
    const uint64_t frame_bytes = byte_size(Shape{rows_, cols_}, dtype_);
    // Without filters a chunk is the frame's bytes as stored. HDF5's chunk
    // index need not record their size then, and a crafted index can make
    // H5Dread_chunk copy more than H5Dget_chunk_storage_size reports, so
    // such chunks are read as the frame's hyperslab instead (read_chunk).
    if (!filtered_) return size_t(frame_bytes);
    HdfCall guard;
    const hsize_t offset[3] = {rank3_ ? hsize_t(frame) : 0, 0, 0};
    hsize_t bytes = 0;
    if (H5Dget_chunk_storage_size(dset_, rank3_ ? offset : offset + 1, &bytes) < 0 || bytes == 0)
        throw IoError(where(frame) + ": no chunk is stored for this frame" + h5_detail());
    if (bytes > most_compressed(frame_bytes))
        throw IoError(where(frame) + ": its chunk declares " + std::to_string(bytes) +
                      " bytes, more than a frame of " + std::to_string(frame_bytes) +
                      " bytes takes compressed");
    return size_t(bytes);
}

std::vector<uint8_t> FrameStackReader::read_chunk(size_t frame, uint32_t* filter_mask) const {
    std::vector<uint8_t> out;
    read_chunk(frame, out, filter_mask);
    return out;
}

void FrameStackReader::read_chunk(size_t frame, std::vector<uint8_t>& out, uint32_t* filter_mask) const {
    out.resize(chunk_bytes(frame));
    HdfCall guard;
    check_stored(frame, false);
    if (!filtered_) {
        // The stored bytes, in the file's byte order: read with the file's own type.
        Handle type(H5Dget_type(dset_), H5Tclose);
        read_hyperslab(frame, type.get(), out.data());
        if (filter_mask) *filter_mask = 0;
        return;
    }
    const hsize_t offset[3] = {rank3_ ? hsize_t(frame) : 0, 0, 0};
    uint32_t mask = 0;
    if (H5Dread_chunk(dset_, H5P_DEFAULT, rank3_ ? offset : offset + 1, &mask, out.data()) < 0)
        throw IoError(where(frame) + ": reading the stored chunk failed" + h5_detail());
    if (filter_mask) *filter_mask = mask;
}

ChunkCoding FrameStackReader::read_for_decoder(size_t frame, std::vector<uint8_t>& out) const {
    if (gpu_decodable()) {
        uint32_t mask = 0;
        read_chunk(frame, out, &mask);
        if ((mask & bitshuffle_filters_) == 0) return ChunkCoding::bslz4;
        // Stored unfiltered: check_stored (in read_chunk) found a frame's size.
        return ChunkCoding::raw;
    }
    const HostArray f = read_frame(frame);
    const auto* p = static_cast<const uint8_t*>(f.data());
    out.assign(p, p + f.nbytes());
    return ChunkCoding::raw;
}

void FrameStackReader::read_bslz4_chunks(size_t frame, HostArray& out) const {
    HdfCall guard;
    check_stored(frame, false);
    const size_t es = dtype_size(dtype_);
    const uint64_t nominal = chunk_[0] * chunk_[1] * chunk_[2] * es;
    const uint64_t first = rank3_ ? frame / chunk_[0] * chunk_[0] : 0;
    const uint64_t layer = rank3_ ? frame - first : 0;
    std::vector<uint8_t> stored, decoded(nominal);
    auto* dst = static_cast<uint8_t*>(out.data());
    for_each_chunk(frame, [&](const ChunkAt& at) {
        const uint64_t r = at.r, c = at.c, bytes = at.bytes;
        const hsize_t offset[3] = {first, r, c};
        uint32_t mask = at.mask;
        if (!at.stored) {
            std::fill(decoded.begin(), decoded.end(), uint8_t(0));  // never written: HDF5's fill value
        } else {
            if (bytes > most_compressed(nominal))
                throw IoError(where(frame) + ": its chunk declares " + std::to_string(bytes) +
                              " bytes, more than a chunk of " + std::to_string(nominal) +
                              " bytes takes compressed");
            stored.resize(bytes);
            if (H5Dread_chunk(dset_, H5P_DEFAULT, rank3_ ? offset : offset + 1, &mask, stored.data()) < 0)
                throw IoError(where(frame) + ": reading a stored chunk failed" + h5_detail());
            if (mask == 0) {
                bslz4_decompress(stored, es, decoded, where(frame));
            } else if (stored.size() == nominal) {
                decoded = stored;  // stored unfiltered
            } else {
                throw IoError(where(frame) + ": unfiltered chunk of " + std::to_string(stored.size()) +
                              " bytes for a chunk of " + std::to_string(nominal));
            }
        }
        // The frame's part of the chunk, row by row.
        const uint64_t n_rows = std::min(chunk_[1], rows_ - r), n_cols = std::min(chunk_[2], cols_ - c);
        for (uint64_t y = 0; y < n_rows; ++y)
            std::memcpy(dst + ((r + y) * cols_ + c) * es,
                        decoded.data() + ((layer * chunk_[1] + y) * chunk_[2]) * es, n_cols * es);
    });
}

HostArray FrameStackReader::read_frame(size_t frame) const {
    check_frame(frame);
    HostArray out(Shape{rows_, cols_}, dtype_);
    const size_t es = dtype_size(dtype_);
    // A frame whose one chunk was never written has nothing for read_chunk:
    // read_bslz4_chunks gives it the fill value.
    if (bslz4_ && (!one_frame_chunks_ || !chunk_written(frame))) {
        read_bslz4_chunks(frame, out);
        if (big_endian_ && es > 1) byteswap_elements(out.bytes, es);
        return out;
    }
    if (bslz4_ && one_frame_chunks_) {
        uint32_t mask = 0;
        const std::vector<uint8_t> chunk = read_chunk(frame, &mask);
        const std::span<uint8_t> dst(static_cast<uint8_t*>(out.data()), out.nbytes());
        if (mask == 0) {
            bslz4_decompress(chunk, es, dst, where(frame));
        } else if (chunk.size() == out.nbytes()) {
            std::memcpy(dst.data(), chunk.data(), chunk.size());  // stored unfiltered
        } else {
            throw IoError(where(frame) + ": unfiltered chunk of " + std::to_string(chunk.size()) +
                          " bytes for a frame of " + std::to_string(out.nbytes()));
        }
        if (big_endian_ && es > 1) byteswap_elements(out.bytes, es);
        return out;
    }
    HdfCall guard;
    check_stored(frame, true);
    read_hyperslab(frame, h5_types(dtype_).native, out.data());
    return out;
}

void FrameStackReader::read_hyperslab(size_t frame, int64_t mem_type, void* out) const {
    Handle file_space(H5Dget_space(dset_), H5Sclose);
    const hsize_t start[3] = {hsize_t(frame), 0, 0}, count[3] = {1, rows_, cols_};
    const int skip = rank3_ ? 0 : 1;
    H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start + skip, nullptr, count + skip, nullptr);
    const hsize_t mem_dims[2] = {rows_, cols_};
    Handle mem_space(H5Screate_simple(2, mem_dims, nullptr), H5Sclose);
    if (H5Dread(dset_, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, out) < 0)
        throw IoError(where(frame) + ": reading failed" + h5_detail());
}

}  // namespace kiln::io
