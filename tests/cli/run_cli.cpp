#include "cli/run_cli.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace kiln::test {

namespace {

std::string quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

std::string kiln_binary() {
    if (const char* p = std::getenv("KILN_CLI"); p && *p) return p;
    return KILN_CLI;
}

CliRun run_kiln(const TempDir& dir, const std::vector<std::string>& args) {
    return run_program(dir, kiln_binary(), args);
}

CliRun run_program(const TempDir& dir, const std::string& program, const std::vector<std::string>& args) {
    // stdout and stderr go to files outside dir, so dir holds only what kiln wrote.
    static int counter = 0;
    const std::string base = dir.path.string() + ".run" + std::to_string(counter++);
    std::string command = "cd " + quoted(dir.path.string()) + " && exec " + quoted(program);
    for (const std::string& a : args) command += " " + quoted(a);
    command += " </dev/null >" + quoted(base + ".out") + " 2>" + quoted(base + ".err");
    const int status = std::system(command.c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(base + ".out");
    r.err = slurp(base + ".err");
    std::remove((base + ".out").c_str());
    std::remove((base + ".err").c_str());
    r.what = program == kiln_binary() ? "kiln" : program;
    for (const std::string& a : args) r.what += " " + a;
    r.what += "\n-> exit " + std::to_string(r.code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
    INFO(r.what);
    CHECK_THAT(r.err, !Catch::Contains("validation"));
    return r;
}

void make_full(const TempDir& dir, const std::string& name, const std::vector<std::string>& shape,
               const std::string& value, const std::string& dtype) {
    std::vector<std::string> args = {"full", "--value", value, "--dtype", dtype, "-o", name, "--shape"};
    args.insert(args.end(), shape.begin(), shape.end());
    const CliRun r = run_kiln(dir, args);
    INFO(r.what);
    REQUIRE(r.code == 0);
}

std::vector<std::string> names(const TempDir& dir) {
    std::vector<std::string> n;
    for (const auto& p : dir.files()) n.push_back(p.filename().string());
    std::sort(n.begin(), n.end());
    return n;
}

}  // namespace kiln::test
