#pragma once
// Bitshuffle-LZ4 decompression on the GPU (the chunk format of HDF5 filter
// 32008, which Eiger and Jungfrau detectors write). The host parses each
// chunk's headers into a table of blocks (cheap: a few thousand 4-byte
// lengths per frame, with bslz4_blocks, kiln/bslz4_host.hpp); only the compressed bytes and
// the table travel to the device, where one workgroup decodes one LZ4 block
// into shared memory and bit-unshuffles it into the output.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kiln/array.hpp"
#include "kiln/bslz4_host.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Decodes one bitshuffle-LZ4 chunk on the GPU into an array of `shape` and
/// `dtype` (whose byte size the chunk must announce), then checks the error
/// flags (so it waits for the GPU). A raw chunk (coding) must hold the array's
/// bytes and is copied as is. Errors are IoError starting with `name`;
/// Unsupported for blocks too large for the device's shared memory (the
/// default 8 KiB blocks always fit).
Array bslz4_decompress(const Context& ctx, std::span<const uint8_t> chunk, Shape shape, DType dtype,
                       const std::string& name = "chunk", ChunkCoding coding = ChunkCoding::bslz4);

/// Decodes batches of bitshuffle-LZ4 chunks, each holding one frame, into a
/// device array. A batch may mix in raw chunks (a frame's bytes, as HDF5
/// stores a chunk whose filters were skipped): they are copied into their
/// frame of the output, not decoded. Sized once for a frame shape, a dtype and a batch size, so
/// its arrays can be bound in an explicit Graph recorded once:
///
///     Bslz4Decoder dec(ctx, Shape{rows, cols}, DType::uint32, 16);
///     Graph g(ctx);
///     { auto c = g.capture(); dec.record(); result = f(dec.output()); }
///     for each batch: dec.push(bytes, sizes, first); g.run(); dec.check();
///
/// Pipelined, with no host round trip per batch: chunks that lie in pinned
/// memory (a PinnedBuffer) travel inside the graph, which also copies the
/// error flags back, so a batch is one submission and the host prepares the
/// next batch while the GPU decodes this one. With two decoders and graphs
/// (double buffering), and `at` a fixed range of a PinnedBuffer per graph:
///
///     { auto c = g[i].capture(); dec[i].record(at[i]); result[i] = f(dec[i].output()); pull into pinned }
///     for batch k, i = k % 2: dec[i].stage(at[i] holding batch k, sizes, first);
///                              g[i].launch(); ... later dec[i].check() (waits for that run)
///
/// The GPU checks every length before it reads or writes: a corrupt block
/// never decodes bytes outside its own compressed bytes nor writes outside
/// its own destination range; it sets an error flag that check() turns into
/// an IoError naming the frame.
class Bslz4Decoder {
public:
    /// frame_shape and dtype: what each chunk decodes to. max_frames: frames
    /// per batch (the output is (max_frames, frame_shape...) when it is more
    /// than 1, else frame_shape). max_compressed_bytes: room for one batch's
    /// compressed bytes (0: max_frames times the largest size LZ4 can produce
    /// for a frame). block_size: elements per block the chunks use (0: the
    /// format's default, 8 KiB of data), which sizes the block table and the
    /// shared memory of the kernel; chunks with larger blocks, or more of
    /// them, are refused by push().
    ///
    /// Throws InvalidArgument for a 3-D frame_shape with max_frames > 1, a
    /// zero max_frames or a block size that is not a multiple of 8; Unsupported
    /// when the block does not fit the device's shared memory or the arrays
    /// exceed its binding range (decode fewer frames per batch then).
    Bslz4Decoder(const Context& ctx, Shape frame_shape, DType dtype, size_t max_frames = 1,
                 size_t max_compressed_bytes = 0, size_t block_size = 0);
    ~Bslz4Decoder();
    Bslz4Decoder(Bslz4Decoder&&) noexcept;
    Bslz4Decoder& operator=(Bslz4Decoder&&) noexcept;
    Bslz4Decoder(const Bslz4Decoder&) = delete;
    Bslz4Decoder& operator=(const Bslz4Decoder&) = delete;

    /// Parses and pushes one batch: `bytes` holds the chunks back to back,
    /// chunk k taking chunk_sizes[k] bytes, decoded into frame k of output().
    /// Errors name chunk k "<label> <first_index + k>" (e.g. "frame 12").
    /// From a PinnedBuffer the push is a single DMA of the compressed bytes.
    /// Frames of output() past the batch keep their previous contents.
    ///
    /// `coding`, one entry per chunk or empty (all bitshuffle-LZ4), says
    /// which chunks are raw: those must hold exactly a frame's bytes.
    ///
    /// Throws IoError naming the chunk for a truncated or corrupt header (as
    /// bslz4_blocks), an uncompressed size other than the frame's or a raw
    /// chunk of another size; InvalidArgument for more chunks than
    /// max_frames, sizes that do not add up to bytes.size(), a `coding` of
    /// another length, or more compressed bytes than the decoder holds;
    /// Unsupported for chunks written with larger blocks than the decoder was
    /// made for. Not inside a Graph capture (like Array::push).
    void push(std::span<const uint8_t> bytes, std::span<const size_t> chunk_sizes, size_t first_index = 0,
              const std::string& label = "frame", std::span<const ChunkCoding> coding = {});
    /// The same for chunks held separately (they are copied together first).
    void push(std::span<const std::vector<uint8_t>> chunks, size_t first_index = 0,
              const std::string& label = "frame", std::span<const ChunkCoding> coding = {});

    /// Records the decode of whatever was pushed last into output(). Inside a
    /// Graph capture the recorded node decodes each run's pushed batch.
    void record();

    /// Pipelined decoding (see the class comment). Inside a Graph capture,
    /// records at every run of the graph: the DMA of `source` (a range of a
    /// PinnedBuffer, copied whole) and of the block table that stage() fills,
    /// the decode, and the DMA of the error flags into pinned memory. A
    /// decoder may be recorded into several graphs, with one source each.
    /// The PinnedBuffer must outlive the graph, which must not run after the
    /// decoder is destroyed.
    ///
    /// Throws InvalidArgument outside a capture, for a source that does not
    /// lie in one PinnedBuffer of this context, or one larger than the
    /// decoder's compressed capacity.
    void record(std::span<const uint8_t> source);
    /// Parses one batch for the next run of a graph recorded with
    /// record(source): `bytes` holds the chunks back to back and lies in that
    /// source, as the run will copy it (bytes, chunk_sizes and coding as push()).
    /// First waits until the GPU is done with the previous run that used this
    /// decoder's table; does no GPU work itself. Throws as push() does, and
    /// InvalidArgument when `bytes` lies in no recorded source.
    void stage(std::span<const uint8_t> bytes, std::span<const size_t> chunk_sizes, size_t first_index = 0,
               const std::string& label = "frame", std::span<const ChunkCoding> coding = {});

    /// Waits for the last decode and throws IoError if any block failed,
    /// naming the chunk, the block and what was wrong with it. After stage(),
    /// waits for the graph run that decodes the staged batch and reads the
    /// flags it copied into pinned memory (no transfer of its own); throws
    /// InvalidArgument if no such run was launched.
    void check() const;

    /// The decoded frames (see the constructor for its shape).
    const Array& output() const;
    /// Chunks in the last push.
    size_t frames_pushed() const;
    size_t max_frames() const;

private:
    friend Array bslz4_decompress(const Context&, std::span<const uint8_t>, Shape, DType, const std::string&,
                                  ChunkCoding);
    std::string chunk_name(size_t k) const;
    void parse(std::span<const uint8_t> bytes, std::span<const size_t> chunk_sizes,
               std::span<const ChunkCoding> coding, uint64_t src_base, uint32_t* table);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace kiln
#pragma GCC visibility pop
