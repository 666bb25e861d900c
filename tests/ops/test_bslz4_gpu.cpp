// GPU bitshuffle-LZ4 decoding against the input that was compressed: chunks
// made by kiln::bslz4_compress (liblz4 underneath) and by the real HDF5 plugin
// (filter 32008, read back with HDF5's direct chunk read), every element
// size, tails of raw elements, small and default blocks, batches in a Graph,
// and corrupt chunks (IoError naming the frame, the context still usable).
#include <hdf5.h>

#include <unistd.h>
#include <cstring>
#include <filesystem>

#include "bslz4_support.hpp"
#include "kiln/bslz4.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/io.hpp"
#include "kiln/pinned.hpp"
#include "support.hpp"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using test::bytes_of;
using test::compress;
using test::poisson;
using test::require_same_bytes;

std::string temp_h5(const std::string& tag) {
    static int counter = 0;
    return (fs::temp_directory_path() /
            ("kiln_bslz4gpu_" + tag + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".h5"))
        .string();
}

struct TempFile {
    std::string path;
    explicit TempFile(const std::string& tag) : path(temp_h5(tag)) {}
    ~TempFile() {
        std::error_code ec;
        fs::remove(path, ec);
    }
};

// Debian's plugin folder goes in front: HDF5 1.10 stops searching at a folder that does not exist.
bool bitshuffle_plugin_available() {
    if (H5Zfilter_avail(32008) > 0) return true;
    H5PLprepend("/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins");
    return H5Zfilter_avail(32008) > 0;
}

} // namespace

TEST_CASE("GPU bitshuffle-LZ4 decodes random and Poisson frames byte for byte", "[ops][bslz4]") {
    Context ctx = test::context();
    struct Case {
        Shape shape;
        DType dtype;
        bool counts;
        size_t block;
    };
    const Case cases[] = {
        {Shape{13, 127}, DType::uint32, true, 0},     // 3 raw trailing elements
        {Shape{37, 41}, DType::uint32, false, 0},     // random: incompressible blocks
        {Shape{127, 129}, DType::uint32, true, 0},    // several default blocks and a short last one
        {Shape{127, 129}, DType::uint16, true, 0},
        {Shape{1031}, DType::uint16, false, 64},      // small blocks
        {Shape{3, 5, 7}, DType::uint8, true, 0},      // odd byte count, one short block
        {Shape{61, 67}, DType::int32, true, 128},
        {Shape{7}, DType::uint32, true, 0},           // raw tail only
        {Shape{33, 35}, DType::float64, false, 0},    // 8-byte elements
    };
    uint32_t seed = 1;
    for (const auto& c : cases) {
        INFO("shape " << c.shape.str() << " " << dtype_name(c.dtype) << " block " << c.block);
        const HostArray frame = c.counts ? poisson(c.shape, c.dtype, 3.0, seed)
                                         : test::random(c.shape, c.dtype, seed, 0, 1e6);
        ++seed;
        const auto chunk = compress(frame, c.block);
        Array got = bslz4_decompress(ctx, chunk, c.shape, c.dtype, "frame " + std::to_string(seed));
        CHECK(got.shape() == c.shape);
        CHECK(got.dtype() == c.dtype);
        require_same_bytes(got.to_host(), frame);
    }
}

TEST_CASE("GPU bitshuffle-LZ4 decodes constant frames (long overlapping matches)", "[ops][bslz4]") {
    Context ctx = test::context();
    for (uint32_t value : {0u, 1u, 0xFFFFFFFFu, 0x01020304u}) {
        INFO("value " << value);
        const HostArray frame = HostArray::from(Shape{129, 131}, std::vector<uint32_t>(129 * 131, value));
        require_same_bytes(bslz4_decompress(ctx, compress(frame), frame.shape, DType::uint32).to_host(), frame);
    }
}

TEST_CASE("Bslz4Decoder in a graph decodes batches pushed between runs", "[ops][bslz4][graph]") {
    Context ctx = test::context();
    const Shape shape{37, 43};
    const size_t batch = 4;
    Bslz4Decoder dec(ctx, shape, DType::uint16, batch);
    REQUIRE(dec.output().shape() == Shape{batch, 37, 43});
    Array doubled;
    Graph g(ctx);
    {
        auto capture = g.capture();
        dec.record();
        doubled = add(dec.output(), dec.output());  // something downstream of the decode
    }
    for (size_t run = 0; run < 3; ++run) {
        const size_t n = run == 2 ? 2 : batch;  // a short batch leaves later frames alone
        std::vector<HostArray> frames;
        std::vector<std::vector<uint8_t>> chunks;
        for (size_t k = 0; k < n; ++k) {
            frames.push_back(poisson(shape, DType::uint16, 2.0 + double(k), uint32_t(100 * run + k)));
            chunks.push_back(compress(frames.back()));
        }
        dec.push(chunks, run * batch);
        CHECK(dec.frames_pushed() == n);
        g.run();
        dec.check();
        const auto all = dec.output().to_vector<uint16_t>();
        const auto twice = doubled.to_vector<uint16_t>();
        for (size_t k = 0; k < n; ++k) {
            INFO("run " << run << " frame " << k);
            const auto want = frames[k].as<uint16_t>();
            REQUIRE(std::memcmp(all.data() + k * shape.size(), want.data(), want.size_bytes()) == 0);
            for (size_t i = 0; i < shape.size(); ++i) REQUIRE(twice[k * shape.size() + i] == uint16_t(2 * want[i]));
        }
    }
}

TEST_CASE("Bslz4Decoder parses a batch of many chunks on several threads, naming the first bad one",
          "[ops][bslz4][errors]") {
    // 35 chunks: their block tables are walked by four threads (8 or 9
    // chunks each); raw frames among them.
    Context ctx = test::context();
    const Shape shape{29, 61};
    const size_t batch = 35;
    Bslz4Decoder dec(ctx, shape, DType::uint32, batch, 0, 64);  // blocks of 64 elements: 28 and a short one
    std::vector<HostArray> frames;
    std::vector<std::vector<uint8_t>> chunks;
    std::vector<ChunkCoding> coding;
    for (size_t k = 0; k < batch; ++k) {
        frames.push_back(poisson(shape, DType::uint32, 1.0 + double(k % 7), uint32_t(500 + k)));
        const bool raw = k % 11 == 5;
        const auto* bytes = static_cast<const uint8_t*>(frames.back().data());
        chunks.push_back(raw ? std::vector<uint8_t>(bytes, bytes + frames.back().nbytes())
                             : compress(frames.back(), 64));
        coding.push_back(raw ? ChunkCoding::raw : ChunkCoding::bslz4);
    }
    dec.push(chunks, 100, "frame", coding);
    dec.record();
    dec.check();
    const auto got = dec.output().to_vector<uint32_t>();
    for (size_t k = 0; k < batch; ++k) {
        INFO("frame " << k);
        REQUIRE(std::memcmp(got.data() + k * shape.size(), frames[k].data(), frames[k].nbytes()) == 0);
    }
    // Truncated chunks: in the last thread's share alone, then also in the
    // first's, which is named.
    auto bad = chunks;
    bad[31].resize(bad[31].size() - 3);
    CHECK_THROWS_WITH(dec.push(bad, 100, "frame", coding), Catch::Contains("frame 131"));
    bad[2].resize(bad[2].size() / 2);
    CHECK_THROWS_WITH(dec.push(bad, 100, "frame", coding), Catch::Contains("frame 102"));
}

TEST_CASE("a Bslz4Decoder made inside a Graph capture records nothing of its own", "[ops][bslz4][graph]") {
    Context ctx = test::context();
    const Shape shape{29, 33};
    std::unique_ptr<Bslz4Decoder> dec;
    Graph g(ctx);
    {
        auto capture = g.capture();
        dec = std::make_unique<Bslz4Decoder>(ctx, shape, DType::uint32, 2);
        dec->record();
    }
    CHECK(g.stats().nodes == 1);
    for (uint32_t run = 0; run < 2; ++run) {
        std::vector<HostArray> frames;
        std::vector<std::vector<uint8_t>> chunks;
        for (uint32_t k = 0; k < 2; ++k) {
            frames.push_back(poisson(shape, DType::uint32, 6.0, 300 + 2 * run + k));
            chunks.push_back(compress(frames.back()));
        }
        dec->push(chunks);
        g.run();
        dec->check();
        const auto got = dec->output().to_vector<uint32_t>();
        for (size_t k = 0; k < 2; ++k)
            REQUIRE(std::memcmp(got.data() + k * shape.size(), frames[k].data(), frames[k].nbytes()) == 0);
    }
}

TEST_CASE("Bslz4Decoder decodes uint8 batches whose frames are not word aligned", "[ops][bslz4]") {
    Context ctx = test::context();
    const Shape shape{13, 17};  // 221 bytes a frame: blocks start at odd addresses
    Bslz4Decoder dec(ctx, shape, DType::uint8, 3, 0, 64);
    std::vector<HostArray> frames;
    std::vector<uint8_t> all;
    std::vector<size_t> sizes;
    for (uint32_t k = 0; k < 3; ++k) {
        frames.push_back(poisson(shape, DType::uint8, 5.0, 40 + k));
        const auto c = compress(frames.back(), 64);
        all.insert(all.end(), c.begin(), c.end());
        sizes.push_back(c.size());
    }
    dec.push(all, sizes);
    dec.record();
    dec.check();
    const auto got = dec.output().to_vector<uint8_t>();
    for (size_t k = 0; k < 3; ++k)
        REQUIRE(std::memcmp(got.data() + k * shape.size(), frames[k].data(), shape.size()) == 0);
}

TEST_CASE("GPU decoding of chunks written by the HDF5 bitshuffle plugin", "[ops][bslz4][h5]") {
    INFO("HDF5 filter 32008 not found: install Debian's bitshuffle package");
    REQUIRE(bitshuffle_plugin_available());
    Context ctx = test::context();
    TempFile file("plugin");
    const size_t n = 3, rows = 41, cols = 127;  // 5207 pixels: 7 raw trailing elements
    std::vector<uint32_t> all;
    for (uint32_t k = 0; k < n; ++k) {
        const auto f = poisson(Shape{rows, cols}, DType::uint32, 20.0 * (k + 1), 7 + k);
        all.insert(all.end(), f.as<uint32_t>().begin(), f.as<uint32_t>().end());
    }
    {
        hid_t f = H5Fcreate(file.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dims[3] = {n, rows, cols}, chunk[3] = {1, rows, cols};
        hid_t space = H5Screate_simple(3, dims, nullptr);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 3, chunk);
        const unsigned cd[2] = {0, 2};  // default block size, LZ4
        H5Pset_filter(dcpl, 32008, H5Z_FLAG_MANDATORY, 2, cd);
        hid_t d = H5Dcreate2(f, "data", H5T_STD_U32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        REQUIRE(d >= 0);
        REQUIRE(H5Dwrite(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()) >= 0);
        H5Dclose(d);
        H5Pclose(dcpl);
        H5Sclose(space);
        H5Fclose(f);
    }
    io::FrameStackReader reader(file.path, "/data");
    REQUIRE(reader.is_bslz4());
    for (size_t k = 0; k < n; ++k) {
        INFO("frame " << k);
        uint32_t mask = 1;
        const auto chunk = reader.read_chunk(k, &mask);
        REQUIRE(mask == 0);
        const auto got = bslz4_decompress(ctx, chunk, Shape{rows, cols}, DType::uint32).to_vector<uint32_t>();
        REQUIRE(std::memcmp(got.data(), all.data() + k * rows * cols, rows * cols * 4) == 0);
    }
}

TEST_CASE("GPU decoding of a stack written by FrameStackWriter", "[ops][bslz4][h5]") {
    Context ctx = test::context();
    TempFile file("writer");
    const Shape shape{29, 31};
    std::vector<HostArray> frames;
    {
        io::FrameStackWriter w(file.path, "/entry/data/data", 29, 31, DType::uint32, true);
        for (uint32_t k = 0; k < 3; ++k) {
            frames.push_back(poisson(shape, DType::uint32, 1.0 + k, 70 + k));
            w.write_frame(frames.back());
        }
        w.close();
    }
    io::FrameStackReader reader(file.path);
    Bslz4Decoder dec(ctx, shape, DType::uint32, 3);
    std::vector<std::vector<uint8_t>> chunks;
    for (size_t k = 0; k < 3; ++k) chunks.push_back(reader.read_chunk(k));
    dec.push(chunks);
    dec.record();
    dec.check();
    const auto got = dec.output().to_vector<uint32_t>();
    for (size_t k = 0; k < 3; ++k)
        REQUIRE(std::memcmp(got.data() + k * shape.size(), frames[k].data(), frames[k].nbytes()) == 0);
}

TEST_CASE("a corrupt LZ4 block gives an IoError naming the frame", "[ops][bslz4][errors]") {
    Context ctx = test::context();
    const Shape shape{127, 129};
    std::vector<HostArray> frames;
    std::vector<std::vector<uint8_t>> chunks;
    for (uint32_t k = 0; k < 3; ++k) {
        frames.push_back(poisson(shape, DType::uint32, 4.0, 90 + k));
        chunks.push_back(compress(frames.back()));
    }
    // Block 1 of frame 11 (the second chunk of a batch starting at 10) gets a
    // token with no literals and a match offset (0x0F0F) before any output:
    // its header still parses, only decoding finds the problem.
    const auto blocks = kiln::bslz4_blocks(chunks[1], 4, "frame 11");
    REQUIRE(blocks.size() >= 3);
    const size_t at = blocks[1].src_offset;
    chunks[1][at] = 0x0F;
    chunks[1][at + 1] = 0x0F;
    chunks[1][at + 2] = 0x0F;
    std::vector<uint8_t> out(frames[1].nbytes());
    CHECK_THROWS_AS(kiln::bslz4_decompress(chunks[1], 4, out, "frame 11"), IoError);  // the reference agrees

    Bslz4Decoder dec(ctx, shape, DType::uint32, 3);
    dec.push(chunks, 10);
    dec.record();
    CHECK_THROWS_AS(dec.check(), IoError);
    CHECK_THROWS_WITH(dec.check(), Catch::Contains("frame 11") && Catch::Contains("block 1 of") &&
                                       Catch::Contains("match offset"));
    CHECK_THROWS_WITH(bslz4_decompress(ctx, chunks[1], shape, DType::uint32, "frame 11"),
                      Catch::Contains("frame 11") && Catch::Contains("corrupt"));

    // The context and the decoder still work.
    chunks[1] = compress(frames[1]);
    dec.push(chunks, 10);
    dec.record();
    dec.check();
    const auto got = dec.output().to_vector<uint32_t>();
    for (size_t k = 0; k < 3; ++k)
        REQUIRE(std::memcmp(got.data() + k * shape.size(), frames[k].data(), frames[k].nbytes()) == 0);
}

TEST_CASE("corrupt LZ4 streams of every kind are caught on the GPU", "[ops][bslz4][errors]") {
    Context ctx = test::context();
    const Shape shape{64};  // one block of 256 bytes
    const HostArray frame = poisson(shape, DType::uint32, 3.0, 5);
    const auto good = compress(frame);
    const auto blocks = kiln::bslz4_blocks(good, 4, "x");
    REQUIRE(blocks.size() == 1);
    // Replaces the LZ4 data of the block (its length header rewritten to match).
    auto with_lz4 = [&](std::vector<uint8_t> lz4) {
        std::vector<uint8_t> c(good.begin(), good.begin() + 12);
        const uint32_t n = uint32_t(lz4.size());
        for (int i = 3; i >= 0; --i) c.push_back(uint8_t(n >> (8 * i)));
        c.insert(c.end(), lz4.begin(), lz4.end());
        return c;
    };
    struct Bad {
        std::vector<uint8_t> lz4;
        const char* says;
    };
    const Bad bad[] = {
        {{0x10, 0xAA, 0x01, 0x00}, "ends after a match"},   // 1 literal, then a match ending the block
        {{0x50, 1, 2}, "passes the end"},                    // 5 literals announced, 2 present
        {{0xF0, 0xFF, 0xFF, 0xFF}, "more bytes"},            // literal length past 256
        {{0x10, 0xAA, 0x02, 0x00, 0x00}, "outside the decoded data"},  // offset 2 after 1 byte
        {{0x30, 1, 2, 3}, "fewer bytes"},                    // 3 bytes of 256
        {{0x1F, 0xAA, 0x01, 0x00}, "truncated"},             // match length extension cut off
    };
    for (const auto& b : bad) {
        INFO(b.says);
        const auto chunk = with_lz4(b.lz4);
        std::vector<uint8_t> out(frame.nbytes());
        CHECK_THROWS_AS(kiln::bslz4_decompress(chunk, 4, out, "x"), IoError);
        CHECK_THROWS_WITH(bslz4_decompress(ctx, chunk, shape, DType::uint32, "frame 3"),
                          Catch::Contains("frame 3") && Catch::Contains(b.says));
    }
    require_same_bytes(bslz4_decompress(ctx, good, shape, DType::uint32).to_host(), frame);
}

TEST_CASE("Bslz4Decoder refuses bad batches with clear errors", "[ops][bslz4][errors]") {
    Context ctx = test::context();
    const Shape shape{37, 41};
    const HostArray frame = poisson(shape, DType::uint32, 2.0, 9);
    const auto chunk = compress(frame);
    Bslz4Decoder dec(ctx, shape, DType::uint32, 2);
    std::vector<std::vector<uint8_t>> three(3, chunk);
    CHECK_THROWS_WITH(dec.push(three), Catch::Contains("at most 2"));
    const size_t wrong[1] = {chunk.size() - 1};
    CHECK_THROWS_AS(dec.push(chunk, wrong), InvalidArgument);
    // A chunk of another frame size: named, with both sizes.
    const auto other = compress(poisson(Shape{37, 40}, DType::uint32, 2.0, 9));
    const size_t one[1] = {other.size()};
    CHECK_THROWS_WITH(dec.push(other, one, 5), Catch::Contains("frame 5") && Catch::Contains("(37, 41)"));
    // A truncated chunk: the host parse names it.
    std::vector<uint8_t> cut(chunk.begin(), chunk.begin() + long(chunk.size() / 2));
    const size_t half[1] = {cut.size()};
    CHECK_THROWS_AS(dec.push(cut, half, 7), IoError);
    CHECK_THROWS_WITH(dec.push(cut, half, 7), Catch::Contains("frame 7"));
    // Blocks larger than the decoder was made for.
    Bslz4Decoder small(ctx, shape, DType::uint32, 1, 0, 64);
    const size_t whole[1] = {chunk.size()};
    CHECK_THROWS_AS(small.push(chunk, whole), Unsupported);
    CHECK_THROWS_AS(Bslz4Decoder(ctx, shape, DType::uint32, 1, 0, 12), InvalidArgument);
    CHECK_THROWS_AS(Bslz4Decoder(ctx, shape, DType::uint32, 0), InvalidArgument);
    CHECK_THROWS_AS(Bslz4Decoder(ctx, Shape{2048, 2048}, DType::uint32, 1, 0, 1 << 20),
                    Unsupported);  // 4 MiB blocks do not fit shared memory
    {
        ContextOptions o;
        o.max_binding_range = 64 << 10;
        Context small_range = test::context(o);
        CHECK_THROWS_WITH(Bslz4Decoder(small_range, shape, DType::uint32, 20), Catch::Contains("at most 10 frames"));
    }
    // Still usable.
    dec.push(std::span<const std::vector<uint8_t>>(three.data(), 2));
    dec.record();
    dec.check();
    const auto got = dec.output().to_vector<uint32_t>();
    REQUIRE(std::memcmp(got.data(), frame.data(), frame.nbytes()) == 0);
    REQUIRE(std::memcmp(got.data() + shape.size(), frame.data(), frame.nbytes()) == 0);
}

TEST_CASE("pipelined Bslz4Decoders copy batches from pinned memory inside graphs and report errors after the run",
          "[ops][bslz4][graph]") {
    Context ctx = test::context();
    const Shape shape{41, 53};  // 2173 elements: a raw tail of 5
    const size_t batch = 3, batches = 4;
    // Every batch's chunks back to back in one PinnedBuffer; frame 7 (batch 2) corrupt.
    std::vector<HostArray> frames;
    std::vector<std::vector<uint8_t>> chunks;
    for (uint32_t k = 0; k < batch * batches; ++k) {
        frames.push_back(poisson(shape, DType::uint32, 1.0 + k, 500 + k));
        chunks.push_back(compress(frames.back(), 256));
    }
    const auto bad_blocks = kiln::bslz4_blocks(chunks[7], 4, "frame 7");
    REQUIRE(bad_blocks.size() >= 4);
    for (size_t i = 0; i < 3; ++i) chunks[7][bad_blocks[2].src_offset + i] = 0x0F;  // match before any output
    std::vector<size_t> sizes, offsets{0};
    for (const auto& c : chunks) {
        sizes.push_back(c.size());
        offsets.push_back(offsets.back() + c.size());
    }
    PinnedBuffer pinned(ctx, offsets.back());
    for (size_t k = 0; k < chunks.size(); ++k) std::memcpy(pinned.data() + offsets[k], chunks[k].data(), sizes[k]);
    auto bytes_of = [&](size_t b) {
        return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(pinned.data()) + offsets[b * batch],
                                        offsets[(b + 1) * batch] - offsets[b * batch]);
    };
    size_t most = 0;
    for (size_t b = 0; b < batches; ++b) most = std::max(most, bytes_of(b).size());

    // Two decoders taking turns; one graph per batch decodes, doubles and pulls into pinned memory.
    Bslz4Decoder decs[2] = {Bslz4Decoder(ctx, shape, DType::uint32, batch, most, 256),
                            Bslz4Decoder(ctx, shape, DType::uint32, batch, most, 256)};
    PinnedBuffer results(ctx, batch * batches * shape.size() * 4);
    std::vector<std::unique_ptr<Graph>> graphs;
    for (size_t b = 0; b < batches; ++b) {
        graphs.push_back(std::make_unique<Graph>(ctx));
        auto capture = graphs.back()->capture();
        decs[b % 2].record(bytes_of(b));
        const Array doubled = add(decs[b % 2].output(), decs[b % 2].output());
        doubled.pull(results.data() + b * batch * shape.size() * 4, batch * shape.size() * 4);
    }
    std::fill_n(results.as<uint32_t>().data(), results.size() / 4, 0xDEADBEEFu);  // poison
    std::vector<std::string> errors(batches);
    for (size_t b = 0; b < batches + 2; ++b) {
        if (b >= 2) {  // batch b - 2 has run, or is running: its errors, after the fact
            try {
                decs[b % 2].check();
            } catch (const IoError& e) {
                errors[b - 2] = e.what();
            }
        }
        if (b < batches) {
            decs[b % 2].stage(bytes_of(b), std::span<const size_t>(sizes).subspan(b * batch, batch), b * batch);
            graphs[b]->launch();
        }
    }
    for (size_t b = 0; b < batches; ++b) {
        INFO("batch " << b << ": " << errors[b]);
        CHECK(errors[b].empty() == (b != 2));
    }
    CHECK_THAT(errors[2], Catch::Contains("frame 7") && Catch::Contains("block 2 of") &&
                              Catch::Contains("match offset"));
    const auto got = results.as<const uint32_t>();
    for (size_t k = 0; k < batch * batches; ++k) {
        if (k == 7) continue;  // the corrupt frame's contents are undefined
        INFO("frame " << k);
        const auto want = frames[k].as<uint32_t>();
        for (size_t i = 0; i < shape.size(); ++i) REQUIRE(got[k * shape.size() + i] == 2 * want[i]);
    }

    // Runs again with the chunk repaired: the same graphs, new contents in the pinned source.
    chunks[7] = compress(frames[7], 256);
    REQUIRE(chunks[7].size() == sizes[7]);  // a repaired chunk of the same length
    std::memcpy(pinned.data() + offsets[7], chunks[7].data(), sizes[7]);
    decs[0].stage(bytes_of(2), std::span<const size_t>(sizes).subspan(2 * batch, batch), 2 * batch);
    graphs[2]->launch();
    decs[0].check();
    for (size_t i = 0; i < shape.size(); ++i)
        REQUIRE(got[7 * shape.size() + i] == 2 * frames[7].as<uint32_t>()[i]);
}

TEST_CASE("pipelined Bslz4Decoder refuses misuse with clear errors", "[ops][bslz4][graph][errors]") {
    Context ctx = test::context();
    const Shape shape{37, 41};
    const HostArray frame = poisson(shape, DType::uint32, 2.0, 9);
    const auto chunk = compress(frame);
    PinnedBuffer pinned(ctx, 2 * chunk.size());
    std::memcpy(pinned.data(), chunk.data(), chunk.size());
    std::memcpy(pinned.data() + chunk.size(), chunk.data(), chunk.size());
    const std::span<const uint8_t> both(reinterpret_cast<const uint8_t*>(pinned.data()), 2 * chunk.size());
    Bslz4Decoder dec(ctx, shape, DType::uint32, 2);
    // Outside a capture, and from pageable memory.
    CHECK_THROWS_WITH(dec.record(both), Catch::Contains("outside a Graph capture"));
    Graph g(ctx);
    {
        auto capture = g.capture();
        CHECK_THROWS_WITH(dec.record(std::span<const uint8_t>(chunk)), Catch::Contains("PinnedBuffer"));
        dec.record(both);
    }
    // Bytes that no graph copies, and a check before the run that decodes the staged batch.
    const size_t one[1] = {chunk.size()};
    CHECK_THROWS_WITH(dec.stage(chunk, one), Catch::Contains("no source"));
    dec.stage(both.subspan(chunk.size()), one, 4);
    CHECK_THROWS_WITH(dec.check(), Catch::Contains("launch"));
    // A truncated chunk is named by the host parse; the graph then decodes nothing.
    const size_t cut[1] = {chunk.size() / 2};
    CHECK_THROWS_WITH(dec.stage(both.first(cut[0]), cut, 6), Catch::Contains("frame 6"));
    // The second chunk alone (an offset into the source), then both.
    dec.stage(both.subspan(chunk.size()), one, 4);
    g.run();
    dec.check();
    auto got = dec.output().to_vector<uint32_t>();
    REQUIRE(std::memcmp(got.data(), frame.data(), frame.nbytes()) == 0);
    const size_t two[2] = {chunk.size(), chunk.size()};
    dec.stage(both, two);
    g.run();
    dec.check();
    got = dec.output().to_vector<uint32_t>();
    REQUIRE(std::memcmp(got.data() + shape.size(), frame.data(), frame.nbytes()) == 0);
}
