// Data generators: the synthetic inputs the samples and benchmarks use, so
// peers (CuPy, SciPy) can be run on exactly the same data.
#include <limits>

#include "cli.hpp"
#include "kiln/sky.hpp"

namespace kiln::cli {

namespace {

void register_data(CLI::App& app, Globals& g) {
    auto params = std::make_shared<kiln::SkyParams>();
    auto out = std::make_shared<std::string>();
    auto* c = add_command(app, g, "synthetic-sky",
                          "Write the synthetic radio image (Jy/beam, float32) of the astronomy sample",
                          [=, &g] { save(g, kiln::synthetic_sky(*params), *out); });
    constexpr uint64_t int_max = std::numeric_limits<int>::max();
    c->add_option("--size", params->size, "Image size (size x size pixels)")
        ->check(whole_number(kiln::SkyParams::min_size, kiln::SkyParams::max_size))
        ->capture_default_str();
    c->add_option("--noise", params->noise_sigma, "Gaussian noise sigma, Jy/beam, > 0")->capture_default_str();
    c->add_option("--sources", params->n_compact, "Number of compact sources")
        ->check(whole_number(0, int_max))
        ->capture_default_str();
    c->add_option("--shells", params->n_shells, "Number of extended shells")
        ->check(whole_number(0, int_max))
        ->capture_default_str();
    c->add_option("--seed", params->seed, "Random seed")
        ->check(whole_number(0, std::numeric_limits<uint64_t>::max()))
        ->capture_default_str();
    add_output(c, g, "-o,--output", *out, "Output file (.npy, .fits or .tif)")->required();
}

const CommandFamily data_family(register_data);

} // namespace

} // namespace kiln::cli
