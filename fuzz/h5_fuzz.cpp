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
//   written) and that many bytes of chunk, as stored.
// The chunk bytes are the attacker's; the file's structure is HDF5's, whose
// own parser of arbitrary files is not kiln's code and is not the target.
#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

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

bool write_file(const std::string& path, Input in) {
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string& path = kiln::fuzz::temp_path(".h5");
    if (!write_file(path, Input{data, size})) return 0;
    try {
        const kiln::io::FrameStackReader reader(path);
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
    return 0;
}
