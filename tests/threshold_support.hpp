#pragma once
// The threshold and label-tool fixtures (tests/data/make_threshold.py,
// make_label_tools.py): names, and the .npy files read as host arrays.
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/io.hpp"

namespace kiln::test {

inline const std::vector<std::string> threshold_images{"f32", "f32_skew", "f64_3d", "u8", "i16", "u16"};
inline const std::vector<std::string> label_images{"l2", "l3"};

/// tests/data/<relative>.npy as it was written.
inline HostArray image_fixture(const std::string& relative) { return npy_fixture(relative + ".npy"); }

/// scikit-image's [otsu, yen, triangle, li, tolerance, li(tolerance)] of an image.
struct Thresholds {
    double otsu, yen, triangle, li, tolerance, li_tol;
};
inline Thresholds thresholds(const std::string& name) {
    const auto v = npy_values("threshold/" + name + "_thresholds.npy");
    return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

}  // namespace kiln::test
