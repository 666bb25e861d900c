// Azimuthal integration workloads (REFERENCE.md W15, W16) and the frame-stack
// throughputs of the issue, on a synthetic Eiger 4M powder pattern:
//   W15 / W16   GPU time of one frame's CSR integration, 1000 q bins, without
//               and with pixel splitting (fused kernel; "s": pyFAI's separate
//               pre-processing kernel; "k": compensated float32 sums);
//   W17         the same into a 500 x 360 cake (integrate2d), without and
//               ("s") with bbox splitting;
//   az-raw      frames/s of a stack held in pinned memory as raw uint32,
//               pushed and integrated batch by batch (a Graph run per batch);
//   az-lz4      the same stack held bitshuffle-LZ4 compressed (kiln::bslz4_compress),
//               pushed compressed and decoded on the GPU, double-buffered (the
//               host parses a batch while the GPU decodes the one before);
//   lz4-dec     GPU time of decoding one compressed frame.
//   az-file     frames/s of the same stack read from an HDF5 file (in the page
//               cache) to a .npy of profiles, all the way: integrate_stack,
//               the driver of `kiln integrate-azimuthal` (reader threads,
//               GPU decode and integration, writing, overlapped). Frames:
//               $KILN_BENCH_FILE_FRAMES (default 1000; 16 small), in
//               $TMPDIR; $KILN_BENCH_KEEP_STACK=1 keeps the file for timing
//               the CLI itself (bench/cli_stack.sh); $KILN_BENCH_FILE_PER
//               frames per file writes the stack as several files, as a
//               detector writes its data files (one file when unset).
// Every workload checks a frame against the CPU reference (cpu::integrate, or
// the frame itself for decoding). No disk I/O but in az-file.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <numbers>
#include <thread>

#include "bench.hpp"
#include "kiln/azimuthal.hpp"
#include "kiln/bslz4.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/io.hpp"
#include "kiln/profile_io.hpp"
#include "kiln/random.hpp"
#include "kiln/stack_integration.hpp"
#include "kiln/reference/integrate.hpp"

namespace kiln::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Eiger 4M, beam near the centre, 0.1 m, 12.4 keV (small: a quarter of the
// pixels on each side, same angles).
kiln::Geometry geometry(Size size) {
    const bool full = size == Size::full;
    const size_t rows = full ? 2162 : 257, cols = full ? 2068 : 263;
    const double pixel = full ? 75e-6 : 75e-6 * 2162 / 257;
    return kiln::Geometry{rows, cols, pixel, pixel, 0.1, 0.51 * rows * pixel, 0.48 * cols * pixel,
                          0, 0, 0, 1e-10};
}


// Poisson counts of silicon-like rings on a background, frame by frame
// different; gap rows and columns hold Eiger's 0xFFFFFFFF.
std::vector<uint32_t> frame(const kiln::Geometry& g, const std::vector<double>& q, uint32_t index) {
    std::vector<uint32_t> out(g.rows * g.cols);
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t row; (row = next.fetch_add(1)) < g.rows;) {
            uint64_t s = (uint64_t(index) << 32) ^ row;
            for (size_t j = 0; j < g.cols; ++j) {
                const size_t k = row * g.cols + j;
                if (row % 550 >= 514 || (j >= 1030 && j < 1038)) {
                    out[k] = 0xFFFFFFFFu;
                    continue;
                }
                double mean = 1.0 + 20 * std::exp(-q[k] / 4);
                for (int n : {3, 8, 11, 16, 19, 24, 27}) {
                    const double d = (q[k] - 11.57 * std::sqrt(double(n))) / 0.12;
                    mean += 40 * std::exp(-0.5 * d * d);
                }
                mean *= 1 + 0.2 * std::sin(index * 0.7);
                // Inversion: a few steps for these means.
                const double u = kiln::uniform01(s);
                double p = std::exp(-mean), cdf = p;
                uint32_t c = 0;
                while (u > cdf && c < 200) p *= mean / ++c, cdf += p;
                out[k] = c;
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < std::max(1u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    return out;
}

// The stack every workload of a size shares: a few distinct frames, compressed.
struct Stack {
    kiln::Geometry g;
    std::vector<std::vector<uint32_t>> frames;
    std::vector<std::vector<uint8_t>> chunks;
};

const Stack& stack(Size size) {
    static std::unique_ptr<Stack> cache[2];
    auto& s = cache[size == Size::full];
    if (!s) {
        s = std::make_unique<Stack>();
        s->g = geometry(size);
        const auto q = kiln::q_nm(s->g);
        for (uint32_t k = 0; k < 8; ++k) s->frames.push_back(frame(s->g, q, k));
        s->chunks.resize(s->frames.size());
        std::vector<std::thread> pool;
        for (size_t k = 0; k < s->frames.size(); ++k)
            pool.emplace_back([&, k] {
                const auto& f = s->frames[k];
                s->chunks[k] =
                    kiln::bslz4_compress({reinterpret_cast<const uint8_t*>(f.data()), f.size() * 4}, 4);
            });
        for (auto& t : pool) t.join();
    }
    return *s;
}

AzimuthalSetup setup(const kiln::Geometry& g, bool split, bool corrections) {
    AzimuthalSetup s;
    s.geometry = g;
    s.unit = kiln::Radial::q_nm;
    s.bins = 1000;
    s.split = split ? kiln::PixelSplit::bbox : kiln::PixelSplit::none;
    if (corrections) {
        s.solid_angle = true;
        s.polarization_factor = 0.99;
        s.dummy = 4294967295.0;
    }
    return s;
}

HostArray host_frame(const Stack& s, size_t k) {
    return HostArray::from(Shape{s.g.rows, s.g.cols}, s.frames[k % s.frames.size()]);
}

// Intensities of one frame against cpu::integrate.
void check(Result& r, const AzimuthalIntegrator& integ, const HostArray& frame, const std::vector<float>& got) {
    const auto want = cpu::integrate(integ.csr(), frame, integ.cpu_params());
    r.checked = true;
    for (size_t b = 0; b < want.intensity.size(); ++b)
        if (std::abs(got[b] - want.intensity[b]) > 1e-5 * std::abs(want.intensity[b]) + 1e-30) {
            r.ok = false;
            r.note = "bin " + std::to_string(b) + ": " + std::to_string(got[b]) + " vs CPU " +
                     std::to_string(want.intensity[b]);
            return;
        }
}

Result one_frame(Context& ctx, Size size, int n, bool split, AzimuthalKernels kernels, Accumulation acc,
                 const std::function<void(AzimuthalSetup&)>& adjust = {}) {
    const Stack& s = stack(size);
    AzimuthalSetup st = setup(s.g, split, false);
    st.kernels = kernels;
    st.accumulation = acc;
    if (adjust) adjust(st);
    AzimuthalIntegrator integ(ctx, st);
    const HostArray h = host_frame(s, 0);
    Array frame = Array::from_host(ctx, h);
    AzimuthalResult out;
    Result r;
    take_times(r, timed(ctx, size, [&] { out = integ.integrate(frame); }, n, 3));
    const double nnz = double(integ.csr().nnz());
    r.metrics["nnz_M"] = nnz / 1e6;
    r.metrics["Gnnz/s"] = nnz / (r.gpu_ms * 1e-3) / 1e9;
    check(r, integ, h, out.intensity.to_vector<float>());
    return r;
}

// Frames per second over `total` frames held in pinned memory, raw or
// compressed, batch after batch through one recorded Graph.
Result throughput(Context& ctx, Size size, int n, bool compressed) {
    const Stack& s = stack(size);
    const size_t total = size == Size::full ? 100 : 16, batch = size == Size::full ? 20 : 8;
    const size_t frame_bytes = s.g.rows * s.g.cols * 4;
    AzimuthalIntegrator integ(ctx, setup(s.g, false, true));
    // The whole stack in pinned memory, as a detector's receiver would hold it.
    std::vector<size_t> sizes(total), offsets(total + 1, 0);
    for (size_t k = 0; k < total; ++k) {
        sizes[k] = compressed ? s.chunks[k % s.chunks.size()].size() : frame_bytes;
        offsets[k + 1] = offsets[k] + sizes[k];
    }
    PinnedBuffer pinned(ctx, offsets[total]);
    for (size_t k = 0; k < total; ++k)
        std::memcpy(pinned.data() + offsets[k],
                    compressed ? static_cast<const void*>(s.chunks[k % s.chunks.size()].data())
                               : static_cast<const void*>(s.frames[k % s.frames.size()].data()),
                    sizes[k]);
    size_t most = 0;
    for (size_t k = 0; k + batch <= total; k += batch) most = std::max(most, offsets[k + batch] - offsets[k]);
    std::array<std::unique_ptr<Bslz4Decoder>, 2> decs;  // pipelined: two taking turns
    Array input;
    AzimuthalResult out;
    std::vector<float> profiles(batch * integ.bins());
    std::function<void()> pass;
    // Raw frames: one graph per batch that pushes from the pinned stack,
    // integrates and pulls into pinned memory, so a batch is one submission
    // and the batches run back to back.
    std::vector<std::unique_ptr<Graph>> graphs;
    PinnedBuffer pinned_profiles(ctx, (total / batch) * batch * integ.bins() * sizeof(float));
    if (!compressed) {
        input = Array::empty(ctx, Shape{batch, s.g.rows, s.g.cols}, DType::uint32);
        for (size_t first = 0; first + batch <= total; first += batch) {
            graphs.push_back(std::make_unique<Graph>(ctx));
            auto capture = graphs.back()->capture();
            input.push(pinned.data() + offsets[first], batch * frame_bytes);
            out = integ.integrate(input);
            out.intensity.pull(pinned_profiles.data() + first * integ.bins() * sizeof(float),
                               batch * integ.bins() * sizeof(float));
        }
        pass = [&] {
            for (auto& g : graphs) g->launch();
            ctx.sync();
            std::memcpy(profiles.data(), pinned_profiles.data() + (total - batch) * integ.bins() * sizeof(float),
                        profiles.size() * sizeof(float));
        };
    } else {
        // Pipelined: two decoders taking turns, one graph per batch that
        // copies the batch's chunks (and their block table) from pinned
        // memory, decodes, integrates and copies the profiles and the error
        // flags back into pinned memory. The host parses batch k + 1 while the
        // GPU works on batch k, and checks a batch's errors once it has run.
        const size_t batches = total / batch;
        for (auto& d : decs)
            d = std::make_unique<Bslz4Decoder>(ctx, Shape{s.g.rows, s.g.cols}, DType::uint32, batch, most);
        auto bytes_of = [&](size_t b) {
            return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(pinned.data() + offsets[b * batch]),
                                            offsets[(b + 1) * batch] - offsets[b * batch]);
        };
        for (size_t b = 0; b < batches; ++b) {
            graphs.push_back(std::make_unique<Graph>(ctx));
            auto capture = graphs.back()->capture();
            Bslz4Decoder& d = *decs[b % 2];
            d.record(bytes_of(b));
            out = integ.integrate(d.output());
            out.intensity.pull(pinned_profiles.data() + b * batch * integ.bins() * sizeof(float),
                               batch * integ.bins() * sizeof(float));
        }
        pass = [&, batches, bytes_of] {
            for (size_t b = 0; b < batches; ++b) {
                Bslz4Decoder& d = *decs[b % 2];
                if (b >= 2) d.check();  // batch b - 2, the last one this decoder took
                d.stage(bytes_of(b), std::span<const size_t>(sizes).subspan(b * batch, batch), b * batch);
                graphs[b]->launch();
            }
            for (size_t b = batches >= 2 ? batches - 2 : 0; b < batches; ++b) decs[b % 2]->check();
            std::memcpy(profiles.data(), pinned_profiles.data() + (total - batch) * integ.bins() * sizeof(float),
                        profiles.size() * sizeof(float));
        };
    }
    pass();  // warm-up: pipelines, memory
    hold_clock(ctx, size);
    std::vector<double> wall, gpu;
    for (int rep = 0; rep < std::max(1, n / 5); ++rep) {
        const uint64_t before = ctx.profile().submission_count();
        const auto t0 = Clock::now();
        pass();
        wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / double(total));
        double sum = 0;
        for (double d : ctx.profile().submissions_since(before)) sum += d;
        gpu.push_back(sum / double(total));
    }
    Result r;
    r.wall_ms = median_of(wall);
    r.gpu_ms = median_of(gpu);
    r.gpu_min = *std::min_element(gpu.begin(), gpu.end());
    r.gpu_max = *std::max_element(gpu.begin(), gpu.end());
    r.metrics["frames/s"] = 1000.0 / r.wall_ms;
    r.metrics["MB/frame"] = double(offsets[total]) / double(total) / 1e6;
    r.metrics["batch"] = double(batch);
    r.note = "per frame";
    // The last batch's first frame against the CPU.
    check(r, integ, host_frame(s, total - batch), profiles);
    return r;
}

// The stack as an HDF5 file of `total` frames (the chunks repeated), read
// through once so that it is in the page cache; then integrate_stack from it
// to a .npy, timed whole.
Result from_file(Context& ctx, Size size, int n) {
    const Stack& s = stack(size);
    size_t total = size == Size::full ? 1000 : 16;
    if (const char* e = std::getenv("KILN_BENCH_FILE_FRAMES"); e && *e) total = std::stoul(e);
    const bool keep = std::getenv("KILN_BENCH_KEEP_STACK") != nullptr;
    const auto tmp = std::filesystem::temp_directory_path();
    const std::string path = (tmp / ("kiln_bench_stack_" + std::to_string(s.g.rows) + "x" + std::to_string(s.g.cols) +
                                     "_" + std::to_string(total) + ".h5")).string();
    const std::string out = (tmp / "kiln_bench_profiles.npy").string();
    // $KILN_BENCH_FILE_PER: frames per file, as a detector writes its data
    // files (one file when unset); the parts are named PATH_partK.h5.
    size_t per = total;
    if (const char* e = std::getenv("KILN_BENCH_FILE_PER"); e && *e) per = std::max<size_t>(1, std::stoul(e));
    std::vector<std::string> paths;
    for (size_t first = 0; first < total; first += per) {
        const std::string part = per >= total ? path : path.substr(0, path.size() - 3) + "_part" +
                                                           std::to_string(first / per) + ".h5";
        paths.push_back(part);
        if (!std::filesystem::exists(part)) {
            io::FrameStackWriter w(part, "/entry/data/data", s.g.rows, s.g.cols, DType::uint32, true);
            for (size_t k = first; k < std::min(total, first + per); ++k) w.write_chunk(s.chunks[k % s.chunks.size()]);
            w.close();
        }
        std::ifstream in(part, std::ios::binary);
        std::vector<char> buf(1 << 24);
        while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0) {
        }
    }
    AzimuthalIntegrator integ(ctx, setup(s.g, false, true));
    const FrameStack frames(paths);
    StackOptions o;
    o.batch = size == Size::full ? 32 : 8;
    o.fields = {"intensity"};
    std::vector<double> wall;
    StackSummary last;
    for (int rep = 0; rep < std::max(2, n / 10); ++rep) {  // the first one warms up
        io::NpyProfileWriter npy(out, "intensity");
        last = integrate_stack(ctx, integ, frames, npy, o);
        if (rep > 0) wall.push_back(last.seconds * 1e3 / double(total));
    }
    Result r;
    r.wall_ms = median_of(wall);
    r.metrics["frames/s"] = 1000.0 / r.wall_ms;
    r.metrics["frames"] = double(total);
    r.metrics["batch"] = double(last.batch);
    r.metrics["readers"] = double(last.readers);
    double bytes = 0;
    for (const std::string& part : paths) bytes += double(std::filesystem::file_size(part));
    r.metrics["MB/frame"] = bytes / double(total) / 1e6;
    r.metrics["files"] = double(paths.size());
    r.note = "per frame, file to file";
    const HostArray profiles = io::read_npy(out);
    const auto first = profiles.as<float>();
    check(r, integ, host_frame(s, 0), std::vector<float>(first.begin(), first.begin() + long(integ.bins())));
    std::filesystem::remove(out);
    if (!keep)
        for (const std::string& part : paths) std::filesystem::remove(part);
    return r;
}

Register w15{{"W15", "CSR integrate Eiger 4M, 1000 bins, no split", "azimuthal", [](Context& c, Size s, int n) {
    return one_frame(c, s, n, false, AzimuthalKernels::fused, Accumulation::automatic);
}}};
Register w15s{{"W15s", "W15 with a separate preprocess kernel", "azimuthal", [](Context& c, Size s, int n) {
    return one_frame(c, s, n, false, AzimuthalKernels::separate, Accumulation::automatic);
}}};
Register w15k{{"W15k", "W15 with compensated float32 sums", "azimuthal", [](Context& c, Size s, int n) {
    return one_frame(c, s, n, false, AzimuthalKernels::fused, Accumulation::compensated);
}}};
Register w16{{"W16", "CSR integrate Eiger 4M, 1000 bins, split", "azimuthal", [](Context& c, Size s, int n) {
    return one_frame(c, s, n, true, AzimuthalKernels::fused, Accumulation::automatic);
}}};
Register w16s{{"W16s", "W16 with a separate preprocess kernel", "azimuthal", [](Context& c, Size s, int n) {
    return one_frame(c, s, n, true, AzimuthalKernels::separate, Accumulation::automatic);
}}};
// pyFAI's integrate2d: a cake of 360 azimuthal x 500 radial bins (small:
// 36 x 100, a tenth of the pixels per side's worth).
std::function<void(AzimuthalSetup&)> cake(Size size) {
    const bool full = size == Size::full;
    return [full](AzimuthalSetup& s) {
        s.bins = full ? 500 : 100;
        s.azimuth_bins = full ? 360 : 36;
    };
}
Register w17{{"W17", "CSR integrate2d Eiger 4M, 500 x 360 bins, no split", "azimuthal", [](Context& c, Size s, int n) {
    return one_frame(c, s, n, false, AzimuthalKernels::fused, Accumulation::automatic, cake(s));
}}};
Register w17s{{"W17s", "W17 with bbox pixel splitting", "azimuthal", [](Context& c, Size s, int n) {
    return one_frame(c, s, n, true, AzimuthalKernels::fused, Accumulation::automatic, cake(s));
}}};
Register az_raw{{"az-raw", "Eiger 4M stack, raw uint32 pushed (pinned)", "azimuthal",
                 [](Context& c, Size s, int n) { return throughput(c, s, n, false); }}};
Register az_lz4{{"az-lz4", "Eiger 4M stack, bslz4 pushed, GPU decode", "azimuthal",
                 [](Context& c, Size s, int n) { return throughput(c, s, n, true); }}};

Register az_file{{"az-file", "Eiger 4M stack, HDF5 file to .npy (driver)", "azimuthal",
                  [](Context& c, Size s, int n) { return from_file(c, s, n); }}};

Register lz4_dec{{"lz4-dec", "bitshuffle-LZ4 decode of one Eiger 4M frame", "azimuthal", [](Context& ctx, Size size, int n) {
    const Stack& s = stack(size);
    Bslz4Decoder dec(ctx, Shape{s.g.rows, s.g.cols}, DType::uint32);
    dec.push(std::span<const std::vector<uint8_t>>(s.chunks.data(), 1));
    Result r;
    take_times(r, timed(ctx, size, [&] { dec.record(); }, n, 3));
    dec.check();
    const auto got = dec.output().to_vector<uint32_t>();
    r.checked = true;
    r.ok = got == s.frames[0];
    if (!r.ok) r.note = "decoded frame differs";
    r.metrics["GB/s_out"] = double(got.size() * 4) / (r.gpu_ms * 1e-3) / 1e9;
    r.metrics["ratio"] = double(got.size() * 4) / double(s.chunks[0].size());
    return r;
}}};

} // namespace

} // namespace kiln::bench
