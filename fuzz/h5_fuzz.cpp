// libFuzzer harness: kiln's HDF5 frame-stack reader and its chunk index
// (chunk sizes, filter masks, missing chunks, direct chunk reads and the
// bitshuffle-LZ4 decode of what they return). The input describes a file,
// which is written with HDF5 itself and then read back by kiln:
//   byte 0: frames (0-4); bytes 1, 2: rows, cols (1-32);
//   byte 3: element type (low 3 bits) and big-endian storage (bit 3);
//   byte 4: bit 0 declares bitshuffle-LZ4 (filter 32008), bit 1 chunks of
//           half a frame instead of one, bit 2 a 2-D dataset (one frame),
//           bit 3 a wrong element size in the filter's parameters,
//           bit 4 a compression option other than LZ4;
//   then per chunk: a filter-mask byte, a 16-bit length (0: no chunk
//   written) and that many bytes of chunk, as stored;
//   then patches, 3 bytes each: a 16-bit file offset (modulo the file's
//   size) and a byte XORed into the file there.
// The chunk bytes are the attacker's; the file's structure is HDF5's, whose
// own parser of arbitrary files is not kiln's code and is not the target.
// kiln's own parser of the structure (io/h5_chunk_index.hpp) is: the reader's
// chunk table must agree with its frame-by-frame lookups on the file as
// written, and read_chunk_index must refuse or read the patched file, asked
// as HDF5 answered for the intact one.
#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "io/file.hpp"
#include "io/h5_chunk_index.hpp"
#include "io/h5_util.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"
#include "temp_file.hpp"

namespace {

struct Input {
    const uint8_t* p;
    size_t n;
    uint8_t byte() {
        if (!n) return 0;
        --n;
        return *p++;
    }
};

bool write_file(const std::string& path, Input& in) {
    const unsigned frames = in.byte() % 5;
    const hsize_t rows = in.byte() % 32 + 1, cols = in.byte() % 32 + 1;
    const uint8_t type_byte = in.byte(), flags = in.byte();
    static const hid_t le[8] = {H5T_STD_U8LE, H5T_STD_I8LE, H5T_STD_U16LE, H5T_STD_I16LE,
                                H5T_STD_U32LE, H5T_STD_I32LE, H5T_IEEE_F32LE, H5T_IEEE_F64LE};
    static const hid_t be[8] = {H5T_STD_U8BE, H5T_STD_I8BE, H5T_STD_U16BE, H5T_STD_I16BE,
                                H5T_STD_U32BE, H5T_STD_I32BE, H5T_IEEE_F32BE, H5T_IEEE_F64BE};
    const hid_t type = (type_byte & 8 ? be : le)[type_byte & 7];
    const bool rank2 = flags & 4;
    const int rank = rank2 ? 2 : 3;
    const hsize_t chunk_rows = flags & 2 ? std::max<hsize_t>(1, rows / 2) : rows;

    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) return false;
    const hsize_t dims3[3] = {frames, rows, cols}, chunk3[3] = {1, chunk_rows, cols};
    const hid_t space = H5Screate_simple(rank, rank2 ? dims3 + 1 : dims3, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, rank2 ? chunk3 + 1 : chunk3);
    if (flags & 1) {
        const unsigned elem = unsigned(H5Tget_size(type)) + (flags & 8 ? 1 : 0);
        const unsigned cd[5] = {0, 3, elem, 0, flags & 16 ? 3u : 2u};
        H5Pset_filter(dcpl, 32008, H5Z_FLAG_OPTIONAL, 5, cd);
    }
    const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    const hid_t dset = H5Dcreate2(file, "/entry/data/data", type, space, lcpl, dcpl, H5P_DEFAULT);
    bool ok = dset >= 0;
    if (ok) {
        const hsize_t chunks_per_frame = (rows + chunk_rows - 1) / chunk_rows;
        const hsize_t n_chunks = (rank2 ? 1 : frames) * chunks_per_frame;
        for (hsize_t c = 0; c < n_chunks && in.n; ++c) {
            const uint32_t mask = in.byte();
            size_t len = size_t(in.byte()) | size_t(in.byte()) << 8;
            len = std::min(len, in.n);
            if (len) {
                const hsize_t offset3[3] = {c / chunks_per_frame, (c % chunks_per_frame) * chunk_rows, 0};
                H5Dwrite_chunk(dset, H5P_DEFAULT, mask, rank2 ? offset3 + 1 : offset3, len, in.p);
            }
            in.p += len;
            in.n -= len;
        }
        H5Dclose(dset);
    }
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
    return ok;
}

// What HDF5 answers for the dataset's chunk index, for kiln's parser.
std::optional<kiln::io::ChunkIndexQuery> query(const std::string& path) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return std::nullopt;
    const hid_t dset = H5Dopen2(file, "/entry/data/data", H5P_DEFAULT);
    std::optional<kiln::io::ChunkIndexQuery> q;
    if (dset >= 0) {
        q = kiln::io::chunk_index_query(file, dset);
        H5Dclose(dset);
    }
    H5Fclose(file);
    return q;
}

// The input's patches applied to the file, then kiln's parser on it.
void parse_patched(const std::string& path, const kiln::io::ChunkIndexQuery& q, Input in) {
    std::vector<uint8_t> bytes;
    {
        kiln::io::File f = kiln::io::File::open_read(path);
        bytes.resize(f.size());
        f.read_exactly(std::as_writable_bytes(std::span<uint8_t>(bytes)));
    }
    if (bytes.empty()) return;
    while (in.n >= 3) {
        const size_t at = (size_t(in.byte()) | size_t(in.byte()) << 8) % bytes.size();
        bytes[at] ^= in.byte();
    }
    kiln::fuzz::write_file(path, bytes.data(), bytes.size());
    const kiln::io::File f = kiln::io::File::open_read(path);
    const kiln::io::ChunkIndex index = kiln::io::read_chunk_index(f, bytes.size(), q, path);
    const uint64_t frames = q.dims.size() == 3 ? q.dims[0] : 1;
    for (size_t i = 0; i < index.chunks.size(); ++i)
        if (index.chunks[i].frame >= frames || (i && index.chunks[i].frame <= index.chunks[i - 1].frame))
            __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string& path = kiln::fuzz::temp_path(".h5");
    Input in{data, size};
    if (!write_file(path, in)) return 0;
    try {
        const kiln::io::FrameStackReader reader(path);
        // The table read in one pass says what the lookups frame by frame say.
        try {
            if (const auto table = reader.chunk_table()) {
                for (size_t f = 0; f < reader.frames(); ++f) {
                    const auto one = reader.stored_chunk(f);
                    const auto& at = (*table)[f];
                    if (bool(one) != bool(at) ||
                        (one && (one->offset != at->offset || one->bytes != at->bytes || one->coding != at->coding)))
                        __builtin_trap();
                }
            }
        } catch (const kiln::Error&) {
        }
        std::vector<uint8_t> chunk;
        for (size_t f = 0; f < reader.frames(); ++f) {
            try {
                if (reader.one_frame_chunks()) {
                    uint32_t mask = 0;
                    reader.read_chunk(f, chunk, &mask);
                    if (chunk.size() != reader.chunk_bytes(f)) __builtin_trap();
                }
            } catch (const kiln::Error&) {
            }
            try {
                const kiln::HostArray frame = reader.read_frame(f);
                if (frame.shape.size() != reader.rows() * reader.cols() ||
                    frame.nbytes() != kiln::byte_size(frame.shape, frame.dtype))
                    __builtin_trap();
            } catch (const kiln::Error&) {
            }
        }
    } catch (const kiln::Error&) {
    }
    try {
        // The whole dataset by path, as read_array reads "file.h5:/entry/data/data".
        const kiln::HostArray all = kiln::io::read_h5_dataset(path, "/entry/data/data");
        if (all.nbytes() != kiln::byte_size(all.shape, all.dtype)) __builtin_trap();
    } catch (const kiln::Error&) {
    }
    try {
        if (const auto q = query(path)) parse_patched(path, *q, in);
    } catch (const kiln::Error&) {
    }
    return 0;
}
