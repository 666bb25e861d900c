// kiln: the command-line tool. One subcommand per operation, named after its
// function (gaussian_blur -> gaussian-blur); inputs positional, -o output.
#include <iostream>
#include <new>
#include <string>

#include "cli.hpp"
#include "job.hpp"
#include "kiln/version.hpp"

namespace {

// The documented exit codes (kiln --help, README's Command line section).
enum ExitCode : int { ok = 0, failed = 1, usage = 2, out_of_memory = 3, io_error = 4 };

// VkResult values of vulkan_core.h for the two out-of-memory errors.
constexpr int vk_error_out_of_host_memory = -1, vk_error_out_of_device_memory = -2;

const char* const footer =
    "Global options (--device, --profile, --trace, --json) may come before or after the subcommand.\n"
    "With --json, NaN, +inf and -inf are written as the strings \"NaN\", \"Infinity\" and \"-Infinity\".\n"
    "Outputs are written whole or not at all: a command that fails leaves none behind.\n"
    "Under Open MPI's mpirun (a kiln built with MPI), integrate-azimuthal splits the stack's batches\n"
    "across the ranks and rank 0 writes the one output; other commands run as one process.\n"
    "Exit codes: 0 success; 1 bad input or other kiln error (\"kiln: internal error\" for anything\n"
    "unexpected); 2 usage (unknown option, missing or malformed value); 3 out of memory (host or\n"
    "device); 4 I/O error (a file cannot be read or written, or its contents are malformed);\n"
    "130 interrupted (Ctrl-C or SIGTERM) after writing what was finished (integrate-azimuthal).\n";

int fail(int code, const std::string& message) {
    std::cerr << "kiln: " << message << "\n";
    return code;
}

// Parses and runs the command; every exception ends here as a message and an
// exit code, never as an abort. Under mpirun, rank 0 prints for the job: the
// other ranks' messages go to it (`said`), so a usage error shows once.
int run(CLI::App& app, const kiln::cli::Globals& g, int argc, char** argv, std::string& said) {
    const bool speaks = !g.job || g.job->root();
    const auto fail = [&](int code, const std::string& message) {
        said = message;
        return speaks ? ::fail(code, message) : code;
    };
    try {
        app.parse(argc, argv);
        return g.exit_code;
    } catch (const CLI::ParseError& e) {
        const int code = e.get_exit_code() == 0 ? ok : usage;  // --help and --version are parse "errors" too
        said = e.what();
        return speaks ? (app.exit(e) == 0 ? ok : usage) : code;
    } catch (const kiln::cli::RankError& e) {
        return fail(e.code(), e.what());
    } catch (const kiln::OutOfMemory& e) {
        return fail(out_of_memory, std::string("error: ") + e.what());
    } catch (const kiln::VulkanError& e) {
        const bool memory = e.result() == vk_error_out_of_host_memory || e.result() == vk_error_out_of_device_memory;
        return fail(memory ? out_of_memory : failed, std::string("error: ") + e.what());
    } catch (const kiln::IoError& e) {
        return fail(io_error, std::string("error: ") + e.what());
    } catch (const kiln::Error& e) {
        return fail(failed, std::string("error: ") + e.what());
    } catch (const std::bad_alloc&) {
        return fail(out_of_memory, "error: out of host memory (an allocation failed)");
    } catch (const std::exception& e) {
        return fail(failed, std::string("internal error: ") + e.what());
    } catch (...) {
        return fail(failed, "internal error: an exception that is not a std::exception");
    }
}

// Builds the command line and runs it; its Globals (outputs, contexts) go
// before the caller ends the job.
int run_command(int argc, char** argv, kiln::cli::Job* job, std::string& said) {
    using namespace kiln;
    CLI::App app{"kiln: GPU arrays and images through Vulkan compute.\n"
                 "Reads and writes .npy, .fits, .tif and .png. Example: kiln add a.npy b.npy -o c.npy"};
    app.set_version_flag("--version", std::string("kiln ") + KILN_VERSION);
    app.require_subcommand(1);
    app.footer(footer);
    // Subcommands inherit this: an option a subcommand does not know (the
    // global ones) is handed to its parent, so they work after it too.
    app.fallthrough();
    cli::Globals g;
    g.job = job;
    app.add_option("--device", g.device, "Device index or part of its name (else KILN_DEVICE, else the best GPU)");
    app.add_flag("--profile", g.profile, "Print the GPU time of every kernel (count, min, median, max, mean, std)");
    app.add_option("--trace", g.trace, "Write a Chrome trace JSON of the GPU work (opens in Perfetto)");
    app.add_flag("--json", g.json, "Print scalar results and tables as JSON (NaN and infinities as strings)");

    app.add_subcommand("devices", "List the Vulkan devices with their capabilities")->callback([&] {
        if (g.job && !g.job->root()) return;  // rank 0 lists them
        auto devices = Context::devices();
        if (devices.empty()) std::cout << "no Vulkan device found\n";
        for (auto& d : devices) std::cout << d.summary();
    });
    for (auto& family : cli::command_families()) family(app, g);
    return run(app, g, argc, argv, said);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace kiln;
    // Under mpirun: MPI, before anything else reads the arguments.
    std::unique_ptr<cli::Job> job;
    try {
        job = cli::join_job(argc, argv);
    } catch (const cli::JobRefused& e) {
        return e.speaks() ? fail(failed, std::string("error: ") + e.what()) : failed;
    }
    std::string said;
    const int code = run_command(argc, argv, job.get(), said);
    return job ? job->end(code, said) : code;
}
