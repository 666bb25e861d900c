#pragma once
// What the viewer shows and how, shared by the viewer (samples/viewer/main.cpp)
// and its CPU check (check.cpp), so both read the same options the same way.
#include <CLI/CLI.hpp>

#include <string>

#include "compose.hpp"
#include "kiln/host_array.hpp"
#include "kiln/sky.hpp"

namespace viewer {

/// The control panel's strip at the right of the window, pixels.
constexpr int panel_width = 320;

struct Settings {
    std::string input;          ///< FITS, NPY or PNG file; empty: the synthetic sky
    kiln::SkyParams sky;        ///< the synthetic sky's size and seed
    double sigma = 2.0;         ///< the Gaussian blur's sigma, pixels
    int view = glsl::VIEW_GRID;
    int zoom = 0;               ///< 2^zoom times the size that fits
    int pan_x = 0, pan_y = 0;   ///< source pixels from the image's centre
    double kappa = 3.0;         ///< kappa-sigma clipping of the background
    double nsigma = 5.0;        ///< the mask: pixels > nsigma * clipped std
    int connectivity = 4;       ///< of the labelling: 4 or 8
    float low_sigmas = 2.0f;    ///< the stretch: black at median - low_sigmas * std,
    float high_sigmas = 300.0f; ///< white at median + high_sigmas * std
};

constexpr double min_sigma = 0.25, max_sigma = 32.0;
constexpr int min_zoom = -4, max_zoom = 6;

/// The view names the command line takes, by VIEW_* value.
const char* view_name(int view);

/// Adds the options both programs take (input, sky, blur, detection, view).
void add_options(CLI::App& app, Settings& s);

/// The image to show: the file (2-D; converted to float32) or the synthetic
/// sky. Throws kiln::IoError for an unreadable file, InvalidArgument for an
/// image that is not 2-D.
kiln::HostArray load_image(const Settings& s);

/// The picture's parameters for a window of width x height.
glsl::Params make_params(const Settings& s, int width, int height, const kiln::Shape& image);

}  // namespace viewer
