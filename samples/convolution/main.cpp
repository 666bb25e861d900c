// The CuPy lesson's convolutions with kiln: a Dirac grid convolved with a
// 15 x 15 Gaussian (as scipy.signal.convolve2d), then the raveled grid with
// the Gaussian's diagonal (as numpy.convolve), each on the CPU reference and
// on the GPU, with the times, the speedup, the time including the transfers
// and an allclose check. Writes PNGs of the input's and the result's top-left
// 32 x 32 corner and of the filter.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>

#include "kiln/convolve.hpp"
#include "kiln/io.hpp"
#include "kiln/kiln.hpp"
#include "kiln/reference/convolve.hpp"

namespace {

using namespace kiln;

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Wall time of a push, the operation and a pull, as the lesson's
// cp.asarray ... cp.asnumpy: the median of max(3, repeats) rounds.
double median_wall(int repeats, const std::function<void()>& round_trip) {
    std::vector<double> walls;
    for (int i = 0; i < std::max(3, repeats); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        round_trip();
        walls.push_back(ms_since(t0));
    }
    return median_of(walls);
}

// numpy.allclose(got, want) with rtol 1e-5, atol 1e-8, and the largest errors.
bool allclose(const HostArray& got, const HostArray& want) {
    double max_abs = 0, max_rel = 0;
    bool ok = got.shape == want.shape;
    for (size_t i = 0; ok && i < want.size(); ++i) {
        const double g = got.at(i), w = want.at(i), d = std::abs(g - w);
        max_abs = std::max(max_abs, d);
        if (w != 0) max_rel = std::max(max_rel, d / std::abs(w));
        if (!(d <= 1e-8 + 1e-5 * std::abs(w))) ok = false;
    }
    std::printf("  allclose (rtol 1e-5, atol 1e-8): %s; max abs error %.3g, max rel error %.3g\n",
                ok ? "yes" : "NO", max_abs, max_rel);
    return ok;
}

void report(double cpu, double gpu, double with_transfers) {
    std::printf("  CPU %10.2f ms   GPU %9.4f ms   speedup %8.1fx\n", cpu, gpu,
                gpu > 0 ? cpu / gpu : 0.0);
    std::printf(
        "  GPU including push of the inputs and pull of the result: %.3f ms (speedup %.1fx)\n",
        with_transfers, with_transfers > 0 ? cpu / with_transfers : 0.0);
}

HostArray corner(const HostArray& a, size_t n) {
    const size_t w = a.shape[1], h = std::min(n, a.shape[0]), cw = std::min(n, w);
    HostArray c(Shape{h, cw}, a.dtype);
    const size_t es = dtype_size(a.dtype);
    auto* dst = static_cast<std::byte*>(c.data());
    const auto* src = static_cast<const std::byte*>(a.data());
    for (size_t y = 0; y < h; ++y) std::memcpy(dst + y * cw * es, src + y * w * es, cw * es);
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "The CuPy lesson's convolutions on the CPU reference and the GPU: a Dirac grid (ones at "
        "[8::16, 8::16]) with a 15 x 15 Gaussian (scipy.signal.convolve2d), then the raveled grid "
        "with the Gaussian's diagonal (numpy.convolve). Prints times, speedups and an allclose "
        "check; "
        "writes convolution_input.png, convolution_filter.png and convolution_result.png"};
    size_t size = 2048;
    std::string out_dir = ".", device;
    int repeats = 10;
    app.add_option("--size", size, "Side of the square Dirac grid")
        ->check(CLI::Range(16, 16384))
        ->capture_default_str();
    app.add_option("--output-dir", out_dir, "Where the PNGs go (created if missing)")
        ->capture_default_str();
    app.add_option("--device", device,
                   "Device index or part of its name (else KILN_DEVICE, else the best GPU)");
    app.add_option("--repeat", repeats, "GPU runs timed (the median is reported)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    try {
        ContextOptions o;
        o.timing = Timing::submission;
        if (!device.empty()) {
            if (device.find_first_not_of("0123456789") == std::string::npos)
                o.device_index = std::stoul(device);
            else
                o.device_name = device;
        }
        Context ctx(o);
        std::printf("kiln convolution sample on %s\n", ctx.device().name.c_str());

        std::printf("building the %zu x %zu Dirac grid and the 15 x 15 Gaussian\n", size, size);
        HostArray grid(Shape{size, size}, DType::float32);
        for (size_t y = 8; y < size; y += 16)
            for (size_t x = 8; x < size; x += 16) grid.as<float>()[y * size + x] = 1.0f;
        std::vector<double> lin(15);
        for (int i = 0; i < 15; ++i)
            lin[i] = i == 14 ? 2.0 : -2.0 + i * (4.0 / 14.0);  // numpy.linspace
        HostArray gauss(Shape{15, 15}, DType::float32);
        for (int j = 0; j < 15; ++j)
            for (int i = 0; i < 15; ++i) {
                const double d = std::sqrt(lin[i] * lin[i] + lin[j] * lin[j]);
                gauss.as<float>()[j * 15 + i] = static_cast<float>(std::exp(-(d * d / 2.0)));
            }

        std::printf("2-D convolution (full, fill 0), float32: the CPU reference...\n");
        auto t0 = std::chrono::steady_clock::now();
        const HostArray want = cpu::convolve2d(grid, gauss);
        const double cpu2d = ms_since(t0);
        std::printf("  ... and the GPU\n");
        Array image = Array::from_host(ctx, grid), kernel = Array::from_host(ctx, gauss), result;
        const BenchmarkResult b2d = benchmark(
            ctx, [&] { result = convolve2d(image, kernel); }, repeats, 2, "convolve2d");
        // As the lesson's cp.asarray and cp.asnumpy: both inputs from host memory, the result back
        // to it.
        HostArray got(want.shape, DType::float32);
        report(cpu2d, b2d.gpu_median(), median_wall(repeats, [&] {
                   image.push(grid.data(), grid.nbytes());
                   kernel.push(gauss.data(), gauss.nbytes());
                   convolve2d(image, kernel).pull(got.data(), got.nbytes());
               }));
        bool ok = allclose(got, want);

        std::filesystem::create_directories(out_dir);
        const std::string dir = out_dir + "/";
        io::write_png_gray(dir + "convolution_input.png", corner(grid, 32), io::Stretch::linear);
        io::write_png_gray(dir + "convolution_filter.png", gauss, io::Stretch::linear);
        io::write_png_gray(dir + "convolution_result.png", corner(got, 32), io::Stretch::linear);
        std::printf(
            "  wrote %sconvolution_input.png, convolution_filter.png, convolution_result.png "
            "(top-left "
            "32 x 32)\n",
            dir.c_str());

        std::printf(
            "1-D convolution (numpy.convolve full) of the raveled grid (%zu values) with the "
            "Gaussian's diagonal, float64: the CPU reference...\n",
            size * size);
        HostArray line(Shape{size * size}, DType::float64), diag(Shape{15}, DType::float64);
        for (size_t i = 0; i < line.size(); ++i) line.as<double>()[i] = grid.as<float>()[i];
        for (int i = 0; i < 15; ++i) diag.as<double>()[i] = gauss.as<float>()[i * 15 + i];
        t0 = std::chrono::steady_clock::now();
        const HostArray want1d = cpu::convolve(line, diag);
        const double cpu1d = ms_since(t0);
        std::printf("  ... and the GPU\n");
        Array a = Array::from_host(ctx, line), v = Array::from_host(ctx, diag), r1d;
        const BenchmarkResult b1d = benchmark(
            ctx, [&] { r1d = convolve(a, v); }, repeats, 2, "convolve");
        HostArray got1d(want1d.shape, DType::float64);
        report(cpu1d, b1d.gpu_median(), median_wall(repeats, [&] {
                   a.push(line.data(), line.nbytes());
                   v.push(diag.data(), diag.nbytes());
                   convolve(a, v).pull(got1d.data(), got1d.nbytes());
               }));
        ok = allclose(got1d, want1d) && ok;
        std::printf(ok ? "done: the GPU results agree with the CPU's\n" : "done: RESULTS DIFFER\n");
        return ok ? 0 : 1;
    } catch (const kiln::Error& e) {
        std::cerr << "convolution: error: " << e.what() << "\n";
        return 1;
    }
}
