#pragma once
// Runs the built `kiln` binary (KILN_CLI: the build's, or $KILN_CLI for a
// suite carried to another machine) and returns what it did.
#include <string>
#include <vector>

#include "cpu_support.hpp"

namespace kiln::test {

struct CliRun {
    int code = -1;  ///< exit status; 128 + signal number when a signal ended it
    std::string out, err;
    std::string what;  ///< the command and all of the above, for INFO(r.what)
};

/// The kiln binary the tests run ($KILN_CLI, else the build's).
std::string kiln_binary();

/// Runs kiln with args in `dir` (paths in args are relative to it), no
/// standard input. Validation stays as the suite has it (on): a validation
/// message on stderr fails the test.
CliRun run_kiln(const TempDir& dir, const std::vector<std::string>& args);

/// Runs `program` with args in `dir` as run_kiln does (`mpirun ... kiln`).
CliRun run_program(const TempDir& dir, const std::string& program, const std::vector<std::string>& args);

/// Writes a small array file through kiln itself (kiln full), so each test
/// starts from files kiln reads.
void make_full(const TempDir& dir, const std::string& name, const std::vector<std::string>& shape,
               const std::string& value, const std::string& dtype = "float32");

/// The names in dir, sorted: what a failed command must not have added to.
std::vector<std::string> names(const TempDir& dir);

} // namespace kiln::test
