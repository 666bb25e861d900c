// FrameStackWriter (kiln/io.hpp): writes an HDF5 frame stack under a
// temporary name, one chunk per frame (bitshuffle-LZ4 chunks compressed by
// kiln and written directly), and moves the finished file into place.
#include "kiln/io.hpp"

#include <bit>
#include <filesystem>
#include <span>
#include <utility>

#include "io/h5_util.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/error.hpp"

namespace kiln::io {

// Chunks written directly are the host's bytes, declared little-endian.
static_assert(std::endian::native == std::endian::little, "kiln's HDF5 writer assumes little-endian");

namespace {

// Room for one more frame after `frames` (under HdfCall).
void grow(hid_t dset, size_t frames, size_t rows, size_t cols, const std::string& at) {
    const hsize_t dims[3] = {hsize_t(frames) + 1, rows, cols};
    if (H5Dset_extent(dset, dims) < 0) throw IoError(at + ": cannot extend the dataset" + h5_detail());
}

}  // namespace

FrameStackWriter::FrameStackWriter(const std::string& path, const std::string& dataset, size_t rows,
                                   size_t cols, DType dtype, bool bslz4)
    : path_(path),
      temp_path_(path + ".partial"),
      dataset_(dataset),
      rows_(rows),
      cols_(cols),
      dtype_(dtype),
      bslz4_(bslz4) {
    if (rows == 0 || cols == 0)
        throw InvalidArgument(path + ":" + dataset + ": frames of " + std::to_string(rows) + "x" +
                              std::to_string(cols) + " pixels; both extents must be >= 1");
    HdfCall guard;
    file_ = H5Fcreate(temp_path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file_ < 0) throw IoError(temp_path_ + ": cannot create the file" + h5_detail());
    try {
        const hsize_t dims[3] = {0, rows, cols}, max_dims[3] = {H5S_UNLIMITED, rows, cols};
        const hsize_t chunk[3] = {1, rows, cols};
        Handle space(H5Screate_simple(3, dims, max_dims), H5Sclose);
        Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
        H5Pset_create_intermediate_group(lcpl.get(), 1);
        H5Pset_chunk(dcpl.get(), 3, chunk);
        if (bslz4) {
            // With the plugin present, HDF5 lets it fill in its own parameters
            // (version, element size). Without it, the dataset is created with
            // the parameters the plugin would write, flagged optional, since
            // HDF5 refuses to create a dataset with a missing mandatory filter.
            if (H5Zfilter_avail(bslz4_filter) > 0) {
                const unsigned cd[2] = {0, bslz4_lz4};  // default block size, LZ4
                H5Pset_filter(dcpl.get(), bslz4_filter, H5Z_FLAG_MANDATORY, 2, cd);
            } else {
                H5Eclear2(H5E_DEFAULT);
                const unsigned cd[5] = {0, 3, unsigned(dtype_size(dtype)), 0, bslz4_lz4};
                H5Pset_filter(dcpl.get(), bslz4_filter, H5Z_FLAG_OPTIONAL, 5, cd);
            }
        }
        dset_ = H5Dcreate2(file_, dataset.c_str(), h5_types(dtype).file, space.get(), lcpl.get(), dcpl.get(),
                           H5P_DEFAULT);
        if (dset_ < 0) throw IoError(where() + ": cannot create the dataset" + h5_detail());
    } catch (...) {
        release();
        std::error_code ec;
        std::filesystem::remove(temp_path_, ec);
        throw;
    }
}

FrameStackWriter::~FrameStackWriter() {
    discard();
}

void FrameStackWriter::discard() noexcept {
    if (closed_ || file_ < 0) return;
    release();
    std::error_code ec;
    std::filesystem::remove(temp_path_, ec);
}

FrameStackWriter::FrameStackWriter(FrameStackWriter&& o) noexcept {
    *this = std::move(o);
}

FrameStackWriter& FrameStackWriter::operator=(FrameStackWriter&& o) noexcept {
    if (this != &o) {
        discard();
        path_ = std::move(o.path_);
        temp_path_ = std::move(o.temp_path_);
        dataset_ = std::move(o.dataset_);
        file_ = std::exchange(o.file_, -1);
        dset_ = std::exchange(o.dset_, -1);
        rows_ = o.rows_;
        cols_ = o.cols_;
        frames_ = o.frames_;
        dtype_ = o.dtype_;
        bslz4_ = o.bslz4_;
        closed_ = std::exchange(o.closed_, true);
    }
    return *this;
}

void FrameStackWriter::release() noexcept {
    close_dataset_and_file(dset_, file_);
}

std::string FrameStackWriter::where() const {
    return path_ + ":" + dataset_;
}

void FrameStackWriter::write_frame(const HostArray& frame) {
    const std::string at = where() + " frame " + std::to_string(frames_);
    if (closed_ || dset_ < 0) throw InvalidArgument(at + ": the writer is closed");
    const bool shape_ok = frame.shape.y() == rows_ && frame.shape.x() == cols_ && frame.shape.z() == 1;
    if (!shape_ok || frame.dtype != dtype_)
        throw InvalidArgument(at + ": got a " + std::string(dtype_name(frame.dtype)) + " array " +
                              frame.shape.str() + "; this stack takes " + std::string(dtype_name(dtype_)) +
                              " frames (" + std::to_string(rows_) + ", " + std::to_string(cols_) + ")");
    if (bslz4_) {
        const std::span<const uint8_t> bytes(static_cast<const uint8_t*>(frame.data()), frame.nbytes());
        write_chunk(bslz4_compress(bytes, dtype_size(dtype_)));
        return;
    }
    HdfCall guard;
    grow(dset_, frames_, rows_, cols_, at);
    const hsize_t offset[3] = {hsize_t(frames_), 0, 0};
    {
        Handle file_space(H5Dget_space(dset_), H5Sclose);
        const hsize_t count[3] = {1, rows_, cols_};
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset, nullptr, count, nullptr);
        Handle mem_space(H5Screate_simple(3, count, nullptr), H5Sclose);
        if (H5Dwrite(dset_, h5_types(dtype_).native, mem_space.get(), file_space.get(), H5P_DEFAULT,
                     frame.data()) < 0)
            throw IoError(at + ": writing failed" + h5_detail());
    }
    ++frames_;
}

void FrameStackWriter::write_chunk(std::span<const uint8_t> chunk) {
    const std::string at = where() + " frame " + std::to_string(frames_);
    if (closed_ || dset_ < 0) throw InvalidArgument(at + ": the writer is closed");
    if (!bslz4_) throw InvalidArgument(at + ": write_chunk takes bitshuffle-LZ4 chunks; this stack is not compressed");
    const uint64_t frame_bytes = uint64_t(rows_) * cols_ * dtype_size(dtype_);
    if (chunk.size() < 12 || bslz4_uncompressed_size(chunk, at) != frame_bytes)
        throw InvalidArgument(at + ": the chunk does not announce a frame of " + std::to_string(frame_bytes) +
                              " bytes");
    HdfCall guard;
    grow(dset_, frames_, rows_, cols_, at);
    const hsize_t offset[3] = {hsize_t(frames_), 0, 0};
    if (H5Dwrite_chunk(dset_, H5P_DEFAULT, 0, offset, chunk.size(), chunk.data()) < 0)
        throw IoError(at + ": writing the compressed chunk failed" + h5_detail());
    ++frames_;
}

void FrameStackWriter::close() {
    if (closed_) return;
    if (file_ < 0) throw InvalidArgument(where() + ": the writer was moved from");
    HdfCall guard;
    const herr_t d = H5Dclose(dset_);
    dset_ = -1;
    const herr_t f = H5Fclose(file_);
    file_ = -1;
    closed_ = true;
    if (d < 0 || f < 0) {
        const std::string detail = h5_detail();
        std::error_code ec;
        std::filesystem::remove(temp_path_, ec);
        throw IoError(where() + ": finishing the file failed" + detail);
    }
    if (const std::error_code failed = move_into_place(temp_path_, path_))
        throw IoError(path_ + ": cannot move the finished file into place: " + failed.message());
}

}  // namespace kiln::io
