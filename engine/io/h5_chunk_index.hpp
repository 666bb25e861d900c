#pragma once
// A frame stack's chunk index read by kiln itself, in one pass: HDF5 1.10
// finds one chunk by walking its index up to it (H5Dget_chunk_info_by_coord),
// so locating every frame of a stack that way costs the square of its
// length, under HDF5's global lock. Here the dataset's object header is
// parsed for its data layout message, and the index it names is read
// through plain preads:
//   - layout version 3: the version 1 B-tree (HDF5's default format; Dectris'
//     Eiger files);
//   - layout version 4: the fixed array (files written with libver latest,
//     fixed extent).
// Other indexes (single chunk, implicit, extensible array, version 2
// B-tree) are reported unsupported, and the caller asks HDF5 frame by frame.
//
// The file is untrusted: every read is checked against the file's size,
// every count is capped, B-tree nodes may not overlap or be reached twice,
// levels must fall by one per step, keys must be ordered and lie on the
// chunk grid within the dataset's extent, each frame at most once, and
// version 2 headers and fixed arrays must match their checksums. Anything
// else is an IoError saying what was found where.
#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/file.hpp"

namespace kiln::io {

// What HDF5 says of a dataset whose chunk index kiln reads (chunk_index_query).
struct ChunkIndexQuery {
    uint64_t header = 0;        // the dataset's object header (an HDF5 address)
    uint64_t base = 0;          // the file offset of HDF5 address 0 (the user block's size)
    unsigned sizeof_addr = 8;   // bytes of an address in this file
    unsigned sizeof_size = 8;   // bytes of a length
    unsigned btree_k = 32;      // chunk B-trees' K: a node has at most 2K children
    uint64_t element_size = 0;  // bytes of an element
    bool filtered = false;      // the dataset has a filter pipeline
    // Per dimension of the dataset (rank 2 or 3): extent, maximum extent
    // (H5S_UNLIMITED) and chunk. Rank 3: chunks of one frame, (1, rows, cols);
    // rank 2: the whole frame.
    std::vector<uint64_t> dims, max_dims, chunk;
};

// The query for an open chunked dataset; nothing where HDF5 cannot tell
// (not chunked, chunks of other than one frame, rank other than 2 or 3).
// Calls HDF5: the caller holds HdfCall.
std::optional<ChunkIndexQuery> chunk_index_query(hid_t file, hid_t dataset);

// One stored chunk as the index records it.
struct IndexedChunk {
    uint64_t frame = 0;
    uint64_t address = 0;  // HDF5 address (the file offset less ChunkIndexQuery::base)
    uint64_t bytes = 0;    // stored size
    uint32_t mask = 0;     // filter mask: bit i set, filter i skipped
};

struct ChunkIndex {
    std::string kind;  // the index found ("version 1 B-tree", ...)
    bool supported = false;
    unsigned levels = 0;  // a B-tree's: its root's level + 1
    std::vector<IndexedChunk> chunks;  // supported: every stored chunk, by frame
};

// Reads the dataset's chunk index from `file` (of `file_size` bytes).
// `what` names the dataset in messages. Throws IoError for a malformed
// header or index; an index kiln does not read is returned unsupported.
ChunkIndex read_chunk_index(const File& file, uint64_t file_size, const ChunkIndexQuery& q, const std::string& what);

// Jenkins' lookup3 hash (hashlittle, byte by byte), HDF5's metadata checksum.
uint32_t lookup3(std::span<const std::byte> bytes, uint32_t initval = 0);

}  // namespace kiln::io
