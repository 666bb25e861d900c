#include "kiln/io.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>

#include "io/file.hpp"
#include "io/npy_header.hpp"
#include "kiln/error.hpp"

namespace kiln::io {
namespace {

constexpr char magic[] = "\x93NUMPY";
constexpr size_t magic_size = 6;
// NumPy pads the header so that the data starts at a multiple of 64 bytes,
// which lets readers map the data aligned.
constexpr size_t header_align = 64;

const char* const accepted_descrs =
    "accepted: '<f2' '<f4' '<f8' '|i1' '|u1' '<i2' '<u2' '<i4' '<u4' '<i8' '<u8' '|b1' '<c8' '<c16' "
    "(byte order '<', '>' or '=', and '|' for one-byte types)";

[[noreturn]] void fail(const std::string& name, const std::string& what) {
    throw IoError(name + ": " + what);
}

/// What the header says, checked against what kiln accepts.
struct Header {
    DType dtype = DType::float32;
    bool swap = false;
    bool half = false;  // float16 in the file, float32 in the array
    Shape shape;
    size_t data_offset = 0;
};

/// A cursor over the header's Python dict literal. NumPy writes it with
/// repr(), so a small parser for strings, booleans, integers and tuples covers
/// every file NumPy produces.
class Literal {
public:
    Literal(std::string_view text, const std::string& name) : text_(text), name_(name) {}

    void skip_space() {
        auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
        while (pos_ < text_.size() && space(text_[pos_])) ++pos_;
    }
    bool consume(char c) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!consume(c)) bad(std::string("expected '") + c + "'");
    }
    char peek() {
        skip_space();
        return pos_ < text_.size() ? text_[pos_] : '\0';
    }
    std::string string() {
        skip_space();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
            bad("expected a quoted string");
        char quote = text_[pos_++];
        size_t end = text_.find(quote, pos_);
        if (end == std::string_view::npos) bad("unterminated string");
        std::string s(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return s;
    }
    bool boolean() {
        skip_space();
        for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
            if (text_.substr(pos_, std::strlen(word)) == word) {
                pos_ += std::strlen(word);
                return value;
            }
        }
        bad("expected True or False");
    }
    size_t integer() {
        skip_space();
        size_t start = pos_, v = 0;
        while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
            size_t digit = size_t(text_[pos_++] - '0');
            if (v > (std::numeric_limits<size_t>::max() - digit) / 10) bad("integer too large");
            v = v * 10 + digit;
        }
        if (pos_ == start) bad("expected a non-negative integer");
        if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_; // Python 2 long
        return v;
    }
    std::vector<size_t> tuple() {
        expect('(');
        std::vector<size_t> items;
        while (!consume(')')) {
            items.push_back(integer());
            if (!consume(',')) {
                expect(')');
                break;
            }
        }
        return items;
    }
    [[noreturn]] void bad(const std::string& what) {
        std::string_view shown = text_.substr(0, text_.find_last_not_of(" \n") + 1);
        if (shown.size() > 200) shown = shown.substr(0, 200);
        fail(name_, "malformed header (" + what + " at offset " + std::to_string(pos_) +
                        " of \"" + std::string(shown) +
                        "\"); expected a dict with 'descr', 'fortran_order' and 'shape'");
    }

private:
    std::string_view text_;
    const std::string& name_;
    size_t pos_ = 0;
};

/// Maps a descr string like '<f4' to a dtype and whether bytes need swapping.
void parse_descr(const std::string& descr, const std::string& name, Header& h) {
    if (descr.size() >= 2 && (descr[1] == 'O' || descr[0] == 'O'))
        fail(name, "object arrays (descr '" + descr + "') are not supported; " + accepted_descrs);
    auto unknown = [&]() {
        fail(name, "unsupported dtype descr '" + descr + "'; " + accepted_descrs);
    };
    if (descr.size() != 3 && descr.size() != 4) unknown();
    char order = descr[0];
    std::string code = descr.substr(1);
    static const std::pair<const char*, DType> codes[] = {
        {"f4", DType::float32}, {"f8", DType::float64}, {"i1", DType::int8},
        {"u1", DType::uint8},   {"b1", DType::uint8},   {"i2", DType::int16},
        {"u2", DType::uint16},  {"i4", DType::int32},   {"u4", DType::uint32},
        {"i8", DType::int64},   {"u8", DType::uint64},  {"f2", DType::float32},
        {"c8", DType::complex64}, {"c16", DType::complex128}};
    auto it = std::find_if(std::begin(codes), std::end(codes),
                           [&](auto& c) { return code == c.first; });
    if (it == std::end(codes)) unknown();
    h.dtype = it->second;
    h.half = code == "f2";
    size_t size = h.half ? 2 : dtype_size(h.dtype);
    bool native_little = std::endian::native == std::endian::little;
    switch (order) {
    case '<': h.swap = size > 1 && !native_little; break;
    case '>': h.swap = size > 1 && native_little; break;
    case '=': h.swap = false; break;
    case '|':
        // NumPy uses '|' ("not applicable") only for one-byte types; for wider
        // ones the byte order would be a guess.
        if (size > 1)
            fail(name, "descr '" + descr + "' has no byte order for a " + std::to_string(size) +
                           "-byte type; use '<' or '>'");
        break;
    default: unknown();
    }
}

/// Size of magic + version + length field + header text, from the first bytes.
size_t header_end(std::span<const std::byte> bytes, const std::string& name, int& major) {
    if (bytes.size() < magic_size || std::memcmp(bytes.data(), magic, magic_size) != 0)
        fail(name, "not a .npy file (bad magic; a .npy file starts with \\x93NUMPY)");
    if (bytes.size() < magic_size + 2) fail(name, "truncated header (file ends after the magic)");
    major = int(bytes[6]);
    int minor = int(bytes[7]);
    if (major < 1 || major > 3 || minor != 0)
        fail(name, "unsupported .npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + "; accepted: 1.0, 2.0, 3.0");
    size_t len_size = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + len_size)
        fail(name, "truncated header (file ends inside the header length)");
    size_t len = 0;
    for (size_t i = 0; i < len_size; ++i) len |= size_t(bytes[8 + i]) << (8 * i);
    return 8 + len_size + len;
}

/// Parses the header, given at least header_end() bytes.
Header parse_header(std::span<const std::byte> bytes, const std::string& name) {
    int major = 0;
    size_t end = header_end(bytes, name, major);
    if (bytes.size() < end)
        fail(name, "truncated header (it declares " + std::to_string(end) +
                       " bytes, the file has " + std::to_string(bytes.size()) + ")");
    size_t start = major == 1 ? 10 : 12;
    std::string_view text(reinterpret_cast<const char*>(bytes.data()) + start, end - start);
    Literal lit(text, name);

    std::optional<std::string> descr;
    std::optional<bool> fortran;
    std::optional<std::vector<size_t>> dims;
    lit.expect('{');
    while (!lit.consume('}')) {
        std::string key = lit.string();
        lit.expect(':');
        if (key == "descr") {
            if (lit.peek() == '[')
                fail(name, "structured dtypes are not supported; " + std::string(accepted_descrs));
            descr = lit.string();
        } else if (key == "fortran_order") {
            fortran = lit.boolean();
        } else if (key == "shape") {
            dims = lit.tuple();
        } else {
            lit.bad("unexpected key '" + key + "'");
        }
        if (!lit.consume(',')) {
            lit.expect('}');
            break;
        }
    }
    if (!descr || !fortran || !dims) lit.bad("missing key");

    Header h;
    parse_descr(*descr, name, h);
    if (*fortran)
        fail(name, "Fortran-order arrays are not supported; save a C-order array "
                   "(numpy.ascontiguousarray) instead");
    if (dims->empty() || dims->size() > 3)
        fail(name, "array has " + std::to_string(dims->size()) +
                       " dimensions; kiln reads arrays with 1, 2 or 3 dimensions");
    if (std::find(dims->begin(), dims->end(), size_t(0)) != dims->end())
        fail(name, "array is empty (a zero extent in its shape); every extent must be >= 1");
    try {
        h.shape = Shape::of(dims->size(), dims->data());
    } catch (const InvalidArgument& e) {
        fail(name, std::string("header declares an array kiln cannot hold: ") + e.what());
    }
    h.data_offset = end;
    return h;
}

/// Bytes of the data in the file.
uint64_t stored_bytes(const Header& h) { return h.half ? uint64_t(h.shape.size()) * 2 : byte_size(h.shape, h.dtype); }

void check_data_size(const std::string& name, const Header& h, size_t have) {
    // Bytes past the data are ignored, as numpy.load ignores them.
    const uint64_t need = stored_bytes(h);
    if (have < need)
        fail(name, "truncated data (shape " + h.shape.str() + " of " +
                       (h.half ? std::string("float16") : std::string(dtype_name(h.dtype))) + " needs " +
                       std::to_string(need) +
                       " bytes, the file has " + std::to_string(have) + ")");
}

void swap_bytes(HostArray& a) {
    // A complex element is two floats, each swapped on its own.
    size_t n = dtype_size(dtype_real_part(a.dtype));
    for (size_t i = 0; i < a.bytes.size(); i += n) std::reverse(&a.bytes[i], &a.bytes[i] + n);
}

/// The float32 of IEEE binary16 bits: every float16 (subnormals, infinities,
/// NaN with its payload's top bits) is exactly a float32.
float half_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h >> 15) << 31;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    uint32_t bits = 0;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else {
        // Subnormal: shift the mantissa up until its leading 1 is implicit.
        int e = 1;
        while (!(mant & 0x400)) mant <<= 1, --e;
        bits = sign | (uint32_t(e + 127 - 15) << 23) | ((mant & 0x3ff) << 13);
    }
    return std::bit_cast<float>(bits);
}

/// The array of a header and its data as stored (bytes, at least
/// stored_bytes(h) of them): float16 widened, byte order made native.
void fill_array(const Header& h, std::span<const std::byte> data, HostArray& a) {
    if (!h.half) {
        std::memcpy(a.bytes.data(), data.data(), a.nbytes());
        if (h.swap) swap_bytes(a);
        return;
    }
    auto out = a.as<float>();
    for (size_t i = 0; i < out.size(); ++i) {
        uint8_t b0 = uint8_t(data[2 * i]), b1 = uint8_t(data[2 * i + 1]);
        const bool little = (std::endian::native == std::endian::little) != h.swap;
        out[i] = half_to_float(little ? uint16_t(b0 | b1 << 8) : uint16_t(b1 | b0 << 8));
    }
}

void check_array(const HostArray& a) {
    if (a.shape.empty())
        throw InvalidArgument("write_npy: the array has no shape; kiln arrays have 1 to 3 "
                              "dimensions");
    if (a.bytes.size() != a.shape.size() * dtype_size(a.dtype))
        throw InvalidArgument("write_npy: the array holds " + std::to_string(a.bytes.size()) +
                              " bytes, but shape " + a.shape.str() + " of " +
                              std::string(dtype_name(a.dtype)) + " needs " +
                              std::to_string(a.shape.size() * dtype_size(a.dtype)));
}

std::string descr_of(DType t) {
    switch (t) {
    case DType::float32: return "<f4";
    case DType::float64: return "<f8";
    case DType::int8: return "|i1";
    case DType::uint8: return "|u1";
    case DType::int16: return "<i2";
    case DType::uint16: return "<u2";
    case DType::int32: return "<i4";
    case DType::uint32: return "<u4";
    case DType::int64: return "<i8";
    case DType::uint64: return "<u8";
    case DType::complex64: return "<c8";
    case DType::complex128: return "<c16";
    }
    throw InvalidArgument("write_npy: unknown dtype");
}

/// Magic, version, length and padded header text for the array.
std::vector<std::byte> encode_header(const HostArray& a) {
    std::vector<size_t> dims;
    for (size_t i = 0; i < a.shape.ndim(); ++i) dims.push_back(a.shape[i]);
    const std::string out = npy_header(descr_of(a.dtype), dims);
    auto* p = reinterpret_cast<const std::byte*>(out.data());
    return {p, p + out.size()};
}

} // namespace

std::string npy_header(const std::string& descr, const std::vector<size_t>& shape, size_t min_size) {
    std::string tuple = "(";
    for (size_t i = 0; i < shape.size(); ++i) tuple += (i ? ", " : "") + std::to_string(shape[i]);
    tuple += shape.size() == 1 ? ",)" : ")";
    const std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + tuple + ", }";
    // Few dimensions keep the header far below the 64 KiB that format 1.0's
    // 16-bit length allows, so 2.0 is never needed for writing.
    const size_t size =
        (std::max(10 + dict.size() + 1, min_size) + header_align - 1) / header_align * header_align;
    const size_t len = size - 10;
    std::string out(magic, magic_size);
    out += char(1);
    out += char(0);
    out += char(len & 0xff);
    out += char(len >> 8);
    out += dict;
    out.append(size - out.size() - 1, ' ');
    out += '\n';
    return out;
}

HostArray parse_npy(std::span<const std::byte> bytes, const std::string& name_for_errors) {
    Header h = parse_header(bytes, name_for_errors);
    check_data_size(name_for_errors, h, bytes.size() - h.data_offset);
    HostArray a(h.shape, h.dtype);
    fill_array(h, bytes.subspan(h.data_offset), a);
    return a;
}

std::vector<std::byte> encode_npy(const HostArray& array) {
    check_array(array);
    std::vector<std::byte> out = encode_header(array);
    size_t offset = out.size();
    out.insert(out.end(), array.bytes.begin(), array.bytes.end());
    if constexpr (std::endian::native == std::endian::big) {
        HostArray copy = array;
        swap_bytes(copy);
        std::copy(copy.bytes.begin(), copy.bytes.end(), out.begin() + offset);
    }
    return out;
}

void write_npy(const std::string& path, const HostArray& array) {
    check_array(array);
    if constexpr (std::endian::native == std::endian::big) {
        std::vector<std::byte> bytes = encode_npy(array);
        std::span<const std::byte> parts[] = {bytes};
        write_file_atomically(path, parts);
    } else {
        // Header and data go out as two parts so a large array is not copied.
        std::vector<std::byte> header = encode_header(array);
        std::span<const std::byte> parts[] = {header, array.bytes};
        write_file_atomically(path, parts);
    }
}

HostArray read_npy(const std::string& path) {
    // Read the header first and the data straight into the array, so a large
    // file is not held twice in memory.
    File file = File::open_read(path);
    size_t file_size = file.size();
    std::vector<std::byte> head(std::min<size_t>(file_size, 12));
    file.read_exactly(head);
    int major = 0;
    size_t end = header_end(head, path, major);
    if (end > file_size)
        fail(path, "truncated header (it declares " + std::to_string(end) +
                       " bytes, the file has " + std::to_string(file_size) + ")");
    size_t got = head.size();
    head.resize(end);
    if (end > got) file.read_exactly(std::span(head).subspan(got));
    Header h = parse_header(head, path);
    check_data_size(path, h, file_size - end);
    HostArray a(h.shape, h.dtype);
    if (h.half) {
        std::vector<std::byte> stored(stored_bytes(h));
        file.read_exactly(stored);
        fill_array(h, stored, a);
    } else {
        file.read_exactly(a.bytes);
        if (h.swap) swap_bytes(a);
    }
    return a;
}

} // namespace kiln::io
