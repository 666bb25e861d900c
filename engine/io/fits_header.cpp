#include "io/fits_header.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>

#include "kiln/error.hpp"

namespace kiln::io {
namespace {

constexpr size_t block = 2880, card = 80;

std::string trim(const std::string& s) {
    const size_t first = s.find_first_not_of(' ');
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

// The value field (columns 11-80) of a card: a quoted string without its
// quotes, else the text before any comment.
std::string value_of(const std::string& field) {
    const std::string text = trim(field);
    if (text.empty() || text[0] != '\'') return trim(text.substr(0, text.find('/')));
    std::string s;
    for (size_t i = 1; i < text.size(); ++i) {
        if (text[i] == '\'') {
            if (i + 1 < text.size() && text[i + 1] == '\'') {
                ++i;
            } else {
                break;
            }
        }
        s += text[i];
    }
    // Trailing blanks are not significant in FITS strings.
    return s.substr(0, s.find_last_not_of(' ') + 1);
}

std::optional<int64_t> parse_integer(const std::string& text) {
    if (text.empty() || text.size() > 20) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || text.find_first_of(" \t") != std::string::npos) return std::nullopt;
    return v;
}

// Reads the header starting at offset into hdu; false when it cannot be
// read whole (the file ends first, or no END card).
bool read_header(const File& file, uint64_t file_size, uint64_t offset, FitsHdu& hdu) {
    std::array<std::byte, block> bytes;
    for (uint64_t at = offset; at + block <= file_size; at += block) {
        file.read_at(at, bytes);
        for (size_t c = 0; c < block; c += card) {
            const std::string text(reinterpret_cast<const char*>(bytes.data()) + c, card);
            const std::string keyword = trim(text.substr(0, 8));
            if (keyword == "END") {
                hdu.data_start = at + block;
                return true;
            }
            if (text.compare(8, 2, "= ") == 0) hdu.cards.emplace_back(keyword, value_of(text.substr(10)));
        }
    }
    return false;
}

// The declared data size, nullopt when it overflows or a mandatory keyword
// is missing or malformed (then `readable` is false).
std::optional<uint64_t> data_size(const FitsHdu& hdu, bool& readable) {
    readable = false;
    const auto number = [&](const std::string& key) { return hdu.value(key) ? parse_integer(*hdu.value(key)) : std::nullopt; };
    const auto bitpix = number("BITPIX"), naxis = number("NAXIS");
    if (!bitpix || !naxis || *naxis < 0 || *naxis > 999) return std::nullopt;
    if (*bitpix != 8 && *bitpix != 16 && *bitpix != 32 && *bitpix != 64 && *bitpix != -32 && *bitpix != -64)
        return std::nullopt;
    const int64_t pcount = number("PCOUNT").value_or(0), gcount = number("GCOUNT").value_or(1);
    if (pcount < 0 || gcount < 0) return std::nullopt;
    uint64_t elements = 1;
    bool overflow = false;
    // Random groups (a primary header with NAXIS1 = 0) leave NAXIS1 out.
    const bool groups = hdu.xtension.empty() && *naxis > 0 && number("NAXIS1") == 0;
    for (int64_t i = groups ? 2 : 1; i <= *naxis; ++i) {
        const auto n = number("NAXIS" + std::to_string(i));
        if (!n || *n < 0) return std::nullopt;
        overflow = overflow || __builtin_mul_overflow(elements, uint64_t(*n), &elements);
    }
    readable = true;
    if (*naxis == 0) return uint64_t(0);
    uint64_t bytes = 0;
    overflow = overflow || __builtin_add_overflow(elements, uint64_t(pcount), &bytes) ||
               __builtin_mul_overflow(bytes, uint64_t(gcount), &bytes) ||
               __builtin_mul_overflow(bytes, uint64_t(std::abs(*bitpix) / 8), &bytes);
    if (overflow) return std::nullopt;
    return bytes;
}

}  // namespace

const std::string* FitsHdu::value(const std::string& keyword) const {
    for (const auto& [k, v] : cards)
        if (k == keyword) return &v;
    return nullptr;
}

std::optional<int64_t> FitsHdu::integer(const std::string& keyword, const std::string& where) const {
    const std::string* v = value(keyword);
    if (!v) return std::nullopt;
    const auto n = parse_integer(*v);
    if (!n) throw IoError(where + ": " + keyword + " = '" + *v + "' is not an integer");
    return n;
}

std::string FitsHdu::name() const {
    return "HDU " + std::to_string(number) + " (" + (xtension.empty() ? std::string("primary") : xtension) + ")";
}

std::vector<FitsHdu> scan_fits_headers(const File& file, uint64_t file_size) {
    std::vector<FitsHdu> hdus;
    uint64_t offset = 0;
    while (offset < file_size) {
        FitsHdu hdu;
        hdu.number = int(hdus.size()) + 1;
        if (!read_header(file, file_size, offset, hdu) || hdu.cards.empty()) break;
        const auto& [first, value] = hdu.cards.front();
        if (hdus.empty() ? first != "SIMPLE" || value != "T" : first != "XTENSION") break;
        if (!hdus.empty()) hdu.xtension = value;
        bool readable = false;
        hdu.data_bytes = data_size(hdu, readable);
        if (!readable) break;
        const bool overflowed = !hdu.data_bytes;
        hdus.push_back(std::move(hdu));
        if (overflowed) break;
        const uint64_t padded = (*hdus.back().data_bytes + block - 1) / block * block;
        if (__builtin_add_overflow(hdus.back().data_start, padded, &offset)) break;
    }
    return hdus;
}

}  // namespace kiln::io
