#pragma once
// A line plot of a few integrated profiles, drawn into an RGB buffer and
// written as PNG (no plotting library: axes, grid lines, one colour per curve).
#include <string>
#include <vector>

namespace sample {

struct Curve {
    std::vector<double> y;  ///< one value per x; non-finite values break the line
};

/// Plots the curves against x on a linear x axis and a log10 y axis (values
/// <= 0 are left out) and writes a width x height PNG. Returns the colours
/// used, as "#rrggbb", in curve order (for a legend printed beside it).
std::vector<std::string> plot_profiles(const std::string& path, const std::vector<double>& x,
                                       const std::vector<Curve>& curves, int width = 1000, int height = 600);

}  // namespace sample
