// Convolution and filter subcommands: convolve2d, convolve, convolve1d,
// gaussian-filter and gaussian-blur, with SciPy's and NumPy's semantics.
#include <array>
#include <memory>

#include "cli.hpp"
#include "kiln/convolve.hpp"
#include "kiln/filters.hpp"

namespace kiln::cli {

namespace {

CLI::Option* conv_mode_option(CLI::App* c, std::string& mode, const std::string& help) {
    return c->add_option("--mode", mode, help)
        ->check(CLI::IsMember({"full", "same", "valid"}))
        ->capture_default_str();
}

CLI::Option* nd_mode_option(CLI::App* c, std::string& mode) {
    return c->add_option("--mode", mode, "How the input extends beyond its edges (scipy.ndimage)")
        ->check(CLI::IsMember({"reflect", "constant", "nearest", "mirror", "wrap"}))
        ->capture_default_str();
}

}  // namespace

void register_convolve(CLI::App& app, Globals& g);
const CommandFamily convolve_family(register_convolve);

void register_convolve(CLI::App& app, Globals& g) {
    {
        auto image = std::make_shared<std::string>(), kernel = std::make_shared<std::string>();
        auto out = std::make_shared<std::string>();
        auto mode = std::make_shared<std::string>("full"),
             bound = std::make_shared<std::string>("fill");
        auto fill = std::make_shared<double>(0);
        auto* c = add_command(
            app, g, "convolve2d",
            "2-D convolution as scipy.signal.convolve2d (the kernel is flipped); float32 out, "
            "float64 when an input is float64",
            [=, &g] {
                save(g, convolve2d(load(g, *image), load(g, *kernel), parse_conv_mode(*mode),
                                parse_boundary(*bound), *fill),
                     *out);
            });
        c->add_option("IMAGE", *image, "Image file (.npy, .fits, .png), 2-D")->required();
        c->add_option("KERNEL", *kernel, "Kernel file, 2-D")->required();
        add_output(c, g, "-o,--output", *out, "Output file (.npy, .fits, .png)")->required();
        conv_mode_option(c, *mode, "Output extent: full (H+KH-1 x W+KW-1), same (H x W) or valid");
        c->add_option("--boundary", *bound,
                      "Outside the image: fill (with --fillvalue), wrap or symm (mirror)")
            ->check(CLI::IsMember({"fill", "wrap", "symm"}))
            ->capture_default_str();
        c->add_option("--fillvalue", *fill, "Value outside the image with --boundary fill")
            ->capture_default_str();
    }
    {
        auto a = std::make_shared<std::string>(), v = std::make_shared<std::string>();
        auto out = std::make_shared<std::string>();
        auto mode = std::make_shared<std::string>("full");
        auto* c = add_command(
            app, g, "convolve",
            "1-D convolution as numpy.convolve (the longer array is the signal)",
            [=, &g] { save(g, convolve(load(g, *a), load(g, *v), parse_conv_mode(*mode)), *out); });
        c->add_option("A", *a, "First 1-D array file")->required();
        c->add_option("V", *v, "Second 1-D array file")->required();
        add_output(c, g, "-o,--output", *out, "Output file")->required();
        conv_mode_option(c, *mode, "full (M+N-1 values), same (max(M, N)) or valid (max - min + 1)");
    }
    {
        auto in = std::make_shared<std::string>(), out = std::make_shared<std::string>();
        auto weights = std::make_shared<std::string>();
        auto axis = std::make_shared<int>(-1), origin = std::make_shared<int>(0);
        auto mode = std::make_shared<std::string>("reflect");
        auto cval = std::make_shared<double>(0);
        auto* c = add_command(
            app, g, "convolve1d",
            "Convolution along one axis as scipy.ndimage.convolve1d; float32 out for integer input",
            [=, &g] {
                save(g, convolve1d(load(g, *in), parse_numbers(*weights, "--weights", "1,2,1"), *axis, parse_nd_mode(*mode), *cval,
                                *origin),
                     *out);
            });
        c->add_option("INPUT", *in, "Input array file (1-, 2- or 3-D)")->required();
        c->add_option("--weights", *weights, "Comma-separated weights, e.g. 1,2,1")->required();
        c->add_option("--axis", *axis, "Axis to convolve along (negative counts from the last)")
            ->capture_default_str();
        nd_mode_option(c, *mode);
        c->add_option("--cval", *cval, "Value outside the input with --mode constant")
            ->capture_default_str();
        c->add_option("--origin", *origin, "Shift of the window: -(size/2) .. (size-1)/2")
            ->capture_default_str();
        add_output(c, g, "-o,--output", *out, "Output file")->required();
    }
    {
        auto in = std::make_shared<std::string>(), out = std::make_shared<std::string>();
        auto sigma = std::make_shared<double>(0);
        // Per-axis sigmas (z, y, x), each with its option, to tell "given" from not.
        auto axes = std::make_shared<std::array<std::pair<double, CLI::Option*>, 3>>();
        auto sigma_option = std::make_shared<CLI::Option*>();
        auto mode = std::make_shared<std::string>("reflect");
        auto cval = std::make_shared<double>(0), truncate = std::make_shared<double>(4.0);
        auto* c = add_command(
            app, g, "gaussian-filter",
            "Gaussian filter as scipy.ndimage.gaussian_filter; float32 out for integer input. Give "
            "--sigma (every axis), or --sigma-x/--sigma-y/--sigma-z (per axis)",
            [=, &g] {
                bool per_axis = false;
                for (const auto& a : *axes) per_axis = per_axis || a.second->count() > 0;
                // A usage error like CLI11's own (exit code 2).
                if (!per_axis && (*sigma_option)->count() == 0)
                    throw CLI::RequiredError("--sigma (every axis) or --sigma-x/--sigma-y/--sigma-z (per axis)");
                std::array<double, 3> zyx;
                for (size_t i = 0; i < 3; ++i)
                    zyx[i] = per_axis ? ((*axes)[i].second->count() ? (*axes)[i].first : 0.0) : *sigma;
                save(g, gaussian_filter(load(g, *in), zyx, parse_nd_mode(*mode), *cval, *truncate), *out);
            });
        c->add_option("INPUT", *in, "Input array file (1-, 2- or 3-D)")->required();
        *sigma_option = c->add_option("--sigma", *sigma,
                                      "Standard deviation along every axis (0 leaves an axis alone); or give "
                                      "--sigma-x/--sigma-y/--sigma-z instead");
        const char* names[3][2] = {{"--sigma-z", "Sigma along z (3-D), instead of --sigma"},
                                   {"--sigma-y", "Sigma along y, instead of --sigma"},
                                   {"--sigma-x", "Sigma along x (the last axis), instead of --sigma; an axis "
                                                 "whose sigma is not given is left alone"}};
        for (size_t i = 0; i < 3; ++i) {
            (*axes)[i].second = c->add_option(names[i][0], (*axes)[i].first, names[i][1]);
            (*sigma_option)->excludes((*axes)[i].second);
        }
        nd_mode_option(c, *mode);
        c->add_option("--cval", *cval, "Value outside the input with --mode constant")
            ->capture_default_str();
        c->add_option("--truncate", *truncate,
                      "Radius in sigmas: int(truncate * sigma + 0.5) weights each side")
            ->capture_default_str();
        add_output(c, g, "-o,--output", *out, "Output file")->required();
    }
    {
        auto in = std::make_shared<std::string>(), out = std::make_shared<std::string>();
        auto sx = std::make_shared<double>(0), sy = std::make_shared<double>(-1),
             sz = std::make_shared<double>(-1);
        auto* c = add_command(
            app, g, "gaussian-blur",
            "Gaussian blur (pyclesperanto's arguments, scipy.ndimage's semantics: mode reflect, "
            "truncate 4)",
            [=, &g] { save(g, gaussian_blur(load(g, *in), *sx, *sy, *sz), *out); });
        c->add_option("IMAGE", *in, "Input image file (2-D, or 3-D, or 1-D)")->required();
        c->add_option("--sigma-x", *sx, "Sigma along x, > 0")->required();
        c->add_option("--sigma-y", *sy, "Sigma along y (default: --sigma-x)");
        c->add_option("--sigma-z", *sz, "Sigma along z of a 3-D image (default: --sigma-x)");
        add_output(c, g, "-o,--output", *out, "Output file")->required();
    }
}

}  // namespace kiln::cli
