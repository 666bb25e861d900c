#pragma once
// Shared pieces of the `kiln` command-line tool. Each family of operations
// registers its subcommands in its own file (commands_<family>.cpp).
#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/kiln.hpp"

namespace kiln::cli {

/// Options every subcommand shares.
struct Globals {
    std::string device;       ///< index or name substring
    bool profile = false;     ///< print the per-kernel GPU table
    std::string trace;        ///< Chrome trace output
    bool json = false;        ///< scalars and tables as JSON
    std::optional<Context> ctx;

    /// The context, created on first use with the chosen device.
    Context& context();
    /// After an operation: profile table and trace when asked.
    void report();
};

/// An array read from a file (.npy, .fits, .png).
Array load(Globals& g, const std::string& path);
/// Pulls an array and writes it (format from the extension).
void save(const Array& a, const std::string& path);
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

/// Adds a subcommand whose action runs inside the error handling of main.
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
