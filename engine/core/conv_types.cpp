#include "kiln/conv_types.hpp"

#include <string>
#include <utility>
#include <vector>

#include "kiln/error.hpp"

namespace kiln {

namespace {

const std::pair<const char*, ConvMode> conv_modes[] = {
    {"full", ConvMode::full}, {"same", ConvMode::same}, {"valid", ConvMode::valid}};
const std::pair<const char*, Boundary> boundaries[] = {
    {"fill", Boundary::fill}, {"wrap", Boundary::wrap}, {"symm", Boundary::symm}};
const std::pair<const char*, NdMode> nd_modes[] = {{"reflect", NdMode::reflect},
                                                  {"constant", NdMode::constant},
                                                  {"nearest", NdMode::nearest},
                                                  {"mirror", NdMode::mirror},
                                                  {"wrap", NdMode::wrap}};

template <typename E, size_t N>
E parse(std::string_view name, const char* what, const std::pair<const char*, E> (&names)[N]) {
    for (const auto& [n, e] : names)
        if (name == n) return e;
    std::string accepted;
    for (const auto& [n, e] : names) accepted += (accepted.empty() ? "" : ", ") + std::string(n);
    throw InvalidArgument("unknown " + std::string(what) + " '" + std::string(name) +
                          "'; accepted: " + accepted);
}

template <typename E, size_t N>
std::vector<std::string> names_of(const std::pair<const char*, E> (&names)[N]) {
    std::vector<std::string> v;
    for (const auto& [n, e] : names) v.emplace_back(n);
    return v;
}

}  // namespace

ConvMode parse_conv_mode(std::string_view name) { return parse(name, "convolution mode", conv_modes); }
Boundary parse_boundary(std::string_view name) { return parse(name, "boundary", boundaries); }
NdMode parse_nd_mode(std::string_view name) { return parse(name, "mode", nd_modes); }

std::vector<std::string> conv_mode_names() { return names_of(conv_modes); }
std::vector<std::string> boundary_names() { return names_of(boundaries); }
std::vector<std::string> nd_mode_names() { return names_of(nd_modes); }

}  // namespace kiln
