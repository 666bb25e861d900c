// Stress cases for the GPU bitshuffle-LZ4 decoder (a workgroup per block,
// each with its own error flag): batches of many frames of many small
// blocks, compressible, incompressible and constant frames side by side,
// raw trailing elements, a Graph run per batch; every frame byte for byte
// as kiln::bslz4_decompress decodes it (and as it was compressed).
#include <cstring>
#include <string>
#include <vector>

#include "bslz4_support.hpp"
#include "kiln/bslz4.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/graph.hpp"
#include "stress/stress_support.hpp"

using namespace kiln;
using namespace kiln::test::stress;
using test::compress;
using test::poisson;
using test::require_same_bytes;

namespace {

// The CPU decoder's output of a chunk, as an array like `like`.
HostArray cpu_decoded(const std::vector<uint8_t>& chunk, const HostArray& like) {
    HostArray out(like.shape, like.dtype);
    kiln::bslz4_decompress(chunk, dtype_size(like.dtype),
                           std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()), out.nbytes()), "cpu");
    return out;
}

// Frame k of a batch: Poisson counts of growing mean, random values (blocks
// LZ4 cannot compress) or a constant (long overlapping matches).
HostArray frame(Shape shape, DType t, size_t k, uint32_t seed) {
    switch (k % 4) {
        case 1:
            return test::random(shape, t, seed, 0, 1e9);
        case 3: {
            HostArray c(shape, t);
            std::memset(c.data(), 0x5A, c.nbytes());
            return c;
        }
        default:
            return poisson(shape, t, 1.0 + double(k), seed);
    }
}

}  // namespace

TEST_CASE("stress bslz4: batches of many frames of many blocks, a Graph run per batch", "[stress][bslz4]") {
    Context ctx = test::context();
    // 61 x 67 = 4087 elements: 7 raw trailing ones after the blocks.
    const Shape shape{scaled(61), scaled(67)};
    const size_t batch = 16;
    struct Kind {
        DType dtype;
        size_t block;  // elements; 0: the format's default (8 KiB)
    };
    const Kind kinds[] = {{DType::uint32, 64}, {DType::uint16, 0}, {DType::uint8, 256}, {DType::int32, 0}};
    repeat([&](uint64_t rep) {
        for (const Kind& kind : kinds) {
            INFO(dtype_name(kind.dtype) << " block " << kind.block);
            Bslz4Decoder dec(ctx, shape, kind.dtype, batch, 0, kind.block);
            Graph g(ctx);
            {
                auto capture = g.capture();
                dec.record();
            }
            std::vector<HostArray> kept(batch);  // what each frame of the output holds
            for (size_t run = 0; run < 3; ++run) {
                const size_t n = run == 2 ? batch / 2 + 1 : batch;  // a short batch leaves the rest alone
                std::vector<std::vector<uint8_t>> chunks;
                for (size_t k = 0; k < n; ++k) {
                    kept[k] = frame(shape, kind.dtype, k + run, uint32_t(1000 * rep + 100 * run + k));
                    chunks.push_back(compress(kept[k], kind.block));
                }
                dec.push(chunks, run * batch);
                g.run();
                dec.check();
                const HostArray all = dec.output().to_host();
                const size_t bytes = kept[0].nbytes();
                for (size_t k = 0; k < batch; ++k) {
                    INFO("run " << run << " frame " << k);
                    HostArray got(shape, kind.dtype);
                    std::memcpy(got.data(), static_cast<const uint8_t*>(all.data()) + k * bytes, bytes);
                    if (k < n) require_same_bytes(got, cpu_decoded(chunks[k], kept[k]));
                    require_same_bytes(got, kept[k]);
                }
            }
        }
    });
}

TEST_CASE("stress bslz4: one large frame of a thousand blocks", "[stress][bslz4]") {
    Context ctx = test::context();
    const Shape shape{scaled(255), scaled(257)};
    repeat([&](uint64_t rep) {
        for (size_t k = 0; k < 4; ++k) {
            INFO("frame kind " << k);
            const HostArray f = frame(shape, DType::uint32, k, uint32_t(2000 + 10 * rep + k));
            const auto chunk = compress(f, 64);
            const HostArray got = bslz4_decompress(ctx, chunk, shape, DType::uint32, "frame").to_host();
            require_same_bytes(got, cpu_decoded(chunk, f));
            require_same_bytes(got, f);
        }
    });
}
