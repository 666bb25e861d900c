// The radio-astronomy pipeline of the CuPy lesson, on the GPU and on the CPU
// reference: background statistics by kappa-sigma clipping, 5-sigma
// segmentation, connected component labelling, positions and fluxes.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "kiln/io.hpp"
#include "kiln/kiln.hpp"
#include "kiln/label.hpp"
#include "kiln/measure.hpp"
#include "kiln/reference/clip.hpp"
#include "kiln/reference/elementwise.hpp"
#include "kiln/reference/label.hpp"
#include "kiln/reference/measure.hpp"
#include "kiln/sky.hpp"
#include "kiln/statistics.hpp"

using namespace kiln;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

template <typename F> double cpu_ms(F&& f, int repeat) {
    std::vector<double> t;
    for (int i = 0; i < repeat; ++i) {
        auto t0 = Clock::now();
        f();
        t.push_back(ms_since(t0));
    }
    return median_of(t);
}

struct Step {
    std::string name;
    double cpu = 0, gpu = 0;
};

bool close(double a, double b, double rtol) {
    return std::abs(a - b) <= rtol * std::max(std::abs(a), std::abs(b)) || (std::isnan(a) && std::isnan(b));
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"kiln astronomy sample: the radio-astronomy lesson (kappa-sigma clipping, 5-sigma segmentation,\n"
                 "connected component labelling, centres of mass and fluxes) on the GPU and the CPU reference.\n"
                 "Without an input file it generates a synthetic 2048x2048 sky (fixed seed)."};
    std::string input, extension, outdir = ".", device;
    kiln::SkyParams sky;
    double kappa = 3.0, nsigma = 5.0;
    int connectivity = 4, repeat = 5;
    app.add_option("FITS", input, "Input FITS image (2-D); default: the synthetic sky")->check(CLI::ExistingFile);
    app.add_option("--extension", extension, "Image extension of the FITS file (default: primary or first image)");
    app.add_option("--size", sky.size, "Size of the synthetic sky")->capture_default_str();
    app.add_option("--seed", sky.seed, "Seed of the synthetic sky")->capture_default_str();
    app.add_option("--kappa", kappa, "Clipping threshold in standard deviations")->capture_default_str();
    app.add_option("--nsigma", nsigma, "Segmentation threshold: pixels > nsigma * clipped std")->capture_default_str();
    app.add_option("--connectivity", connectivity, "4 or 8")->check(CLI::IsMember({4, 8}))->capture_default_str();
    app.add_option("--repeat", repeat, "Timed repetitions of each step (medians are reported)")
        ->check(CLI::Range(1, 1000))->capture_default_str();
    app.add_option("--output-dir", outdir, "Where the PNG and CSV go")->capture_default_str();
    app.add_option("--device", device, "Device index or part of its name (default: the best GPU)");
    CLI11_PARSE(app, argc, argv);

    try {
        ContextOptions o;
        o.timing = Timing::submission;
        if (!device.empty()) {
            if (device.find_first_not_of("0123456789") == std::string::npos) o.device_index = std::stoul(device);
            else o.device_name = device;
        }
        Context ctx(o);
        std::printf("device: %s (%s)\n", ctx.device().name.c_str(), ctx.device().driver.c_str());

        HostArray image;
        if (input.empty()) {
            std::printf("input: synthetic sky %zux%zu, noise %.3f Jy/beam, %d compact sources, seed %llu\n",
                        sky.size, sky.size, sky.noise_sigma, sky.n_compact,
                        static_cast<unsigned long long>(sky.seed));
            image = kiln::synthetic_sky(sky);
        } else {
            image = io::read_fits(input, extension);
            std::printf("input: %s, shape %s, %s\n", input.c_str(), image.shape.str().c_str(),
                        std::string(dtype_name(image.dtype)).c_str());
            if (image.shape.ndim() != 2) throw InvalidArgument("the sample needs a 2-D image; this one has shape " + image.shape.str());
        }
        if (image.dtype != DType::float32) image = cpu::cast(image, DType::float32);

        // CPU reference, step by step.
        std::vector<Step> steps(4);
        steps[0].name = "kappa-sigma clipping";
        steps[1].name = "5-sigma segmentation";
        steps[2].name = "labelling";
        steps[3].name = "centres of mass, fluxes";
        std::printf("running the CPU reference...\n");
        std::fflush(stdout);
        int cpu_repeat = std::max(1, std::min(repeat, 3));
        cpu::ClipResult cclip;
        HostArray cmask;
        cpu::LabelResult clab;
        std::vector<kiln::LabelStats> cstats;
        steps[0].cpu = cpu_ms([&] { cclip = cpu::kappa_sigma_clip(image, kappa); }, cpu_repeat);
        const double cut = nsigma * cclip.std;
        steps[1].cpu = cpu_ms([&] { cmask = cpu::threshold(image, cut); }, cpu_repeat);
        steps[2].cpu = cpu_ms([&] { clab = cpu::label(cmask, connectivity); }, cpu_repeat);
        steps[3].cpu = cpu_ms([&] { cstats = cpu::measure(image, clab.labels); }, cpu_repeat);
        double cpu_total = 0;
        for (auto& s : steps) cpu_total += s.cpu;

        // GPU, step by step (GPU time from timestamps), inputs on the device.
        std::printf("running on the GPU...\n");
        std::fflush(stdout);
        Array d = Array::from_host(ctx, image);
        ClipResult gclip;
        Array gmask;
        Labels glab;
        std::vector<LabelStats> gstats;
        steps[0].gpu = benchmark(ctx, [&] { gclip = kappa_sigma_clip(d, kappa); }, repeat, 1).gpu_median();
        const double gcut = nsigma * gclip.std;
        steps[1].gpu = benchmark(ctx, [&] { gmask = threshold(d, gcut); }, repeat, 1).gpu_median();
        steps[2].gpu = benchmark(ctx, [&] { glab = label(gmask, connectivity); }, repeat, 1).gpu_median();
        steps[3].gpu = benchmark(ctx, [&] { gstats = measure(d, glab); }, repeat, 1).gpu_median();

        // End to end: push the image, the four steps, pull the catalogue.
        // The steps are chained on the device (the clipped std and the label
        // count are never read back in between): one read-back, of the table.
        std::vector<double> e2e;
        size_t e2e_sources = 0;
        for (int i = 0; i < repeat + 1; ++i) {
            auto t0 = Clock::now();
            Array x = Array::from_host(ctx, image);
            ClipResultAsync c = kappa_sigma_clip_async(x, kappa);
            auto table = measure_async(x, label_async(threshold(x, c.stats, 1, nsigma), connectivity)).stats();
            if (i) e2e.push_back(ms_since(t0));  // the first run warms up
            e2e_sources = table.size();
        }
        double gpu_e2e = median_of(e2e);

        // Agreement.
        bool stats_ok = close(cclip.median, gclip.median, 1e-6) && close(cclip.std, gclip.std, 1e-5) &&
                        cclip.count == gclip.count && cclip.iterations == gclip.iterations;
        HostArray glabels = glab.labels.to_host();
        bool labels_ok = glab.count == clab.count && glabels.bytes == clab.labels.bytes &&
                         e2e_sources == size_t(clab.count);  // the chained run found as many
        bool measure_ok = gstats.size() == cstats.size();
        double worst_pos = 0, worst_flux = 0;
        for (size_t i = 0; measure_ok && i < cstats.size(); ++i) {
            for (int k = 1; k < 3; ++k)
                worst_pos = std::max(worst_pos, std::abs(gstats[i].center_of_mass[k] - cstats[i].center_of_mass[k]));
            worst_flux = std::max(worst_flux, std::abs(gstats[i].sum - cstats[i].sum) / std::max(1e-30, std::abs(cstats[i].sum)));
        }
        measure_ok = measure_ok && worst_pos < 1e-6 && worst_flux < 1e-6;

        std::printf("\nbackground (kappa-sigma clipping, kappa %.1f): median %.6g, std %.6g, mean %.6g Jy/beam, "
                    "%zu pixels kept, %d iterations\n",
                    kappa, gclip.median, gclip.std, gclip.mean, gclip.count, gclip.iterations);
        std::printf("segmentation: pixels > %.1f sigma = %.6g Jy/beam; %d sources (%d-connectivity)\n", nsigma, gcut,
                    glab.count, connectivity);
        std::vector<size_t> order(gstats.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return gstats[a].sum > gstats[b].sum; });
        std::printf("\nten highest integrated fluxes:\n  %6s %10s %10s %8s %14s\n", "label", "y", "x", "pixels",
                    "flux (Jy/beam)");
        for (size_t i = 0; i < std::min<size_t>(10, order.size()); ++i) {
            const auto& s = gstats[order[i]];
            std::printf("  %6d %10.3f %10.3f %8lld %14.6g\n", s.label, s.center_of_mass[1], s.center_of_mass[2],
                        static_cast<long long>(s.count), s.sum);
        }
        std::printf("\n%-26s %12s %12s %10s\n", "step", "CPU ms", "GPU ms", "speedup");
        for (auto& s : steps)
            std::printf("%-26s %12.3f %12.4f %9.1fx\n", s.name.c_str(), s.cpu, s.gpu, s.cpu / std::max(s.gpu, 1e-9));
        std::printf("%-26s %12.3f %12.4f %9.1fx   (GPU: wall time incl. push of the image, pull of the catalogue)\n",
                    "end to end", cpu_total, gpu_e2e, cpu_total / gpu_e2e);
        std::printf("\nCPU and GPU agree: statistics %s, labels %s, positions and fluxes %s (max |dpos| %.2g px, max "
                    "rel dflux %.2g)\n",
                    stats_ok ? "yes" : "NO", labels_ok ? "yes" : "NO", measure_ok ? "yes" : "NO", worst_pos, worst_flux);

        if (!stats_ok)
            std::printf("  CPU statistics: median %.9g, std %.9g, %zu kept, %d iterations; GPU: median %.9g, std %.9g, "
                        "%zu kept, %d iterations\n",
                        cclip.median, cclip.std, cclip.count, cclip.iterations, gclip.median, gclip.std, gclip.count,
                        gclip.iterations);
        std::filesystem::create_directories(outdir);
        std::string png = (std::filesystem::path(outdir) / "astronomy_sources.png").string();
        std::string csv = (std::filesystem::path(outdir) / "astronomy_catalogue.csv").string();
        auto rgb = io::gray_to_rgb_with_outlines(image, glabels, io::Stretch::log, {255, 64, 32});
        io::write_png_rgb(png, static_cast<int>(image.shape.x()), static_cast<int>(image.shape.y()), rgb);
        {
            std::ofstream out(csv);
            out << kiln::stats_to_csv(gstats, 2);
        }
        std::printf("wrote %s (log stretch, sources outlined) and %s\n", png.c_str(), csv.c_str());
        return stats_ok && labels_ok && measure_ok ? 0 : 2;
    } catch (const kiln::Error& e) {
        std::fprintf(stderr, "astronomy: error: %s\n", e.what());
        return 1;
    }
}
