// Sample: azimuthal integration of a detector frame stack, three ways.
//
// Generates (once) a synthetic Eiger 4M powder-diffraction stack written as
// bitshuffle-LZ4 HDF5, then integrates every frame
//   1. on the CPU (kiln's reference: HDF5 read, kiln's LZ4 decoder, the CSR
//      loop), on a subset of frames because it is slow;
//   2. on the GPU with raw frames: chunks read and decoded on the host (all
//      cores), pushed from pinned memory;
//   3. on the GPU with compressed chunks: pushed as stored and decoded on the
//      device, so only the compressed bytes cross the bus.
// Each GPU path is an explicit Graph recorded once and run per batch of
// frames. Prints frames per second for each path and the per-kernel GPU
// profile, checks the GPU profiles against the CPU ones, and writes the
// profiles (NPY) and a plot of a few of them (PNG).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "kiln/azimuthal.hpp"
#include "kiln/bslz4.hpp"
#include "kiln/bslz4_host.hpp"
#include "kiln/io.hpp"
#include "kiln/kiln.hpp"
#include "kiln/reference/integrate.hpp"
#include "plot.hpp"
#include "progress.hpp"
#include "synth.hpp"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Options {
    std::string size = "full", input, dir = ".", kernels = "fused", device;
    size_t frames = 0, bins = 1000, batch = 16, cpu_frames = 10;
    bool split = false;
    uint32_t seed = 1;
};

// Timings of one path over the stack.
struct PathResult {
    std::string name;
    size_t frames = 0;
    double seconds = 0, host_seconds = 0, gpu_ms_per_frame = 0;
    std::vector<float> profiles;  // frames x bins intensities
};

// GPU time per frame from the profile: every timed node of the path.
double gpu_ms(Context& ctx, size_t frames) {
    double total = 0;
    for (const auto& s : ctx.profile().stats()) total += s.total;
    return frames ? total / double(frames) : 0;
}

void take_rows(const AzimuthalResult& r, size_t n, size_t bins, std::vector<float>& out) {
    const auto v = r.intensity.to_vector<float>();
    out.insert(out.end(), v.begin(), v.begin() + long(n * bins));
}

Shape batch_shape(size_t batch, size_t rows, size_t cols) {
    return batch == 1 ? Shape{rows, cols} : Shape{batch, rows, cols};
}

PathResult gpu_raw(Context& ctx, const io::FrameStackReader& reader, const AzimuthalIntegrator& integ,
                   size_t batch) {
    PathResult pr{"GPU, raw frames pushed"};
    const size_t rows = reader.rows(), cols = reader.cols(), frames = reader.frames();
    const size_t frame_bytes = rows * cols * 4;
    PinnedBuffer pinned(ctx, batch * frame_bytes);
    Array input = Array::empty(ctx, batch_shape(batch, rows, cols), DType::uint32);
    Graph graph(ctx);
    AzimuthalResult r;
    {
        auto capture = graph.capture();
        r = integ.integrate(input);
    }
    ctx.profile().clear();
    std::vector<std::vector<uint8_t>> chunks(batch);
    std::vector<ChunkCoding> coding(batch);
    sample::Progress bar(pr.name, frames);
    const auto t0 = Clock::now();
    for (size_t first = 0; first < frames; first += batch) {
        const size_t n = std::min(batch, frames - first);
        const auto h0 = Clock::now();
        for (size_t k = 0; k < n; ++k) coding[k] = reader.read_for_decoder(first + k, chunks[k]);  // HDF5: one thread
        std::vector<std::thread> pool;
        for (size_t k = 0; k < n; ++k)
            pool.emplace_back([&, k] {
                std::span<uint8_t> dst(reinterpret_cast<uint8_t*>(pinned.data()) + k * frame_bytes, frame_bytes);
                if (coding[k] == ChunkCoding::raw)
                    std::memcpy(dst.data(), chunks[k].data(), frame_bytes);  // read_for_decoder gave a frame's bytes
                else
                    kiln::bslz4_decompress(chunks[k], 4, dst, "frame " + std::to_string(first + k));
            });
        for (auto& t : pool) t.join();
        pr.host_seconds += seconds_since(h0);
        input.push(pinned.data(), batch * frame_bytes);
        graph.run();
        take_rows(r, n, integ.bins(), pr.profiles);
        bar.update(first + n);
    }
    pr.seconds = seconds_since(t0);
    bar.finish();
    pr.frames = frames;
    pr.gpu_ms_per_frame = gpu_ms(ctx, frames);
    return pr;
}

PathResult gpu_compressed(Context& ctx, const io::FrameStackReader& reader, const AzimuthalIntegrator& integ,
                          size_t batch) {
    PathResult pr{"GPU, compressed chunks pushed"};
    const size_t rows = reader.rows(), cols = reader.cols(), frames = reader.frames();
    const size_t frame_bytes = rows * cols * 4;
    // Room for incompressible frames: LZ4's worst case plus the block lengths.
    const size_t capacity = batch * (frame_bytes + frame_bytes / 128 + 4096);
    PinnedBuffer pinned(ctx, capacity);
    Bslz4Decoder dec(ctx, Shape{rows, cols}, DType::uint32, batch, capacity);
    Graph graph(ctx);
    AzimuthalResult r;
    {
        auto capture = graph.capture();
        dec.record();
        r = integ.integrate(dec.output());
    }
    ctx.profile().clear();
    std::vector<uint8_t> chunk;
    std::vector<size_t> sizes;
    std::vector<ChunkCoding> coding;
    sample::Progress bar(pr.name, frames);
    const auto t0 = Clock::now();
    for (size_t first = 0; first < frames; first += batch) {
        const size_t n = std::min(batch, frames - first);
        const auto h0 = Clock::now();
        sizes.clear();
        coding.clear();
        size_t at = 0;
        for (size_t k = 0; k < n; ++k) {
            coding.push_back(reader.read_for_decoder(first + k, chunk));  // a chunk stored unfiltered: raw
            std::memcpy(pinned.data() + at, chunk.data(), chunk.size());
            at += chunk.size();
            sizes.push_back(chunk.size());
        }
        pr.host_seconds += seconds_since(h0);
        dec.push(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(pinned.data()), at), sizes, first, "frame",
                 coding);
        graph.run();
        dec.check();
        take_rows(r, n, integ.bins(), pr.profiles);
        bar.update(first + n);
    }
    pr.seconds = seconds_since(t0);
    bar.finish();
    pr.frames = frames;
    pr.gpu_ms_per_frame = gpu_ms(ctx, frames);
    return pr;
}

// The CPU reference on `count` frames spread over the stack.
PathResult cpu_reference(const io::FrameStackReader& reader, const AzimuthalIntegrator& integ, size_t count,
                         std::vector<size_t>& which) {
    PathResult pr{"CPU reference"};
    const size_t frames = reader.frames();
    count = count == 0 ? frames : std::min(count, frames);
    for (size_t k = 0; k < count; ++k) which.push_back(k * frames / count);
    const kiln::IntegrateParams params = integ.cpu_params();
    sample::Progress bar(pr.name, count);
    const auto t0 = Clock::now();
    for (size_t k = 0; k < count; ++k) {
        const auto p = cpu::integrate(integ.csr(), reader.read_frame(which[k]), params);
        pr.profiles.insert(pr.profiles.end(), p.intensity.begin(), p.intensity.end());
        bar.update(k + 1);
    }
    pr.seconds = seconds_since(t0);
    bar.finish();
    pr.frames = count;
    return pr;
}

// Largest relative difference of a GPU path from the CPU profiles.
double max_rel_diff(const PathResult& gpu, const PathResult& cpu, const std::vector<size_t>& which, size_t bins) {
    double worst = 0;
    for (size_t k = 0; k < which.size(); ++k)
        for (size_t b = 0; b < bins; ++b) {
            const double want = cpu.profiles[k * bins + b], got = gpu.profiles[which[k] * bins + b];
            if (want != 0) worst = std::max(worst, std::abs(got - want) / std::abs(want));
            else worst = std::max(worst, std::abs(got));
        }
    return worst;
}

int run(const Options& o) {
    sample::StackParams p;
    if (o.size == "small") {
        p.rows = 541;
        p.cols = 517;
        p.pixel = 300e-6;
        p.frames = 24;
    }
    if (o.frames) p.frames = o.frames;
    p.seed = o.seed;
    fs::create_directories(o.dir);
    std::string path = o.input;
    if (path.empty()) {
        path = (fs::path(o.dir) / sample::stack_name(p)).string();
        bool ok = fs::exists(path);
        if (ok) {
            io::FrameStackReader r(path);
            ok = r.rows() == p.rows && r.cols() == p.cols && r.frames() == p.frames && r.is_bslz4();
        }
        if (ok) std::printf("using the existing stack %s\n", path.c_str());
        else sample::write_stack(p, path);
    }
    io::FrameStackReader reader(path);
    if (!reader.gpu_decodable() || reader.dtype() != DType::uint32)
        throw InvalidArgument(path + " is not a little-endian uint32 bitshuffle-LZ4 stack with one frame per chunk");
    p.rows = reader.rows();
    p.cols = reader.cols();
    std::printf("stack %s: %zu frames of %zu x %zu uint32, %.1f MB compressed (%.1fx)\n", path.c_str(),
                reader.frames(), p.rows, p.cols, double(fs::file_size(path)) / 1e6,
                double(reader.frames() * p.rows * p.cols * 4) / double(fs::file_size(path)));

    ContextOptions copt;
    if (!o.device.empty()) {
        if (o.device.find_first_not_of("0123456789") == std::string::npos) copt.device_index = std::stoul(o.device);
        else copt.device_name = o.device;
    }
    Context ctx(copt);
    std::printf("device: %s (%s)\n", ctx.device().name.c_str(), ctx.device().driver.c_str());

    AzimuthalSetup s;
    s.geometry = sample::stack_geometry(p);
    s.unit = kiln::Radial::q_nm;
    s.bins = o.bins;
    s.split = o.split ? kiln::PixelSplit::bbox : kiln::PixelSplit::none;
    s.solid_angle = true;
    s.polarization_factor = 0.99;
    s.dummy = double(sample::gap_value);  // module gaps
    s.kernels = o.kernels == "separate" ? AzimuthalKernels::separate : AzimuthalKernels::fused;
    const auto t0 = Clock::now();
    AzimuthalIntegrator integ(ctx, s);
    std::printf("CSR matrix: %zu bins x %zu pixels, %zu non-zeros (%s), built on the CPU in %.2f s; sums in %s\n",
                integ.bins(), integ.pixels(), integ.csr().nnz(), o.split ? "pixel splitting" : "no splitting",
                seconds_since(t0), integ.float64() ? "float64" : "compensated float32");

    // A batch must fit one binding of the device (128 MiB on lavapipe).
    const size_t frame_bytes = p.rows * p.cols * 4;
    const size_t batch = std::max<size_t>(
        1, std::min({o.batch, reader.frames(), size_t(ctx.device().max_storage_buffer_range / (frame_bytes * 2))}));
    std::printf("frames per batch: %zu\n\n", batch);

    std::vector<size_t> which;
    PathResult cpu = cpu_reference(reader, integ, o.cpu_frames, which);
    if (cpu.frames < reader.frames())
        std::printf("(the CPU reference integrates %zu of the %zu frames: it is slow)\n", cpu.frames, reader.frames());
    PathResult raw = gpu_raw(ctx, reader, integ, batch);
    std::printf("\nGPU profile, raw frames pushed (ms):\n%s\n", ctx.profile().table().c_str());
    PathResult comp = gpu_compressed(ctx, reader, integ, batch);
    std::printf("\nGPU profile, compressed chunks pushed (ms):\n%s\n", ctx.profile().table().c_str());

    std::printf("%-32s %8s %10s %10s %14s %12s\n", "path", "frames", "seconds", "frames/s", "host read s",
                "GPU ms/frame");
    for (const PathResult* r : {&cpu, &raw, &comp})
        std::printf("%-32s %8zu %10.3f %10.1f %14.3f %12.4f\n", r->name.c_str(), r->frames, r->seconds,
                    r->frames / r->seconds, r->host_seconds, r->gpu_ms_per_frame);
    const double d_raw = max_rel_diff(raw, cpu, which, integ.bins());
    const double d_comp = max_rel_diff(comp, cpu, which, integ.bins());
    std::printf("\nlargest relative difference from the CPU reference: raw %.2e, compressed %.2e\n", d_raw, d_comp);

    const std::string npy = (fs::path(o.dir) / "azimuthal_profiles.npy").string();
    const std::string png = (fs::path(o.dir) / "azimuthal_profiles.png").string();
    io::write_npy(npy, HostArray::from(Shape{reader.frames(), integ.bins()}, comp.profiles));
    std::vector<sample::Curve> curves;
    std::vector<size_t> shown;
    for (size_t k = 0; k < 4 && k < reader.frames(); ++k) shown.push_back(k * reader.frames() / 4);
    for (size_t f : shown) {
        sample::Curve c;
        c.y.assign(comp.profiles.begin() + long(f * integ.bins()), comp.profiles.begin() + long((f + 1) * integ.bins()));
        curves.push_back(c);
    }
    const auto colours = sample::plot_profiles(png, integ.csr().bin_centers, curves);
    std::printf("wrote %s (%zu x %zu float32) and %s: q %.2f to %.2f nm^-1, log intensity; frames", npy.c_str(),
                reader.frames(), integ.bins(), png.c_str(), integ.csr().range_lo, integ.csr().range_hi);
    for (size_t k = 0; k < shown.size(); ++k) std::printf(" %zu (%s)", shown[k], colours[k].c_str());
    std::printf("\n");
    const bool ok = d_raw < 1e-4 && d_comp < 1e-4;
    if (!ok) std::printf("MISMATCH: the GPU profiles differ from the CPU reference\n");
    return ok ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "azimuthal: integrates a synthetic Eiger 4M stack (uint32 frames, silicon powder rings, Poisson noise, "
        "bitshuffle-LZ4 HDF5) to 1-D profiles in q three ways: CPU reference, GPU with raw frames pushed "
        "(decoded on the host), GPU with compressed chunks decoded on the device. The stack is generated once "
        "into --dir and reused when a file with the same parameters is there. Prints frames/s per path and the "
        "GPU profile per kernel; writes azimuthal_profiles.npy (frames x bins float32) and azimuthal_profiles.png "
        "(four profiles) into --dir. Exit status 2 if the GPU profiles differ from the CPU reference."};
    Options o;
    app.add_option("--size", o.size, "full: 2162 x 2068 pixels, 200 frames; small: 541 x 517, 24 frames")
        ->check(CLI::IsMember({"full", "small"}))
        ->capture_default_str();
    app.add_option("--frames", o.frames, "Frames in the generated stack (default: by --size)");
    app.add_option("--input", o.input, "Use this stack (uint32, bitshuffle-LZ4, /entry/data/data) instead of "
                                       "generating one; its geometry is taken to be the synthetic one");
    app.add_option("--dir", o.dir, "Folder for the generated stack and the outputs")->capture_default_str();
    app.add_option("--bins", o.bins, "Radial bins")->capture_default_str();
    app.add_flag("--split", o.split, "Pixel splitting (about twice the matrix entries)");
    app.add_option("--batch", o.batch, "Frames per GPU batch (fewer when the device's binding range needs it)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--cpu-frames", o.cpu_frames, "Frames the CPU reference integrates (0: all)")
        ->capture_default_str();
    app.add_option("--kernels", o.kernels, "fused: pre-processing inside the CSR kernel; separate: its own kernel")
        ->check(CLI::IsMember({"fused", "separate"}))
        ->capture_default_str();
    app.add_option("--seed", o.seed, "Seed of the synthetic stack")->capture_default_str();
    app.add_option("--device", o.device, "Device index or part of its name");
    CLI11_PARSE(app, argc, argv);
    try {
        return run(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "azimuthal: error: %s\n", e.what());
        return 1;
    }
}
