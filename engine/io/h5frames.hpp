#pragma once
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
// Debian's HDF5 is the serial build, which is not thread-safe: use readers
// and writers from one thread at a time.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/dtype.hpp"
#include "kiln/host_array.hpp"

namespace kiln::io {

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
    bool is_bslz4() const { return bslz4_; }
    /// Whether each chunk holds exactly one whole frame (needed by read_chunk).
    bool one_frame_chunks() const { return one_frame_chunks_; }

    /// Stored (compressed) size of a frame's chunk in bytes; a frame's bytes
    /// when the dataset has no filters.
    size_t chunk_bytes(size_t frame) const;

    /// A frame's chunk exactly as stored, without decompressing it. With
    /// filter_mask, receives HDF5's filter mask: bit 0 set means the chunk was
    /// stored unfiltered. Throws IoError unless chunks hold one frame each,
    /// or if the frame was never written.
    std::vector<uint8_t> read_chunk(size_t frame, uint32_t* filter_mask = nullptr) const;
    /// As above, into `out` (resized), reusing its memory across frames.
    void read_chunk(size_t frame, std::vector<uint8_t>& out, uint32_t* filter_mask = nullptr) const;

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
    void read_bslz4_chunks(size_t frame, HostArray& out) const;
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
    void release() noexcept;

    std::string path_, dataset_;
    int64_t file_ = -1, dset_ = -1;  // HDF5 handles (hid_t)
    size_t frames_ = 0, rows_ = 0, cols_ = 0;
    DType dtype_ = DType::float32;
    bool big_endian_ = false, bslz4_ = false, filtered_ = false, one_frame_chunks_ = false, rank3_ = true;
    bool chunked_ = false;
    int filters_ = 0;                     // filters in the dataset's pipeline
    uint32_t missing_filters_ = 0;        // bit i: filter i is not available to HDF5
    uint32_t bitshuffle_filters_ = 0;     // bit i: filter i is bitshuffle (32008)
    std::string missing_ids_;             // their filter ids, for messages
    uint64_t chunk_[3] = {1, 1, 1};       // chunk dimensions (frames, rows, cols)
    uint64_t file_size_ = 0, base_ = 0;   // bytes of the file; HDF5's base address (user block)
};

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

}  // namespace kiln::io
