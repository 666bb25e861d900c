#include "io/fits_header.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <span>
#include <string_view>

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

// The bytes a header may hold: printable ASCII.
const std::string printable = [] {
    std::string s;
    for (char c = ' '; c <= '~'; ++c) s += c;
    return s;
}();

// A printable form of the 8-byte keyword field of a card, for messages.
std::string shown_field(const std::string& field) {
    std::string s;
    for (const char c : field) {
        if (c >= ' ' && c <= '~') {
            s += c;
        } else {
            static const char hex[] = "0123456789abcdef";
            s += std::string("\\x") + hex[(unsigned char)c >> 4] + hex[c & 15];
        }
    }
    return s;
}

// Reads the header starting at offset into hdu, with the keyword of every
// card in order (commentary cards too) in `keywords`. Returns what is wrong,
// "" when nothing is. A keyword field must be letters, digits, '-' or '_'
// followed by blanks (the standard's, lower case allowed): cfitsio takes
// the name up to the first blank, so other bytes would let the two readers
// disagree about where a header ends.
std::string read_header(const File& file, uint64_t file_size, uint64_t offset, FitsHdu& hdu,
                        std::vector<std::string>& keywords) {
    std::array<std::byte, block> bytes;
    for (uint64_t at = offset; at + block <= file_size; at += block) {
        file.read_at(at, bytes);
        for (size_t c = 0; c < block; c += card) {
            const std::string text(reinterpret_cast<const char*>(bytes.data()) + c, card);
            // C strings in cfitsio end at a NUL where kiln's do not.
            const size_t odd = text.find_first_not_of(printable);
            if (odd != std::string::npos)
                return "card " + std::to_string(keywords.size() + 1) + " has the byte " +
                       shown_field(text.substr(odd, 1)) + " in column " + std::to_string(odd + 1) +
                       "; FITS headers are printable ASCII";
            const std::string field = text.substr(0, 8);
            const size_t name_end = std::min(field.find(' '), field.size());
            const bool valid =
                std::all_of(field.begin(), field.begin() + long(name_end),
                            [](char ch) { return std::isalnum((unsigned char)ch) || ch == '-' || ch == '_'; }) &&
                field.find_first_not_of(' ', name_end) == std::string::npos;
            if (!valid)
                return "card " + std::to_string(keywords.size() + 1) + " has the keyword field '" +
                       shown_field(field) + "'; accepted: letters, digits, '-' and '_', then blanks";
            const std::string keyword = field.substr(0, name_end);
            if (keyword == "END") {
                hdu.data_start = at + block;
                return "";
            }
            keywords.push_back(field);
            // As cfitsio's ffpsvc: the value follows "= " in columns 9-10, or
            // else the first '=' of any card but commentary ones.
            if (text.compare(8, 2, "= ") == 0) {
                hdu.cards.emplace_back(keyword, value_of(text.substr(10)));
            } else if (keyword != "COMMENT" && keyword != "HISTORY" && keyword != "CONTINUE" && !keyword.empty()) {
                const size_t equals = text.find('=', 8);
                if (equals != std::string::npos) hdu.cards.emplace_back(keyword, value_of(text.substr(equals + 1)));
            }
        }
    }
    return "the file ends before its header's END card (truncated, or not FITS)";
}

// What is wrong with the mandatory keywords of a header, as cfitsio reads
// them (each in its fixed place: SIMPLE or XTENSION, BITPIX, NAXIS, NAXIS1..
// NAXISn, then PCOUNT and GCOUNT in extensions); "" when nothing is. kiln
// reads the values by keyword, so the places are checked too: a header
// whose mandatory cards kiln and cfitsio could read differently is refused.
std::string mandatory_problem(const FitsHdu& hdu, const std::vector<std::string>& keywords) {
    const auto integer = [&](const std::string& key) {
        return hdu.value(key) ? parse_integer(*hdu.value(key)) : std::nullopt;
    };
    const auto shown = [&](const std::string& key) -> std::string {
        return hdu.value(key) ? key + " = '" + *hdu.value(key) + "'" : key + " without a value";
    };
    const auto at = [&](size_t place, const std::string& key) -> std::string {
        std::string padded = key;
        padded.resize(8, ' ');
        if (place < keywords.size() && keywords[place] == padded) return "";
        return "card " + std::to_string(place + 1) + " must be " + key +
               (place < keywords.size() ? ", not '" + trim(keywords[place]) + "'" : std::string(", and the header ends first"));
    };
    std::string problem = at(1, "BITPIX");
    if (!problem.empty()) return problem;
    const auto bitpix = integer("BITPIX");
    if (!bitpix || (*bitpix != 8 && *bitpix != 16 && *bitpix != 32 && *bitpix != 64 && *bitpix != -32 && *bitpix != -64))
        return shown("BITPIX") + "; accepted: 8, 16, 32, 64, -32, -64";
    if (!(problem = at(2, "NAXIS")).empty()) return problem;
    const auto naxis = integer("NAXIS");
    if (!naxis || *naxis < 0 || *naxis > 999) return shown("NAXIS") + "; accepted: 0 to 999";
    for (int64_t i = 1; i <= *naxis; ++i) {
        const std::string key = "NAXIS" + std::to_string(i);
        if (!(problem = at(size_t(2 + i), key)).empty()) return problem;
        const auto n = integer(key);
        if (!n || *n < 0) return shown(key) + "; accepted: an integer >= 0";
    }
    if (hdu.xtension.empty()) return "";
    const size_t next = size_t(3 + *naxis);
    for (const auto& [key, place] : {std::pair<std::string, size_t>{"PCOUNT", next}, {"GCOUNT", next + 1}}) {
        if (!(problem = at(place, key)).empty()) return problem;
        const auto n = integer(key);
        if (!n || *n < 0) return shown(key) + "; accepted: an integer >= 0";
    }
    return "";
}

// A keyword that kiln or cfitsio reads to find, size or decode data, given
// twice with different values: cfitsio searches from where its last search
// stopped, so it may find the other one. "" when there is none.
std::string duplicate_problem(const FitsHdu& hdu) {
    const auto structural = [](const std::string& k) {
        return k[0] == 'Z' || k[0] == 'T' || k.rfind("NAXIS", 0) == 0 || k == "BITPIX" || k == "PCOUNT" ||
               k == "GCOUNT" || k == "BSCALE" || k == "BZERO" || k == "BLANK" || k == "EXTNAME" || k == "SIMPLE" ||
               k == "XTENSION";
    };
    std::map<std::string, const std::string*> seen;
    for (const auto& [keyword, value] : hdu.cards) {
        if (keyword.empty() || !structural(keyword)) continue;
        const auto [it, fresh] = seen.emplace(keyword, &value);
        if (!fresh && *it->second != value)
            return keyword + " is given twice, as '" + *it->second + "' and '" + value +
                   "'; a keyword that describes the data must have one value";
    }
    return "";
}

// A keyword whose value cfitsio (or kiln) reads as a 64-bit integer. A
// value cfitsio fails to convert there, if 28 characters or longer,
// overflows the message buffer of cfitsio 4.2's ffc2j (a FORTIFY abort;
// found by the FITS fuzzer), so such values must be integers kiln can read.
bool integer_keyword(const std::string& k) {
    static const char* const exact[] = {"BITPIX", "NAXIS",  "PCOUNT",  "GCOUNT",   "THEAP",   "TFIELDS", "BLANK",
                                        "ZBLANK", "ZBITPIX", "ZNAXIS", "ZDITHER0", "EXTVER", "EXTLEVEL"};
    for (const char* e : exact)
        if (k == e) return true;
    for (const char* prefix : {"NAXIS", "TBCOL", "TNULL", "ZNAXIS", "ZTILE"}) {
        const size_t n = std::strlen(prefix);
        if (k.size() > n && k.compare(0, n, prefix) == 0 &&
            k.find_first_not_of("0123456789", n) == std::string::npos)
            return true;
    }
    return false;
}

std::string integer_problem(const FitsHdu& hdu) {
    for (const auto& [keyword, value] : hdu.cards)
        if (integer_keyword(keyword) && !parse_integer(value))
            return keyword + " = '" + value + "'; accepted: an integer of at most 64 bits";
    return "";
}

// The declared data size: nullopt when it overflows 64 bits. The mandatory
// keywords have been checked.
std::optional<uint64_t> data_size(const FitsHdu& hdu) {
    const auto number = [&](const std::string& key) { return *parse_integer(*hdu.value(key)); };
    const int64_t bitpix = number("BITPIX"), naxis = number("NAXIS");
    const int64_t pcount = hdu.xtension.empty() ? 0 : number("PCOUNT");
    const int64_t gcount = hdu.xtension.empty() ? 1 : number("GCOUNT");
    if (naxis == 0) return uint64_t(0);
    uint64_t elements = 1;
    bool overflow = false;
    // Random groups (a primary header with NAXIS1 = 0) leave NAXIS1 out.
    const bool groups = hdu.xtension.empty() && number("NAXIS1") == 0;
    for (int64_t i = groups ? 2 : 1; i <= naxis; ++i)
        overflow = overflow || __builtin_mul_overflow(elements, uint64_t(number("NAXIS" + std::to_string(i))), &elements);
    uint64_t bytes = 0;
    overflow = overflow || __builtin_add_overflow(elements, uint64_t(pcount), &bytes) ||
               __builtin_mul_overflow(bytes, uint64_t(gcount), &bytes) ||
               __builtin_mul_overflow(bytes, uint64_t(std::abs(bitpix) / 8), &bytes);
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

FitsScan scan_fits(const File& file, uint64_t file_size) {
    FitsScan scan;
    if (file_size == 0) {
        scan.problem = "an empty file, not FITS";
        return scan;
    }
    uint64_t offset = 0;
    while (offset < file_size) {
        FitsHdu hdu;
        hdu.number = int(scan.hdus.size()) + 1;
        // What follows the last HDU is not read by cfitsio as a header unless
        // it begins with XTENSION: anything else there is ignored, as cfitsio
        // ignores it.
        std::array<char, 10> start{};
        file.read_at(offset, std::as_writable_bytes(std::span(start.data(), std::min<uint64_t>(10, file_size - offset))));
        const std::string_view first(start.data(), 10);
        const bool primary = scan.hdus.empty();
        if (primary && first.substr(0, 9) != "SIMPLE  =") {
            scan.problem = "not FITS: it does not begin with the card SIMPLE = T";
            return scan;
        }
        if (!primary && first.substr(0, 8) != "XTENSION") return scan;
        std::vector<std::string> keywords;
        const std::string header_problem = read_header(file, file_size, offset, hdu, keywords);
        const std::string where = primary ? hdu.name() : "HDU " + std::to_string(hdu.number);
        if (!header_problem.empty()) {
            scan.problem = where + ": " + header_problem;
            return scan;
        }
        if (hdu.cards.empty() || hdu.cards.front().first != (primary ? "SIMPLE" : "XTENSION") ||
            keywords.front().substr(0, 8) != (primary ? "SIMPLE  " : "XTENSION")) {
            scan.problem = where + ": its first card is not " + (primary ? "SIMPLE" : "XTENSION") + " = value";
            return scan;
        }
        if (primary && hdu.cards.front().second != "T") {
            scan.problem = "not standard FITS: SIMPLE = " + hdu.cards.front().second + "; accepted: SIMPLE = T";
            return scan;
        }
        if (!primary) hdu.xtension = hdu.cards.front().second;
        std::string problem = mandatory_problem(hdu, keywords);
        if (problem.empty()) problem = duplicate_problem(hdu);
        if (problem.empty()) problem = integer_problem(hdu);
        if (!problem.empty()) {
            scan.problem = hdu.name() + ": " + problem;
            return scan;
        }
        hdu.data_bytes = data_size(hdu);
        const bool overflowed = !hdu.data_bytes;
        scan.hdus.push_back(std::move(hdu));
        if (overflowed) return scan;
        const uint64_t padded = (*scan.hdus.back().data_bytes + block - 1) / block * block;
        if (__builtin_add_overflow(scan.hdus.back().data_start, padded, &offset)) return scan;
    }
    return scan;
}

std::vector<FitsHdu> scan_fits_headers(const File& file, uint64_t file_size) {
    return scan_fits(file, file_size).hdus;
}

}  // namespace kiln::io
