#include "text.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "kiln/error.hpp"

namespace kiln::cli {

std::string power_text(uint64_t v) {
    if (v >= (uint64_t(1) << 32) && (v & (v - 1)) == 0) return "2^" + std::to_string(std::countr_zero(v));
    return std::to_string(v);
}

namespace {

// What is wrong with text as a whole number in [lo, hi] (empty if nothing),
// the value in v.
std::string whole_problem(const std::string& text, uint64_t lo, uint64_t hi, uint64_t& v) {
    const std::string accepted = "; accepted: a whole number from " + power_text(lo) + " to " + power_text(hi);
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        return "'" + text + "' is not a whole number" + accepted;
    v = 0;
    bool overflow = false;
    for (char c : text)
        overflow = overflow || __builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, unsigned(c - '0'), &v);
    if (overflow || v < lo || v > hi) return text + " is out of range" + accepted;
    return {};
}

}  // namespace

uint64_t parse_whole(const std::string& text, const std::string& what, uint64_t lo, uint64_t hi) {
    uint64_t v = 0;
    const std::string problem = whole_problem(text, lo, hi, v);
    if (!problem.empty()) throw InvalidArgument(what + ": " + problem);
    return v;
}

CLI::Validator whole_number(uint64_t lo, uint64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) {
            uint64_t v = 0;
            return whole_problem(text, lo, hi, v);
        },
        "INT in [" + power_text(lo) + " - " + power_text(hi) + "]");
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string json_number(double v) {
    if (std::isnan(v)) return "\"NaN\"";
    if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    return number(v);
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

}  // namespace kiln::cli
