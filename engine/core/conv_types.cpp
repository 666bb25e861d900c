#include "kiln/conv_types.hpp"

#include <string>
#include <utility>

#include "kiln/error.hpp"

namespace kiln {

namespace {

template <typename E, size_t N>
E parse(std::string_view name, const char* what, const std::pair<const char*, E> (&names)[N]) {
    for (const auto& [n, e] : names)
        if (name == n) return e;
    std::string accepted;
    for (const auto& [n, e] : names) accepted += (accepted.empty() ? "" : ", ") + std::string(n);
    throw InvalidArgument("unknown " + std::string(what) + " '" + std::string(name) +
                          "'; accepted: " + accepted);
}

}  // namespace

ConvMode parse_conv_mode(std::string_view name) {
    static const std::pair<const char*, ConvMode> names[] = {
        {"full", ConvMode::full}, {"same", ConvMode::same}, {"valid", ConvMode::valid}};
    return parse(name, "convolution mode", names);
}

Boundary parse_boundary(std::string_view name) {
    static const std::pair<const char*, Boundary> names[] = {
        {"fill", Boundary::fill}, {"wrap", Boundary::wrap}, {"symm", Boundary::symm}};
    return parse(name, "boundary", names);
}

NdMode parse_nd_mode(std::string_view name) {
    static const std::pair<const char*, NdMode> names[] = {{"reflect", NdMode::reflect},
                                                           {"constant", NdMode::constant},
                                                           {"nearest", NdMode::nearest},
                                                           {"mirror", NdMode::mirror},
                                                           {"wrap", NdMode::wrap}};
    return parse(name, "mode", names);
}

}  // namespace kiln
