// kiln: the command-line tool. One subcommand per operation, named after its
// function (gaussian_blur -> gaussian-blur); inputs positional, -o output.
#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) {
    using namespace kiln;
    CLI::App app{"kiln: GPU arrays and images through Vulkan compute.\n"
                 "Reads and writes .npy, .fits and .png. Example: kiln add a.npy b.npy -o c.npy"};
    app.set_version_flag("--version", std::string("kiln ") + KILN_VERSION);
    app.require_subcommand(1);
    cli::Globals g;
    app.add_option("--device", g.device, "Device index or part of its name (else KILN_DEVICE, else the best GPU)");
    app.add_flag("--profile", g.profile, "Print the GPU time of every kernel (count, min, median, max, mean, std)");
    app.add_option("--trace", g.trace, "Write a Chrome trace JSON of the GPU work (opens in Perfetto)");
    app.add_flag("--json", g.json, "Print scalar results and tables as JSON");

    app.add_subcommand("devices", "List the Vulkan devices with their capabilities")->callback([&] {
        auto devices = Context::devices();
        if (devices.empty()) std::cout << "no Vulkan device found\n";
        for (auto& d : devices) std::cout << d.summary();
    });
    for (auto& family : cli::command_families()) family(app, g);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const kiln::Error& e) {
        std::cerr << "kiln: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
