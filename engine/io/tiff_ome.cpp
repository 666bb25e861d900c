#include "io/tiff_ome.hpp"

#include <charconv>

namespace kiln::io {
namespace {

// The value of attribute `name` within the tag text (`<Pixels ... >`).
uint64_t size_attribute(std::string_view tag, std::string_view name) {
    for (size_t at = tag.find(name); at != std::string_view::npos; at = tag.find(name, at + 1)) {
        // A whole attribute name: preceded by white space, followed by ="
        const bool starts = at > 0 && (tag[at - 1] == ' ' || tag[at - 1] == '\n' || tag[at - 1] == '\t' ||
                                       tag[at - 1] == '\r');
        const size_t value = at + name.size();
        if (!starts || tag.substr(value, 2) != "=\"") continue;
        uint64_t n = 0;
        const char* first = tag.data() + value + 2;
        const auto [end, ec] = std::from_chars(first, tag.data() + tag.size(), n);
        return ec == std::errc() && *end == '"' && n > 0 ? n : 1;
    }
    return 1;
}

// Where the next Pixels element starts (its name followed by a delimiter), or npos.
size_t next_pixels(std::string_view xml, size_t from) {
    for (size_t at = xml.find("<Pixels", from); at != std::string_view::npos; at = xml.find("<Pixels", at + 1)) {
        const size_t after = at + 7;
        if (after < xml.size() && (xml[after] == ' ' || xml[after] == '\n' || xml[after] == '\t' ||
                                   xml[after] == '\r' || xml[after] == '>' || xml[after] == '/'))
            return at;
    }
    return std::string_view::npos;
}

}  // namespace

std::string OmeSizes::str() const {
    return "SizeZ=" + std::to_string(z) + " SizeC=" + std::to_string(c) + " SizeT=" + std::to_string(t);
}

std::optional<OmeSizes> ome_sizes(std::string_view description) {
    if (description.find("<OME") == std::string_view::npos) return std::nullopt;
    OmeSizes sizes;
    for (size_t at = next_pixels(description, 0); at != std::string_view::npos;
         at = next_pixels(description, at + 1)) {
        if (sizes.images++ > 0) continue;
        const size_t end = description.find('>', at);
        const std::string_view tag = description.substr(at, end == std::string_view::npos ? end : end - at);
        sizes.z = size_attribute(tag, "SizeZ");
        sizes.c = size_attribute(tag, "SizeC");
        sizes.t = size_attribute(tag, "SizeT");
    }
    return sizes;
}

}  // namespace kiln::io
