#pragma once
// Shared pieces of the `kiln` command-line tool. Each family of operations
// registers its subcommands in its own file (commands_<family>.cpp).
#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/kiln.hpp"
#include "outputs.hpp"
#include "text.hpp"

namespace kiln::cli {

class Job;

/// An option naming an output file of a subcommand (add_output).
struct OutputOption {
    const CLI::App* command;
    const std::string* path;
    bool array_file;  ///< written by save() (.npy, .fits, .tif, .png), else text
};

/// A context on the device `spec` names (an index or part of a name; empty:
/// the best GPU, or KILN_DEVICE) with the workgroup sizes `kiln tune` saved
/// for it. An index above most_index is refused naming `option`.
Context open_device(const std::string& spec, const std::string& option, uint64_t most_index);

/// Options every subcommand shares.
struct Globals {
    std::string device;       ///< index or name substring
    bool profile = false;     ///< print the per-kernel GPU table
    std::string trace;        ///< Chrome trace output
    bool json = false;        ///< scalars and tables as JSON
    std::optional<Context> ctx;
    /// Every context of a command on several devices (--devices), ctx the
    /// first; empty otherwise. report() covers each.
    std::vector<Context> contexts;
    /// The MPI job under mpirun (job.hpp), else null: then rank 0 alone
    /// claims and writes outputs and prints.
    Job* job = nullptr;
    /// The exit status of a command that succeeded (130: stopped by Ctrl-C
    /// with what it finished written).
    int exit_code = 0;
    /// The running command's output files, moved into place when it succeeds.
    Outputs outputs;
    /// Output-file options of each subcommand (add_output), claimed before
    /// the subcommand does any work.
    std::vector<OutputOption> output_options;

    /// The context, created on first use with the chosen device.
    Context& context();
    /// After an operation: profile table and trace when asked, of every
    /// device (one trace row each) and, under mpirun, every rank (rank 0
    /// prints and writes them).
    void report();
    /// Whether this process prints and writes outputs (not a rank other than 0).
    bool speaks() const;
};

/// An array read from a file (.npy, .fits, .tif, .png).
Array load(Globals& g, const std::string& path);
/// Pulls an array and writes it (format from the extension) to the
/// temporary of output `path` (see Outputs).
void save(Globals& g, const Array& a, const std::string& path);
void save(Globals& g, const HostArray& a, const std::string& path);
/// Writes text to the temporary of output `path`; IoError with the system's
/// reason if that fails.
void save_text(Globals& g, const std::string& path, const std::string& text);

/// An option naming an output file of subcommand c: claimed (its directory
/// checked writable, an array file's extension known) before the
/// subcommand's action runs.
CLI::Option* add_output(CLI::App* c, Globals& g, const std::string& flags, std::string& path,
                        const std::string& help, bool array_file = true);
/// Claims an array output (IoError for an extension kiln cannot write).
void claim_array_output(Globals& g, const std::string& path);
/// An operand that is a file or a number ("2.5").
struct Operand {
    std::string text;
    bool is_number() const;
    double number() const;
};

/// A comma-separated list of numbers given to `option`; InvalidArgument
/// naming the option, the bad item and an example list otherwise.
std::vector<double> parse_numbers(const std::string& text, const std::string& option,
                                  const std::string& example);

/// Adds a subcommand whose action runs inside the error handling of main:
/// its outputs and the trace are claimed first, then the action runs, then
/// the profile and trace are reported and the outputs committed.
CLI::App* add_command(CLI::App& app, Globals& g, const std::string& name, const std::string& help,
                      std::function<void()> action);

/// Each commands_<family>.cpp registers its subcommands with a static
/// CommandFamily, so families are added without touching main.cpp.
using Registrar = std::function<void(CLI::App&, Globals&)>;
std::vector<Registrar>& command_families();
struct CommandFamily {
    explicit CommandFamily(Registrar r) { command_families().push_back(std::move(r)); }
};

} // namespace kiln::cli
