// Bitshuffle-LZ4 codec: the transpose against a bit-by-bit definition, the
// LZ4 decoder against liblz4's encoder and hand-made blocks, whole chunks
// against the real HDF5 filter plugin (Debian's bitshuffle package), and
// corrupt or truncated input.
#include <hdf5.h>
#include <lz4.h>
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "io/fp_env.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/error.hpp"

using namespace kiln;

namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = uint8_t(rng());
    return v;
}

// Photon-counting-like frame: small Poisson counts, compressible as real data is.
std::vector<uint8_t> poisson_u32(size_t n, double mean, uint32_t seed) {
    std::mt19937 rng(seed);
    std::poisson_distribution<uint32_t> pd(mean);
    std::vector<uint8_t> v(n * 4);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t x = pd(rng);
        std::memcpy(v.data() + 4 * i, &x, 4);
    }
    return v;
}

// The definition, one bit at a time: bit r of element i -> bit r * n8 + i.
std::vector<uint8_t> naive_bitshuffle(const std::vector<uint8_t>& in, size_t es) {
    const size_t n = in.size() / es, n8 = n - n % 8;
    std::vector<uint8_t> out(in.size(), 0);
    for (size_t i = 0; i < n8; ++i)
        for (size_t r = 0; r < 8 * es; ++r) {
            const int bit = (in[i * es + r / 8] >> (r % 8)) & 1;
            const size_t o = r * n8 + i;
            out[o / 8] |= uint8_t(bit << (o % 8));
        }
    for (size_t b = n8 * es; b < in.size(); ++b) out[b] = in[b];
    return out;
}

std::string temp_h5(const std::string& tag) {
    static int counter = 0;
    return (std::filesystem::temp_directory_path() /
            ("kiln_" + tag + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".h5"))
        .string();
}

// The plugin lives in HDF5's default plugin folder on Debian; HDF5_PLUGIN_PATH
// replaces that folder, so add it back in case the variable points elsewhere.
// In front, because HDF5 1.10 stops searching at a folder that does not exist.
bool bitshuffle_plugin_available() {
    kiln::io::FloatEnvGuard fp;  // the plugin, once loaded, would flush subnormals (io/fp_env.hpp)
    if (H5Zfilter_avail(32008) > 0) return true;
    H5PLprepend("/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins");
    return H5Zfilter_avail(32008) > 0;
}

// Writes `data` as one chunk through HDF5's filter pipeline (the plugin does
// the compression) and returns the stored chunk bytes.
std::vector<uint8_t> plugin_chunk(const std::vector<uint8_t>& data, hid_t type, size_t es) {
    kiln::io::FloatEnvGuard fp;  // the plugin, once loaded, would flush subnormals (io/fp_env.hpp)
    const std::string path = temp_h5("plugin");
    const hsize_t dims[1] = {data.size() / es};
    hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate_simple(1, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, dims);
    const unsigned cd[2] = {0, 2};  // block size 0 (default), compression 2 (LZ4)
    H5Pset_filter(dcpl, 32008, H5Z_FLAG_MANDATORY, 2, cd);
    hid_t ds = H5Dcreate2(f, "d", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(ds >= 0);
    REQUIRE(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) >= 0);
    const hsize_t offset[1] = {0};
    hsize_t nbytes = 0;
    REQUIRE(H5Dget_chunk_storage_size(ds, offset, &nbytes) >= 0);
    std::vector<uint8_t> chunk(nbytes);
    uint32_t mask = 1;
    REQUIRE(H5Dread_chunk(ds, H5P_DEFAULT, offset, &mask, chunk.data()) >= 0);
    CHECK(mask == 0);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
    std::filesystem::remove(path);
    return chunk;
}

}  // namespace

TEST_CASE("bitshuffle moves bit r of element i to bit r*n+i", "[cpu][bslz4]") {
    SECTION("hand case: eight uint16, element i has bit i set") {
        std::vector<uint8_t> in(16, 0);
        for (size_t i = 0; i < 8; ++i) in[2 * i] = uint8_t(1u << i);
        const auto out = bitshuffle(in, 2);
        // Bit row r (one byte, 8 elements) holds bit r of each element.
        for (size_t r = 0; r < 8; ++r) CHECK(out[r] == uint8_t(1u << r));
        for (size_t r = 8; r < 16; ++r) CHECK(out[r] == 0);
    }
    SECTION("matches the bitwise definition for odd counts and element sizes") {
        for (size_t es : {1u, 2u, 3u, 4u, 8u})
            for (size_t n : {8u, 13u, 127u, 1031u}) {
                const auto in = random_bytes(n * es, uint32_t(es * 1000 + n));
                const auto out = bitshuffle(in, es);
                INFO("elem_size " << es << " count " << n);
                CHECK(out == naive_bitshuffle(in, es));
                CHECK(bitunshuffle(out, es) == in);
            }
    }
    SECTION("trailing elements are copied") {
        const auto in = random_bytes(11 * 4, 7);
        const auto out = bitshuffle(in, 4);
        CHECK(std::equal(in.begin() + 32, in.end(), out.begin() + 32));
    }
    CHECK_THROWS_AS(bitshuffle(random_bytes(10, 1), 4), InvalidArgument);
    CHECK_THROWS_AS(bitunshuffle(random_bytes(8, 1), 0), InvalidArgument);
}

TEST_CASE("default block size follows the bitshuffle library", "[cpu][bslz4]") {
    CHECK(bslz4_default_block_size(1) == 8192);
    CHECK(bslz4_default_block_size(2) == 4096);
    CHECK(bslz4_default_block_size(4) == 2048);
    CHECK(bslz4_default_block_size(8) == 1024);
    CHECK(bslz4_default_block_size(3) == 2728);  // 2730 rounded down to a multiple of 8
    CHECK(bslz4_default_block_size(128) == 128);
}

TEST_CASE("LZ4 block decoder", "[cpu][bslz4][lz4]") {
    SECTION("decodes what liblz4 encodes") {
        std::vector<std::vector<uint8_t>> inputs = {random_bytes(1, 1), random_bytes(1031, 2),
                                                    std::vector<uint8_t>(5000, 42)};
        std::vector<uint8_t> text;
        for (int i = 0; i < 700; ++i) {
            const std::string s = "ring " + std::to_string(i % 17) + " ";
            text.insert(text.end(), s.begin(), s.end());
        }
        inputs.push_back(text);
        auto mixed = random_bytes(300, 3);  // a literal run longer than 15 + 255
        mixed.resize(2000, 0);
        inputs.push_back(mixed);
        for (const auto& in : inputs) {
            std::vector<char> packed(LZ4_compressBound(int(in.size())));
            const int len = LZ4_compress_default(reinterpret_cast<const char*>(in.data()), packed.data(),
                                                 int(in.size()), int(packed.size()));
            REQUIRE(len > 0);
            std::vector<uint8_t> out(in.size(), 0xCD);
            lz4_decode_block({reinterpret_cast<const uint8_t*>(packed.data()), size_t(len)}, out, "test");
            CHECK(out == in);
        }
    }
    SECTION("hand-made blocks") {
        // "ab" then a match of length 7 at offset 2 (overlapping), then literal "c".
        const std::vector<uint8_t> block = {0x23, 'a', 'b', 0x02, 0x00, 0x10, 'c'};
        std::vector<uint8_t> out(10);
        lz4_decode_block(block, out, "test");
        CHECK(std::string(out.begin(), out.end()) == "ababababac");
        std::vector<uint8_t> small(9), big(11);
        CHECK_THROWS_AS(lz4_decode_block(block, small, "test"), IoError);
        CHECK_THROWS_AS(lz4_decode_block(block, big, "test"), IoError);
        const std::vector<uint8_t> offset0 = {0x10, 'a', 0x00, 0x00, 0x00};
        const std::vector<uint8_t> offset_far = {0x10, 'a', 0x02, 0x00, 0x00};
        const std::vector<uint8_t> ends_in_match = {0x10, 'a', 0x01, 0x00};
        const std::vector<uint8_t> short_literals = {0x50, 'a', 'b'};
        const std::vector<uint8_t> open_length = {0xF0, 255, 255};
        for (const auto* bad : {&offset0, &offset_far, &ends_in_match, &short_literals, &open_length}) {
            std::vector<uint8_t> o(6);
            CHECK_THROWS_AS(lz4_decode_block(*bad, o, "test"), IoError);
        }
    }
}

TEST_CASE("bitshuffle-LZ4 chunks round trip", "[cpu][bslz4]") {
    struct Case {
        std::vector<uint8_t> data;
        size_t es, block;
    };
    std::vector<Case> cases = {
        {poisson_u32(37 * 41, 3.0, 11), 4, 0}, {poisson_u32(127 * 13, 0.2, 12), 4, 64},
        {random_bytes(1031 * 2, 13), 2, 0},    {random_bytes(1031 * 8, 14), 8, 8},
        {random_bytes(13, 15), 1, 0},          {random_bytes(5 * 4, 16), 4, 0},
        {std::vector<uint8_t>(), 4, 0},        {std::vector<uint8_t>(4096 * 4 + 12, 0), 4, 0},
    };
    for (const auto& c : cases) {
        INFO("bytes " << c.data.size() << " elem_size " << c.es << " block " << c.block);
        const auto chunk = bslz4_compress(c.data, c.es, c.block);
        CHECK(bslz4_uncompressed_size(chunk, "t") == c.data.size());
        std::vector<uint8_t> out(c.data.size(), 0xCD);
        bslz4_decompress(chunk, c.es, out, "t");
        CHECK(out == c.data);
    }
    CHECK_THROWS_AS(bslz4_compress(random_bytes(64, 1), 4, 12), InvalidArgument);
}

TEST_CASE("bitshuffle-LZ4 block table", "[cpu][bslz4]") {
    // 1000 uint32 with blocks of 96: 10 full blocks, a last block of 40
    // (= 1000 - 960), nothing raw since 1000 is a multiple of 8.
    const auto data = poisson_u32(1000, 4.0, 21);
    auto blocks = bslz4_blocks(bslz4_compress(data, 4, 96), 4, "t");
    REQUIRE(blocks.size() == 11);
    CHECK(blocks[10].dst_size == 40 * 4);
    // 1003 elements: the same plus 3 raw trailing elements.
    const auto data2 = poisson_u32(1003, 4.0, 22);
    const auto chunk = bslz4_compress(data2, 4, 96);
    blocks = bslz4_blocks(chunk, 4, "t");
    REQUIRE(blocks.size() == 12);
    uint64_t src = 12, dst = 0;
    for (const auto& b : blocks) {
        if (!b.raw) src += 4;
        CHECK(b.src_offset == src);
        CHECK(b.dst_offset == dst);
        src += b.src_size;
        dst += b.dst_size;
    }
    CHECK(src == chunk.size());
    CHECK(dst == data2.size());
    CHECK(blocks.back().raw);
    CHECK(blocks.back().dst_size == 12);
    CHECK(std::equal(chunk.end() - 12, chunk.end(), data2.end() - 12));
}

TEST_CASE("corrupt or truncated chunks throw IoError naming the frame", "[cpu][bslz4]") {
    const auto data = poisson_u32(37 * 41, 2.0, 31);
    const auto chunk = bslz4_compress(data, 4, 256);
    std::vector<uint8_t> out(data.size());
    SECTION("every truncation") {
        for (size_t len = 0; len < chunk.size(); ++len) {
            std::vector<uint8_t> cut(chunk.begin(), chunk.begin() + len);
            INFO("truncated to " << len);
            CHECK_THROWS_AS(bslz4_decompress(cut, 4, out, "frame 12"), IoError);
        }
        try {
            bslz4_decompress(std::span(chunk).first(chunk.size() - 3), 4, out, "frame 12");
            FAIL("no exception");
        } catch (const IoError& e) {
            CHECK_THAT(e.what(), Catch::Contains("frame 12") && Catch::Contains("truncated"));
        }
    }
    SECTION("corrupted headers and sizes") {
        auto bad = chunk;
        bad[7] ^= 4;  // announces 4 more bytes
        CHECK_THROWS_AS(bslz4_decompress(bad, 4, out, "frame 3"), IoError);
        bad = chunk;
        bad[11] = 12;  // block size no longer a multiple of 8 elements
        CHECK_THROWS_AS(bslz4_decompress(bad, 4, out, "frame 3"), IoError);
        bad = chunk;
        bad[12] = 0xFF;  // first block claims ~4 GB
        CHECK_THROWS_AS(bslz4_decompress(bad, 4, out, "frame 3"), IoError);
        bad = chunk;
        bad.push_back(0);  // trailing garbage
        CHECK_THROWS_AS(bslz4_decompress(bad, 4, out, "frame 3"), IoError);
        std::vector<uint8_t> wrong_size(data.size() + 4);
        CHECK_THROWS_AS(bslz4_decompress(chunk, 4, wrong_size, "frame 3"), IoError);
    }
    SECTION("random byte flips never crash") {
        // A flip inside LZ4 data may still decode (to wrong values); what
        // matters is an IoError or a clean return, never a wild access.
        std::mt19937 rng(99);
        int thrown = 0;
        for (int trial = 0; trial < 400; ++trial) {
            auto bad = chunk;
            const size_t at = rng() % bad.size();
            bad[at] ^= uint8_t(1u << (rng() % 8));
            try {
                bslz4_decompress(bad, 4, out, "frame 7");
            } catch (const IoError&) {
                ++thrown;
            }
        }
        CHECK(thrown > 0);
    }
}

TEST_CASE("chunks written by the HDF5 bitshuffle plugin", "[cpu][bslz4][hdf5]") {
    INFO(
        "HDF5 filter 32008 not found: install Debian's bitshuffle package or set "
        "HDF5_PLUGIN_PATH to the folder holding libh5bshuf.so");
    REQUIRE(bitshuffle_plugin_available());
    struct Case {
        std::vector<uint8_t> data;
        hid_t type;
        size_t es;
    };
    const std::vector<Case> cases = {
        {poisson_u32(37 * 41, 3.0, 41), H5T_STD_U32LE, 4},
        {poisson_u32(2100, 50.0, 42), H5T_STD_U32LE, 4},  // two blocks, a partial one, a tail
        {random_bytes(1031 * 2, 43), H5T_STD_U16LE, 2},
        {random_bytes(127, 44), H5T_STD_U8LE, 1},
    };
    for (const auto& c : cases) {
        INFO("bytes " << c.data.size() << " elem_size " << c.es);
        const auto chunk = plugin_chunk(c.data, c.type, c.es);
        std::vector<uint8_t> out(c.data.size(), 0xCD);
        bslz4_decompress(chunk, c.es, out, "plugin chunk");
        CHECK(out == c.data);
        // Same liblz4, same block size: the encoder reproduces the plugin exactly.
        CHECK(bslz4_compress(c.data, c.es) == chunk);
    }
}
