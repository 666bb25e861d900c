// The viewer's CI check: the picture a viewer screenshot shows, computed on
// the CPU (kiln's CPU references for the clipping, the mask, the labels and
// the blur; compose.glsl's layout and colours run on the host), compared
// pixel by pixel with the screenshot over the image area (the control panel
// on the right is the GUI's and is not compared).
#include <CLI/CLI.hpp>
#include <stb/stb_image.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "kiln/error.hpp"
#include "kiln/io.hpp"
#include "picture.hpp"
#include "settings.hpp"

using namespace viewer;

namespace {

uint8_t channel(uint32_t rgba, int c) { return static_cast<uint8_t>((rgba >> (8 * c)) & 255u); }

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Compares a viewer screenshot (viewer --frames N --screenshot FILE) with the same picture computed on\n"
        "the CPU. Give the options the viewer was given; the window's size comes from the screenshot. Pixels\n"
        "whose channels all lie within --tolerance levels agree; the check passes when at most --max-fraction\n"
        "of the image area's pixels do not. On failure the CPU picture and a map of the differing pixels are\n"
        "written beside the screenshot (or into --output-dir)."};
    Settings s;
    s.sky.size = 1024;  // the viewer's default
    add_options(app, s);
    std::string screenshot, outdir;
    int tolerance = 2;
    double max_fraction = 0.001;
    int sources = -1;
    app.add_option("--screenshot", screenshot, "The viewer's PNG")->required()->check(CLI::ExistingFile);
    app.add_option("--tolerance", tolerance, "Levels (of 255) a channel may differ by")
        ->check(CLI::Range(0, 255))
        ->capture_default_str();
    app.add_option("--max-fraction", max_fraction, "Largest fraction of image-area pixels allowed to differ")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    app.add_option("--sources", sources, "The source count the viewer reported: must equal the CPU's");
    app.add_option("--output-dir", outdir, "Where the pictures go on failure (default: beside the screenshot)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    try {
        int w = 0, h = 0, n = 0;
        std::unique_ptr<uint8_t, void (*)(void*)> png(stbi_load(screenshot.c_str(), &w, &h, &n, 3), stbi_image_free);
        if (!png)
            throw kiln::IoError(screenshot + ": not a PNG stb_image can read (" +
                                std::string(stbi_failure_reason() ? stbi_failure_reason() : "no reason") + ")");
        const kiln::HostArray image = load_image(s);
        const glsl::Params p = make_params(s, w, h, image.shape);
        const CpuResults cpu = cpu_pipeline(image, s);
        const std::vector<uint32_t> want = cpu_picture(p, image, cpu);

        size_t differ = 0, compared = 0;
        int worst = 0;
        std::vector<uint8_t> diff(size_t(w) * h * 3), ref(size_t(w) * h * 3);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const size_t i = size_t(y) * w + x;
                int d = 0;
                for (int c = 0; c < 3; ++c) {
                    ref[3 * i + c] = channel(want[i], c);
                    d = std::max(d, std::abs(int(png.get()[3 * i + c]) - int(ref[3 * i + c])));
                }
                if (x >= p.area_width) continue;  // the panel
                ++compared;
                worst = std::max(worst, d);
                const bool bad = d > tolerance;
                differ += bad;
                const uint8_t g = bad ? 255 : static_cast<uint8_t>(ref[3 * i + 1] / 4);
                diff[3 * i + 0] = g;
                diff[3 * i + 1] = bad ? 0 : g;
                diff[3 * i + 2] = bad ? 0 : g;
            }
        const double fraction = compared ? double(differ) / double(compared) : 1.0;
        bool ok = compared > 0 && fraction <= max_fraction;
        std::printf("viewer_check: %d x %d screenshot, image area %d x %d (%s view); CPU: %d sources, background "
                    "median %.4g std %.4g\n",
                    w, h, p.area_width, h, view_name(s.view), cpu.count, double(cpu.median), double(cpu.std));
        std::printf("viewer_check: %zu of %zu pixels differ by more than %d levels (%.4f%%, allowed %.4f%%); "
                    "largest difference %d levels\n",
                    differ, compared, tolerance, 100.0 * fraction, 100.0 * max_fraction, worst);
        if (sources >= 0) {
            std::printf("viewer_check: sources: viewer %d, CPU %d\n", sources, cpu.count);
            ok = ok && sources == cpu.count;
        }
        if (!ok) {
            const std::filesystem::path dir =
                outdir.empty() ? std::filesystem::absolute(screenshot).parent_path() : std::filesystem::path(outdir);
            const std::string stem = std::filesystem::path(screenshot).stem().string();
            const std::string ref_png = (dir / (stem + "-cpu.png")).string();
            const std::string diff_png = (dir / (stem + "-diff.png")).string();
            kiln::io::write_png_rgb(ref_png, w, h, ref);
            kiln::io::write_png_rgb(diff_png, w, h, diff);
            std::printf("viewer_check: FAILED; the viewer's picture: %s, the CPU's: %s, differing pixels in red: %s\n",
                        screenshot.c_str(), ref_png.c_str(), diff_png.c_str());
            return 1;
        }
        std::printf("viewer_check: the screenshot matches the CPU picture\n");
        return 0;
    } catch (const kiln::IoError& e) {
        std::fprintf(stderr, "viewer_check: error: %s\n", e.what());
        return 4;
    } catch (const kiln::Error& e) {
        std::fprintf(stderr, "viewer_check: error: %s\n", e.what());
        return 1;
    }
}
