#include "settings.hpp"

#include <map>

#include "kiln/error.hpp"
#include "kiln/io.hpp"
#include "kiln/reference/elementwise.hpp"

namespace viewer {

namespace {

const std::map<std::string, int>& views() {
    static const std::map<std::string, int> v{{"grid", glsl::VIEW_GRID},
                                              {"image", glsl::VIEW_IMAGE},
                                              {"blur", glsl::VIEW_BLUR},
                                              {"mask", glsl::VIEW_MASK},
                                              {"labels", glsl::VIEW_LABELS}};
    return v;
}

}  // namespace

const char* view_name(int view) {
    for (const auto& [name, v] : views())
        if (v == view) return name.c_str();
    return "?";
}

void add_options(CLI::App& app, Settings& s) {
    app.add_option("FILE", s.input, "Image to show: a 2-D FITS, NPY, TIFF or PNG file (default: the synthetic sky)");
    app.add_option("--size", s.sky.size, "Size of the synthetic sky, pixels")
        ->check(CLI::Range(kiln::SkyParams::min_size, kiln::SkyParams::max_size))
        ->capture_default_str();
    app.add_option("--seed", s.sky.seed, "Seed of the synthetic sky")->capture_default_str();
    app.add_option("--sigma", s.sigma, "Sigma of the Gaussian blur, pixels")
        ->check(CLI::Range(min_sigma, max_sigma))
        ->capture_default_str();
    app.add_option("--view", s.view, "What to show: grid (all four), image, blur, mask or labels")
        ->transform(CLI::CheckedTransformer(views(), CLI::ignore_case).description(""))
        ->type_name("VIEW")
        ->default_str("grid");
    app.add_option("--zoom", s.zoom, "Magnification: 2^ZOOM times the size that fits")
        ->check(CLI::Range(min_zoom, max_zoom))
        ->capture_default_str();
    app.add_option("--pan", [&s](const CLI::results_t& r) {
        s.pan_x = std::stoi(r.at(0));
        s.pan_y = std::stoi(r.at(1));
        return true;
    }, "Source pixel (x, y) at the centre of a view, relative to the image's centre")
        ->expected(2)
        ->type_name("X Y");
    app.add_option("--kappa", s.kappa, "Background: kappa-sigma clipping threshold")
        ->check(CLI::Range(0.5, 100.0))
        ->capture_default_str();
    app.add_option("--nsigma", s.nsigma, "Mask: pixels > NSIGMA * clipped std")
        ->check(CLI::Range(0.0, 1e6))
        ->capture_default_str();
    app.add_option("--connectivity", s.connectivity, "Labelling: 4 or 8")
        ->check(CLI::IsMember({4, 8}))
        ->capture_default_str();
}

kiln::HostArray load_image(const Settings& s) {
    kiln::HostArray image;
    if (s.input.empty()) {
        image = kiln::synthetic_sky(s.sky);
    } else {
        image = kiln::io::read_array(s.input);
        if (image.shape.ndim() != 2)
            throw kiln::InvalidArgument(s.input + ": the viewer shows 2-D images; this one has shape " +
                                        image.shape.str());
    }
    if (image.dtype != kiln::DType::float32) image = kiln::cpu::cast(image, kiln::DType::float32);
    return image;
}

glsl::Params make_params(const Settings& s, int width, int height, const kiln::Shape& image) {
    glsl::Params p{};
    p.width = width;
    p.height = height;
    p.area_width = std::max(0, width - panel_width);
    p.image_w = static_cast<int>(image.x());
    p.image_h = static_cast<int>(image.y());
    p.view = s.view;
    p.zoom = s.zoom;
    p.pan_x = s.pan_x;
    p.pan_y = s.pan_y;
    p.low_sigmas = s.low_sigmas;
    p.high_sigmas = s.high_sigmas;
    return p;
}

}  // namespace viewer
