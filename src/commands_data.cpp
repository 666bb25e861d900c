// Data generators: the synthetic inputs the samples and benchmarks use, so
// peers (CuPy, SciPy) can be run on exactly the same data.
#include "cli.hpp"
#include "cpu/sky.hpp"
#include "io/array_file.hpp"

namespace kiln::cli {

namespace {

void register_data(CLI::App& app, Globals&) {
    auto params = std::make_shared<cpu::SkyParams>();
    auto out = std::make_shared<std::string>();
    auto* c = app.add_subcommand("synthetic-sky",
                                 "Write the synthetic radio image (Jy/beam, float32) of the astronomy sample");
    c->add_option("--size", params->size, "Image size (size x size pixels)")->capture_default_str();
    c->add_option("--noise", params->noise_sigma, "Gaussian noise sigma, Jy/beam")->capture_default_str();
    c->add_option("--sources", params->n_compact, "Number of compact sources")->capture_default_str();
    c->add_option("--shells", params->n_shells, "Number of extended shells")->capture_default_str();
    c->add_option("--seed", params->seed, "Random seed")->capture_default_str();
    c->add_option("-o,--output", *out, "Output file (.npy or .fits)")->required();
    c->callback([=] { io::write_array(*out, cpu::synthetic_sky(*params)); });
}

const CommandFamily data_family(register_data);

} // namespace

} // namespace kiln::cli
