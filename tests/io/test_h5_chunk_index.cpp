// The chunk index read by kiln (io/h5_chunk_index.hpp) against HDF5's own
// lookups (H5Dget_chunk_info_by_coord, frame by frame): HDF5's default
// format (version 1 B-trees, one level and many) and libver latest (fixed
// arrays, paged and not; extensible arrays unsupported), chunks written out
// of order, frames never written, compressed and not, a user block, object
// header continuations. Then corrupt files: truncated, signatures, keys,
// child addresses, cycles, checksums and random bit flips give IoError (or a
// table that keeps its promises), never a crash.
#include <hdf5.h>
#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>

#include "bslz4_support.hpp"
#include "io/file.hpp"
#include "io/fp_env.hpp"
#include "io/h5_chunk_index.hpp"
#include "io/h5_util.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"

using namespace kiln;
using namespace kiln::io;
namespace fs = std::filesystem;

namespace {

struct TempFile {
    std::string path;
    explicit TempFile(const std::string& tag) {
        static int counter = 0;
        path = (fs::temp_directory_path() / ("kiln_h5index_" + tag + "_" + std::to_string(getpid()) + "_" +
                                             std::to_string(counter++) + ".h5"))
                   .string();
    }
    ~TempFile() {
        std::error_code ec;
        fs::remove(path, ec);
    }
};

struct Spec {
    size_t frames = 40, rows = 8, cols = 8;
    bool latest = false;      // libver latest: layout version 4, version 2 object headers
    bool unlimited = true;    // frames axis unlimited (extensible array under latest) or fixed (fixed array)
    bool compressed = true;   // bitshuffle-LZ4 declared, else no filter
    unsigned istore_k = 0;    // chunk B-trees' K (0: HDF5's default)
    hsize_t userblock = 0;
    std::set<size_t> skip;    // frames never written
    bool shuffle = false;     // chunks written in a random order
    int attributes = 0;       // large attributes added after the chunks (header continuations)
};

// Writes a (frames, rows, cols) uint16 stack at /entry/data/data; returns the
// frames. Compressed: each chunk is bitshuffle-LZ4 but every 7th, stored
// unfiltered (filter mask 1).
std::vector<HostArray> write_stack(const std::string& path, const Spec& s) {
    std::vector<HostArray> frames;
    for (size_t f = 0; f < s.frames; ++f)
        frames.push_back(test::poisson(Shape{s.rows, s.cols}, DType::uint16, 3.0, uint32_t(f)));
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (s.latest) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    if (s.istore_k) H5Pset_istore_k(fcpl, s.istore_k);
    if (s.userblock) H5Pset_userblock(fcpl, s.userblock);
    hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl);
    REQUIRE(file >= 0);
    const hsize_t dims[3] = {s.frames, s.rows, s.cols}, chunk[3] = {1, s.rows, s.cols};
    const hsize_t max_dims[3] = {s.unlimited ? H5S_UNLIMITED : s.frames, s.rows, s.cols};
    hid_t space = H5Screate_simple(3, dims, max_dims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 3, chunk);
    if (s.compressed) {
        // As FrameStackWriter declares it: through the plugin where HDF5 has
        // loaded it (it fills in its parameters), else as the plugin would.
        FloatEnvGuard fp;
        if (H5Zfilter_avail(32008) > 0) {
            const unsigned cd[2] = {0, 2};  // default block size, LZ4
            H5Pset_filter(dcpl, 32008, H5Z_FLAG_MANDATORY, 2, cd);
        } else {
            H5Eclear2(H5E_DEFAULT);
            const unsigned cd[5] = {0, 3, 2, 0, 2};  // 2-byte elements, LZ4
            H5Pset_filter(dcpl, 32008, H5Z_FLAG_OPTIONAL, 5, cd);
        }
    }
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t dset = H5Dcreate2(file, "/entry/data/data", H5T_STD_U16LE, space, lcpl, dcpl, H5P_DEFAULT);
    REQUIRE(dset >= 0);
    std::vector<size_t> order(s.frames);
    for (size_t f = 0; f < s.frames; ++f) order[f] = f;
    if (s.shuffle) std::shuffle(order.begin(), order.end(), std::mt19937(7));
    for (size_t f : order) {
        if (s.skip.count(f)) continue;
        const hsize_t offset[3] = {f, 0, 0};
        const bool raw = !s.compressed || f % 7 == 3;
        const std::vector<uint8_t> chunk_bytes =
            raw ? std::vector<uint8_t>(test::bytes_of(frames[f]).begin(), test::bytes_of(frames[f]).end())
                : test::compress(frames[f]);
        REQUIRE(H5Dwrite_chunk(dset, H5P_DEFAULT, s.compressed && raw ? 1 : 0, offset, chunk_bytes.size(),
                               chunk_bytes.data()) >= 0);
    }
    for (int a = 0; a < s.attributes; ++a) {
        const hsize_t n = 2000;
        hid_t aspace = H5Screate_simple(1, &n, nullptr);
        const std::string name = "note" + std::to_string(a);
        hid_t attr = H5Acreate2(dset, name.c_str(), H5T_STD_I32LE, aspace, H5P_DEFAULT, H5P_DEFAULT);
        std::vector<int32_t> v(n, a);
        REQUIRE(H5Awrite(attr, H5T_NATIVE_INT32, v.data()) >= 0);
        H5Aclose(attr);
        H5Sclose(aspace);
    }
    H5Dclose(dset);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
    H5Pclose(fcpl);
    H5Pclose(fapl);
    return frames;
}

struct Reference {
    bool stored = false;
    uint64_t address = 0, bytes = 0;
    uint32_t mask = 0;
};

// HDF5's own answer, frame by frame, with the query for kiln's reader.
struct Hdf5View {
    std::vector<Reference> chunks;
    ChunkIndexQuery query;
};

Hdf5View hdf5_view(const std::string& path) {
    HdfCall guard;
    Hdf5View out;
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(file >= 0);
    hid_t dset = H5Dopen2(file, "/entry/data/data", H5P_DEFAULT);
    REQUIRE(dset >= 0);
    const auto q = chunk_index_query(file, dset);
    REQUIRE(q);
    out.query = *q;
    for (hsize_t f = 0; f < q->dims[0]; ++f) {
        const hsize_t offset[3] = {f, 0, 0};
        unsigned mask = 0;
        haddr_t addr = HADDR_UNDEF;
        hsize_t bytes = 0;
        REQUIRE(H5Dget_chunk_info_by_coord(dset, offset, &mask, &addr, &bytes) >= 0);
        out.chunks.push_back({addr != HADDR_UNDEF, uint64_t(addr), uint64_t(bytes), mask});
    }
    H5Dclose(dset);
    H5Fclose(file);
    return out;
}

ChunkIndex kiln_index(const std::string& path, const ChunkIndexQuery& q) {
    const File file = File::open_read(path);
    return read_chunk_index(file, file.size(), q, path);
}

void require_same(const ChunkIndex& index, const std::vector<Reference>& ref) {
    size_t stored = 0;
    for (const Reference& r : ref) stored += r.stored;
    REQUIRE(index.chunks.size() == stored);
    for (const IndexedChunk& c : index.chunks) {
        INFO("frame " << c.frame);
        REQUIRE(c.frame < ref.size());
        const Reference& r = ref[c.frame];
        CHECK(r.stored);
        CHECK(c.address == r.address);
        CHECK(c.bytes == r.bytes);
        CHECK(c.mask == r.mask);
    }
}

// The reader's table against stored_chunk frame by frame, and each chunk's
// bytes (read at the table's offset) against the frame written.
void require_table(const std::string& path, const std::vector<HostArray>& frames, const std::set<size_t>& skip) {
    FrameStackReader r(path);
    REQUIRE(r.gpu_decodable());
    const auto table = r.chunk_table();
    REQUIRE(table);
    REQUIRE(table->size() == frames.size());
    const File file = File::open_read(path);
    for (size_t f = 0; f < frames.size(); ++f) {
        INFO("frame " << f);
        const auto want = r.stored_chunk(f);
        const auto& got = (*table)[f];
        REQUIRE(bool(got) == !skip.count(f));
        REQUIRE(bool(got) == bool(want));
        if (!got) continue;
        CHECK(got->offset == want->offset);
        CHECK(got->bytes == want->bytes);
        CHECK(got->coding == want->coding);
        std::vector<uint8_t> stored(got->bytes), decoded(frames[f].nbytes());
        file.read_at(got->offset, std::as_writable_bytes(std::span<uint8_t>(stored)));
        if (got->coding == ChunkCoding::bslz4)
            bslz4_decompress(stored, 2, decoded, "frame");
        else
            decoded = stored;
        REQUIRE(std::memcmp(decoded.data(), frames[f].data(), decoded.size()) == 0);
    }
}

// Writes the stack and reads its index with kiln: equal to HDF5's where
// supported, and the reader's table (a compressed stack's) to stored_chunk's;
// where unsupported, the reader has no table and stored_chunk still finds
// every chunk. Returns kiln's index.
ChunkIndex matches_hdf5(const Spec& s, const std::string& tag) {
    TempFile file(tag);
    const auto frames = write_stack(file.path, s);
    const Hdf5View v = hdf5_view(file.path);
    CHECK(v.query.base == s.userblock);
    const ChunkIndex index = kiln_index(file.path, v.query);
    if (index.supported) require_same(index, v.chunks);
    if (index.supported && s.compressed) {
        require_table(file.path, frames, s.skip);
    } else {
        FrameStackReader r(file.path);
        CHECK_FALSE(r.chunk_table());  // unsupported, or not a stack the GPU decodes
        if (s.compressed)
            for (size_t f = 0; f < s.frames; ++f) CHECK(bool(r.stored_chunk(f)) == !s.skip.count(f));
    }
    return index;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void put_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// Where the chunk B-tree's nodes (TREE, node type 1) start in the file.
std::vector<size_t> chunk_nodes(const std::vector<uint8_t>& b) {
    std::vector<size_t> at;
    for (size_t i = 0; i + 6 <= b.size(); ++i)
        if (std::memcmp(&b[i], "TREE", 4) == 0 && b[i + 4] == 1) at.push_back(i);
    return at;
}

uint64_t get64(const std::vector<uint8_t>& b, size_t at) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(b[at + i]) << (8 * i);
    return v;
}
void put64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// A rank-3 chunk B-tree node of 8-byte addresses: 24 bytes of header, then
// keys of 40 bytes (size, mask, four offsets), each but the last followed
// by a child's address.
constexpr size_t node_head = 24, key_bytes = 40;
size_t key_at(size_t node, size_t i) { return node + node_head + i * (key_bytes + 8); }
size_t child_at(size_t node, size_t i) { return key_at(node, i) + key_bytes; }

}  // namespace

TEST_CASE("lookup3 gives the published values", "[io][h5index]") {
    CHECK(lookup3({}) == 0xdeadbeefu);
    const std::string text = "Four score and seven years ago";
    CHECK(lookup3(std::as_bytes(std::span(text.data(), text.size()))) == 0x17770551u);
    CHECK(lookup3(std::as_bytes(std::span(text.data(), text.size())), 1) == 0xcd628161u);
}

TEST_CASE("kiln's chunk index equals HDF5's: version 1 B-trees", "[io][h5index]") {
    Spec s;
    SECTION("one level, in order, compressed") {
        s.skip = {0, 13};
        const ChunkIndex index = matches_hdf5(s, "b1");
        CHECK(index.kind == "version 1 B-tree");
        CHECK(index.levels == 1);
    }
    SECTION("3000 frames of 8x8 out of order, several levels, frames never written") {
        s.frames = 3000;
        s.shuffle = true;
        s.skip = {5, 17, 18, 19, 20, 1000, 2999};
        CHECK(matches_hdf5(s, "deep").levels >= 2);
    }
    SECTION("K = 2: nodes of 4 children, many levels") {
        s.frames = 300;
        s.istore_k = 2;
        s.shuffle = true;
        s.skip = {0, 299, 150};
        CHECK(matches_hdf5(s, "k2").levels >= 5);
    }
    SECTION("uncompressed") {
        s.compressed = false;
        s.shuffle = true;
        s.skip = {3};
        for (const IndexedChunk& c : matches_hdf5(s, "plain").chunks) CHECK(c.bytes == 8 * 8 * 2);
    }
    SECTION("a user block and object header continuations") {
        s.userblock = 1024;
        s.attributes = 12;
        s.skip = {7};
        matches_hdf5(s, "ublock");
    }
    SECTION("no chunk written at all") {
        s.frames = 5;
        s.skip = {0, 1, 2, 3, 4};
        CHECK(matches_hdf5(s, "empty").chunks.empty());
    }
}

TEST_CASE("kiln's chunk index equals HDF5's: libver latest", "[io][h5index]") {
    Spec s;
    s.latest = true;
    s.unlimited = false;
    SECTION("fixed array, not paged, version 2 headers continued") {
        s.shuffle = true;
        s.attributes = 12;
        s.skip = {2, 39};
        CHECK(matches_hdf5(s, "fa").kind == "fixed array");
    }
    SECTION("fixed array of 3000 entries in pages of 1024, one page never written") {
        s.frames = 3000;
        for (size_t f = 1024; f < 2048; ++f) s.skip.insert(f);
        s.skip.insert(2999);
        matches_hdf5(s, "fapaged");
    }
    SECTION("fixed array, uncompressed") {
        s.compressed = false;
        s.skip = {1};
        matches_hdf5(s, "faplain");
    }
    SECTION("extensible array: unsupported, the reader falls back") {
        s.unlimited = true;
        const ChunkIndex index = matches_hdf5(s, "ea");
        CHECK(index.kind == "extensible array");
        CHECK_FALSE(index.supported);
    }
}

TEST_CASE("a corrupt chunk index gives IoError, never a crash", "[io][h5index][hostile]") {
    TempFile file("good");
    Spec s;
    s.frames = 300;
    s.istore_k = 2;
    s.shuffle = true;
    write_stack(file.path, s);
    const Hdf5View v = hdf5_view(file.path);
    const std::vector<uint8_t> good = file_bytes(file.path);
    const std::vector<size_t> nodes = chunk_nodes(good);
    REQUIRE(nodes.size() > 10);
    // The root: the node of the highest level.
    const size_t root = *std::max_element(nodes.begin(), nodes.end(),
                                          [&](size_t a, size_t b) { return good[a + 5] < good[b + 5]; });
    REQUIRE(good[root + 5] >= 2);
    const size_t leaf = *std::find_if(nodes.begin(), nodes.end(), [&](size_t n) { return good[n + 5] == 0; });
    TempFile bad("bad");
    const auto refused = [&](const std::vector<uint8_t>& bytes, const std::string& says) {
        put_bytes(bad.path, bytes);
        CHECK_THROWS_WITH(kiln_index(bad.path, v.query), Catch::Contains(bad.path) && Catch::Contains(says));
    };
    SECTION("truncated") {
        refused(std::vector<uint8_t>(good.begin(), good.begin() + long(root) + 30), "beyond the end of the file");
        refused(std::vector<uint8_t>(good.begin(), good.begin() + long(v.query.header) + 20), "beyond the end");
    }
    SECTION("a node's signature") {
        auto b = good;
        b[root + 1] ^= 0x20;
        refused(b, "no TREE signature");
    }
    SECTION("a child beyond the end of the file") {
        auto b = good;
        put64(b, child_at(root, 0), good.size() + 100);
        refused(b, "beyond the end of the file");
    }
    SECTION("a child reached twice") {
        auto b = good;
        put64(b, child_at(root, 1), get64(good, child_at(root, 0)));
        refused(b, "overlaps another node");
    }
    SECTION("a cycle: a child pointing at the root") {
        auto b = good;
        put64(b, child_at(root, 1), root);
        refused(b, "below a node of level");
    }
    SECTION("a key off the chunk grid") {
        auto b = good;
        put64(b, key_at(leaf, 0) + 8 + 16, 3);  // its columns' offset
        refused(b, "not a multiple of the chunk's extent");
    }
    SECTION("keys out of order (a frame twice)") {
        auto b = good;
        REQUIRE(get64(good, key_at(leaf, 1) + 8) > 0);
        put64(b, key_at(leaf, 1) + 8, get64(good, key_at(leaf, 0) + 8));
        refused(b, "does not follow");
    }
    SECTION("a frame beyond the dataset's extent") {
        auto b = good;
        size_t last = leaf;  // the leaf of the highest frames
        for (size_t n : nodes)
            if (good[n + 5] == 0 && get64(good, key_at(n, 0) + 8) > get64(good, key_at(last, 0) + 8)) last = n;
        REQUIRE(good[last + 5] == 0);
        const uint64_t entries = good[last + 6] | good[last + 7] << 8;
        put64(b, key_at(last, entries - 1) + 8, 5000);
        put64(b, key_at(last, entries) + 8, 5001);
        refused(b, "");  // out of the parent's range or the extent: refused either way
    }
    SECTION("too many entries for K") {
        auto b = good;
        b[root + 6] = 0xFF;
        refused(b, "entries");
    }
    SECTION("the layout message's version") {
        // Version 1 object header: messages from 16 bytes on, 8 bytes of
        // message header each; find the layout message (type 8).
        auto b = good;
        size_t at = v.query.header + 16;
        while (!(b[at] == 8 && b[at + 1] == 0)) at += 8 + (b[at + 2] | b[at + 3] << 8);
        b[at + 8] = 9;
        put_bytes(bad.path, b);
        const ChunkIndex index = kiln_index(bad.path, v.query);
        CHECK_FALSE(index.supported);
        CHECK(index.kind == "layout message version 9");
        b[at + 2] = 0xF0;  // its size, now past the header
        b[at + 3] = 0xFF;
        refused(b, "ends early");
    }
    SECTION("random bit flips in the index: IoError, or a table that keeps its promises") {
        std::mt19937 rng(11);
        size_t refusals = 0;
        for (int trial = 0; trial < 600; ++trial) {
            auto b = good;
            const size_t node = nodes[rng() % nodes.size()];
            const size_t entries = good[node + 6] | good[node + 7] << 8;
            const size_t at = node + rng() % (node_head + entries * (key_bytes + 8) + key_bytes);
            b[at] ^= uint8_t(1u << (rng() % 8));
            put_bytes(bad.path, b);
            try {
                const ChunkIndex index = kiln_index(bad.path, v.query);
                REQUIRE(index.supported);
                for (size_t i = 0; i < index.chunks.size(); ++i) {
                    REQUIRE(index.chunks[i].frame < s.frames);
                    if (i) REQUIRE(index.chunks[i].frame > index.chunks[i - 1].frame);
                }
            } catch (const IoError&) {
                ++refusals;
            }
        }
        CHECK(refusals > 100);
    }
}

TEST_CASE("a corrupt version 2 header or fixed array fails its checksum", "[io][h5index][hostile]") {
    TempFile file("good2");
    Spec s;
    s.latest = true;
    s.unlimited = false;
    write_stack(file.path, s);
    const Hdf5View v = hdf5_view(file.path);
    const std::vector<uint8_t> good = file_bytes(file.path);
    TempFile bad("bad2");
    const auto refused = [&](size_t at, const std::string& says) {
        auto b = good;
        b[at] ^= 0x04;
        put_bytes(bad.path, b);
        CHECK_THROWS_WITH(kiln_index(bad.path, v.query), Catch::Contains(says));
    };
    REQUIRE(std::memcmp(&good[v.query.header], "OHDR", 4) == 0);
    refused(v.query.header + 20, "checksum");
    for (const char* sig : {"FAHD", "FADB"}) {
        INFO(sig);
        const auto it = std::search(good.begin(), good.end(), sig, sig + 4);
        REQUIRE(it != good.end());
        refused(size_t(it - good.begin()) + 8, "checksum");
    }
}
