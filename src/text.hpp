#pragma once
// Numbers in and out of the `kiln` command line: whole numbers parsed
// strictly (CLI11 alone reads "-1" into a size_t as 2^64 - 1, "010" as 8 and
// "99999999999999999999" as 2^64 - 1), and JSON text.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace kiln::cli {

/// The decimal whole number `text` if it lies in [lo, hi]; InvalidArgument
/// naming `what`, the text and the accepted range otherwise (signs, other
/// bases, fractions, overflow).
uint64_t parse_whole(const std::string& text, const std::string& what, uint64_t lo, uint64_t hi);

/// A CLI11 check for options holding whole numbers in [lo, hi] (a usage
/// error, exit code 2, with parse_whole's message).
CLI::Validator whole_number(uint64_t lo, uint64_t hi);

/// A CLI11 check for options holding a name that `parse` (one of kiln's
/// parse_* functions) accepts: a usage error with its message otherwise.
template <typename Parse> CLI::Validator parsed_by(Parse parse, const std::string& description) {
    return CLI::Validator(
        [parse](std::string& text) {
            try {
                parse(text);
                return std::string();
            } catch (const std::exception& e) {
                return std::string(e.what());
            }
        },
        description);
}

/// "2^60" for powers of two from 2^32 up, the decimal number otherwise.
std::string power_text(uint64_t v);

/// The shortest text that reads back as the same double (%.17g).
std::string number(double v);

/// A JSON value for v: finite numbers as number() writes them; NaN, +inf and
/// -inf, which JSON lacks, as the strings "NaN", "Infinity" and "-Infinity"
/// (the names Python's json module and JavaScript use).
std::string json_number(double v);

/// s as a JSON string literal, quotes included.
std::string json_string(const std::string& s);

}  // namespace kiln::cli
