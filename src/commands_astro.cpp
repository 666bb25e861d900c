// Source finding subcommands: label (connected components) and measure
// (per-label statistics as a CSV table).
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "kiln/label.hpp"
#include "kiln/measure.hpp"

namespace kiln::cli {

namespace {

template <typename T>
std::string json_triple(const std::array<T, 3>& a, int ndim) {
    std::string s = "[";
    for (int d = 3 - ndim; d < 3; ++d) {
        if (d > 3 - ndim) s += ", ";
        if constexpr (std::is_floating_point_v<T>)
            s += json_number(a[d]);
        else
            s += std::to_string(a[d]);
    }
    return s + "]";
}

// The table as a JSON array of objects; positions in (z, y, x) order with
// as many axes as the image has.
std::string stats_to_json(const std::vector<LabelStats>& stats, int ndim) {
    std::ostringstream o;
    o << "[";
    for (size_t k = 0; k < stats.size(); ++k) {
        const LabelStats& s = stats[k];
        o << (k ? ",\n " : "\n ") << "{\"label\": " << s.label << ", \"count\": " << s.count
          << ", \"sum\": " << json_number(s.sum) << ", \"mean\": " << json_number(s.mean)
          << ", \"variance\": " << json_number(s.variance) << ", \"std\": " << json_number(s.std)
          << ", \"min\": " << json_number(s.min) << ", \"max\": " << json_number(s.max)
          << ", \"min_pos\": " << json_triple(s.min_pos, ndim)
          << ", \"max_pos\": " << json_triple(s.max_pos, ndim)
          << ", \"center_of_mass\": " << json_triple(s.center_of_mass, ndim)
          << ", \"bbox_start\": " << json_triple(s.bbox_start, ndim)
          << ", \"bbox_stop\": " << json_triple(s.bbox_stop, ndim) << "}";
    }
    o << (stats.empty() ? "]\n" : "\n]\n");
    return o.str();
}

void register_astro(CLI::App& app, Globals& g) {
    {
        auto mask = std::make_shared<std::string>();
        auto out = std::make_shared<std::string>();
        auto connectivity = std::make_shared<int>(0);
        auto* c = add_command(app, g, "label",
                              "Label connected components of MASK (nonzero is foreground), as "
                              "scipy.ndimage.label; prints the number of components",
                              [=, &g] {
                                  Labels l = label(load(g, *mask), *connectivity);
                                  save(g, l.labels, *out);
                                  if (g.json)
                                      std::cout << "{\"count\": " << l.count << "}\n";
                                  else
                                      std::cout << l.count << "\n";
                              });
        c->add_option("MASK", *mask, "Mask array file (.npy, .fits, .tif, .png)")->required();
        add_output(c, g, "-o,--output", *out, "Label image (int32) output file")->required();
        c->add_option("--connectivity", *connectivity,
                      "Neighbours: 4 or 8 in 2-D, 6, 18 or 26 in 3-D, 2 in 1-D; 0 = faces only "
                      "(the default)")
            ->capture_default_str();
    }
    {
        auto image = std::make_shared<std::string>();
        auto labels = std::make_shared<std::string>();
        auto out = std::make_shared<std::string>();
        auto index = std::make_shared<std::vector<int32_t>>();
        auto* c = add_command(
            app, g, "measure",
            "Per-label statistics of IMAGE over LABELS (count, sum, mean, variance, std, min/max "
            "and their "
            "positions, centre of mass, bounding box) as a CSV table (JSON with --json)",
            [=, &g] {
                Array img = load(g, *image);
                const auto stats = measure(img, load(g, *labels), *index);
                const int ndim = static_cast<int>(img.ndim());
                if (!out->empty()) {
                    save_text(g, *out, kiln::stats_to_csv(stats, ndim));
                    if (g.json)
                        std::cout << "{\"labels\": " << stats.size() << "}\n";
                    else
                        std::cout << stats.size() << " labels measured\n";
                } else {
                    std::cout << (g.json ? stats_to_json(stats, ndim)
                                         : kiln::stats_to_csv(stats, ndim));
                }
            });
        c->add_option("IMAGE", *image, "Image array file (.npy, .fits, .tif, .png)")->required();
        c->add_option("LABELS", *labels, "Integer label image of the same shape")->required();
        add_output(c, g, "-o,--output", *out, "Write the CSV table to this file instead of printing it", false);
        c->add_option("--index", *index,
                      "Labels to measure, in this order (default: 1..max label)");
    }
}

const CommandFamily astro_family(register_astro);

}  // namespace

}  // namespace kiln::cli
