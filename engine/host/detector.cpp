#include "kiln/detector.hpp"

#include <algorithm>
#include <cctype>

#include "kiln/error.hpp"

namespace kiln {
namespace {

struct Family {
    double pixel;
    size_t module_rows, module_cols, gap_rows, gap_cols, mid_gap_cols;
};
// pyFAI 0.21's pyFAI/detectors/_dectris.py: MODULE_SIZE, MODULE_GAP and pixel size per family.
constexpr Family eiger{75e-6, 514, 1030, 37, 10, 0};
constexpr Family eiger2{75e-6, 512, 1028, 38, 12, 0};
constexpr Family eiger2_cdte{75e-6, 512, 1028, 38, 12, 2};
constexpr Family pilatus{172e-6, 195, 487, 17, 7, 0};
constexpr Family pilatus_cdte{172e-6, 195, 487, 17, 7, 3};

struct Model {
    const char* name;   // pyFAI's class name
    const char* alias;  // pyFAI's alias
    const Family* family;
    size_t rows, cols;  // MAX_SHAPE
};
constexpr Model models[] = {
    {"Eiger500k", "Eiger 500k", &eiger, 514, 1030},
    {"Eiger1M", "Eiger 1M", &eiger, 1065, 1030},
    {"Eiger4M", "Eiger 4M", &eiger, 2167, 2070},
    {"Eiger9M", "Eiger 9M", &eiger, 3269, 3110},
    {"Eiger16M", "Eiger 16M", &eiger, 4371, 4150},
    {"Eiger2_500k", "Eiger2 500k", &eiger2, 512, 1028},
    {"Eiger2_1M", "Eiger2 1M", &eiger2, 1062, 1028},
    {"Eiger2_1MW", "Eiger2 1M-W", &eiger2, 512, 2068},
    {"Eiger2_2MW", "Eiger2 2M-W", &eiger2, 512, 4148},
    {"Eiger2_4M", "Eiger2 4M", &eiger2, 2162, 2068},
    {"Eiger2_9M", "Eiger2 9M", &eiger2, 3262, 3108},
    {"Eiger2_16M", "Eiger2 16M", &eiger2, 4362, 4148},
    {"Eiger2CdTe_500k", "Eiger2 CdTe 500k", &eiger2_cdte, 512, 1028},
    {"Eiger2CdTe_1M", "Eiger2 CdTe 1M", &eiger2_cdte, 1062, 1028},
    {"Eiger2CdTe_1MW", "Eiger2 CdTe 1M-W", &eiger2_cdte, 512, 2068},
    {"Eiger2CdTe_2MW", "Eiger2 CdTe 2M-W", &eiger2_cdte, 512, 4148},
    {"Eiger2CdTe_4M", "Eiger2 CdTe 4M", &eiger2_cdte, 2162, 2068},
    {"Eiger2CdTe_9M", "Eiger2 CdTe 9M", &eiger2_cdte, 3262, 3108},
    {"Eiger2CdTe_16M", "Eiger2 CdTe 16M", &eiger2_cdte, 4362, 4148},
    {"Pilatus100k", "Pilatus 100k", &pilatus, 195, 487},
    {"Pilatus200k", "Pilatus 200k", &pilatus, 407, 487},
    {"Pilatus300k", "Pilatus 300k", &pilatus, 619, 487},
    {"Pilatus300kw", "Pilatus 300kw", &pilatus, 195, 1475},
    {"Pilatus1M", "Pilatus 1M", &pilatus, 1043, 981},
    {"Pilatus2M", "Pilatus 2M", &pilatus, 1679, 1475},
    {"Pilatus6M", "Pilatus 6M", &pilatus, 2527, 2463},
    {"PilatusCdTe300k", "Pilatus CdTe 300k", &pilatus_cdte, 619, 487},
    {"PilatusCdTe300kw", "Pilatus CdTe 300kw", &pilatus_cdte, 195, 1475},
    {"PilatusCdTe1M", "Pilatus CdTe 1M", &pilatus_cdte, 1043, 981},
    {"PilatusCdTe2M", "Pilatus CdTe 2M", &pilatus_cdte, 1679, 1475},
};

// pyFAI looks names up lower-cased, with spaces as they are or as
// underscores; kiln also ignores the difference between the two.
std::string folded(std::string_view s) {
    std::string out;
    for (char c : s) out += c == ' ' ? '_' : char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Marks `width` lines starting `first` pixels into every period of `period`
// (pyFAI's range(first, extent, period) with a slice of width), along one axis.
template <typename F>
void every_period(size_t extent, size_t first, size_t period, size_t width, F mark) {
    for (size_t i = first; i < extent; i += period)
        for (size_t k = i; k < std::min(i + width, extent); ++k) mark(k);
}

}  // namespace

std::vector<uint8_t> Detector::mask() const {
    if (rows == 0 || cols == 0)
        throw InvalidArgument("Detector::mask: detector '" + name +
                              "' has no known shape; give rows and cols (pyFAI's max_shape)");
    std::vector<uint8_t> m(rows * cols, 0);
    if (module_rows == 0 || module_cols == 0) return m;
    every_period(rows, module_rows, module_rows + gap_rows, gap_rows,
                 [&](size_t i) { std::fill_n(m.begin() + ptrdiff_t(i * cols), cols, uint8_t(1)); });
    const auto mark_column = [&](size_t j) {
        for (size_t i = 0; i < rows; ++i) m[i * cols + j] = 1;
    };
    every_period(cols, module_cols, module_cols + gap_cols, gap_cols, mark_column);
    // CdTe: mid_gap_cols columns from one before the module's middle.
    if (mid_gap_cols > 0)
        every_period(cols, module_cols / 2 - 1, module_cols + gap_cols, mid_gap_cols, mark_column);
    return m;
}

Detector detector_by_name(std::string_view name) {
    const std::string key = folded(name);
    for (const Model& m : models)
        if (key == folded(m.name) || key == folded(m.alias)) {
            const Family& f = *m.family;
            Detector d;
            d.name = m.name;
            d.pixel1 = d.pixel2 = f.pixel;
            d.rows = m.rows;
            d.cols = m.cols;
            d.module_rows = f.module_rows;
            d.module_cols = f.module_cols;
            d.gap_rows = f.gap_rows;
            d.gap_cols = f.gap_cols;
            d.mid_gap_cols = f.mid_gap_cols;
            return d;
        }
    std::string known;
    for (const Model& m : models) known += std::string(known.empty() ? "" : ", ") + m.name;
    throw InvalidArgument("detector '" + std::string(name) + "' is not known; known (pyFAI's names): " + known);
}

std::vector<std::string> detector_names() {
    std::vector<std::string> out;
    for (const Model& m : models) out.emplace_back(m.name);
    return out;
}

}  // namespace kiln
