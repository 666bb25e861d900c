#include "kiln/bslz4_host.hpp"

#include <lz4.h>

#include <algorithm>
#include <cstring>

#include "kiln/error.hpp"

namespace kiln {
namespace {

constexpr size_t header_bytes = 12;
constexpr size_t block_multiple = 8;  // elements; the transpose works on groups of 8

// Transposes an 8x8 bit matrix held as 8 bytes (row m = byte m, column k =
// bit k): afterwards byte k bit m is what byte m bit k was.
uint64_t transpose_8x8(uint64_t x) {
    uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
    x ^= t ^ (t << 28);
    return x;
}

void check_elem_size(size_t bytes, size_t elem_size, const char* fn) {
    if (elem_size == 0) throw InvalidArgument(std::string(fn) + ": element size 0; it must be >= 1 byte");
    if (bytes % elem_size != 0)
        throw InvalidArgument(std::string(fn) + ": " + std::to_string(bytes) +
                              " bytes is not a whole number of " + std::to_string(elem_size) +
                              "-byte elements");
}

// Shuffles n elements (n a multiple of 8) from src into dst (same size). Bit
// row r = 8 * byte + bit of the element holds n / 8 bytes.
void shuffle_block(const uint8_t* src, uint8_t* dst, size_t n, size_t elem_size) {
    const size_t row_bytes = n / 8;
    for (size_t g = 0; g < row_bytes; ++g) {
        const uint8_t* group = src + g * 8 * elem_size;
        for (size_t j = 0; j < elem_size; ++j) {
            uint64_t x = 0;
            for (size_t m = 0; m < 8; ++m) x |= uint64_t(group[m * elem_size + j]) << (8 * m);
            x = transpose_8x8(x);
            for (size_t k = 0; k < 8; ++k) dst[(j * 8 + k) * row_bytes + g] = uint8_t(x >> (8 * k));
        }
    }
}

void unshuffle_block(const uint8_t* src, uint8_t* dst, size_t n, size_t elem_size) {
    const size_t row_bytes = n / 8;
    for (size_t g = 0; g < row_bytes; ++g) {
        uint8_t* group = dst + g * 8 * elem_size;
        for (size_t j = 0; j < elem_size; ++j) {
            uint64_t x = 0;
            for (size_t k = 0; k < 8; ++k) x |= uint64_t(src[(j * 8 + k) * row_bytes + g]) << (8 * k);
            x = transpose_8x8(x);
            for (size_t m = 0; m < 8; ++m) group[m * elem_size + j] = uint8_t(x >> (8 * m));
        }
    }
}

uint64_t read_be(const uint8_t* p, size_t bytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

void write_be(uint8_t* p, uint64_t v, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i) p[i] = uint8_t(v >> (8 * (bytes - 1 - i)));
}

[[noreturn]] void corrupt(const std::string& what, const std::string& problem) {
    throw IoError(what + ": corrupt bitshuffle-LZ4 chunk: " + problem);
}

// Largest compressed size LZ4 can produce for n input bytes; anything larger
// in a block header is corruption, not data.
uint64_t lz4_bound(uint64_t n) {
    return n + n / 255 + 16;
}

// Reads an LZ4 length extension (bytes of 255 continue it) onto `len`.
size_t read_length(std::span<const uint8_t> src, size_t& ip, size_t len, size_t limit,
                   const std::string& what, const char* kind) {
    for (;;) {
        if (ip >= src.size()) throw IoError(what + ": LZ4 block truncated inside a " + kind + " length");
        const uint8_t b = src[ip++];
        len += b;
        // A length past the output capacity is already an error; stopping here
        // also keeps the sum far from overflow.
        if (len > limit)
            throw IoError(what + ": LZ4 " + kind + " length " + std::to_string(len) + " exceeds the " +
                          std::to_string(limit) + "-byte block");
        if (b != 255) return len;
    }
}

}  // namespace

std::vector<uint8_t> bitshuffle(std::span<const uint8_t> data, size_t elem_size) {
    check_elem_size(data.size(), elem_size, "bitshuffle");
    const size_t n = data.size() / elem_size;
    const size_t n8 = n - n % block_multiple;
    std::vector<uint8_t> out(data.size());
    shuffle_block(data.data(), out.data(), n8, elem_size);
    std::copy(data.begin() + n8 * elem_size, data.end(), out.begin() + n8 * elem_size);
    return out;
}

std::vector<uint8_t> bitunshuffle(std::span<const uint8_t> data, size_t elem_size) {
    check_elem_size(data.size(), elem_size, "bitunshuffle");
    const size_t n = data.size() / elem_size;
    const size_t n8 = n - n % block_multiple;
    std::vector<uint8_t> out(data.size());
    unshuffle_block(data.data(), out.data(), n8, elem_size);
    std::copy(data.begin() + n8 * elem_size, data.end(), out.begin() + n8 * elem_size);
    return out;
}

size_t bslz4_default_block_size(size_t elem_size) {
    // Fixed by the format: chunks written with block size 0 depend on it.
    const size_t target_bytes = 8192, min_elems = 128;
    size_t n = target_bytes / std::max<size_t>(elem_size, 1);
    n -= n % block_multiple;
    return std::max(n, min_elems);
}

std::vector<uint8_t> bslz4_compress(std::span<const uint8_t> data, size_t elem_size, size_t block_size) {
    check_elem_size(data.size(), elem_size, "bslz4_compress");
    if (block_size == 0) block_size = bslz4_default_block_size(elem_size);
    if (block_size % block_multiple != 0)
        throw InvalidArgument("bslz4_compress: block size " + std::to_string(block_size) +
                              " elements; it must be a multiple of 8 (or 0 for the default)");
    const uint64_t block_bytes = uint64_t(block_size) * elem_size;
    if (block_bytes > uint64_t(LZ4_MAX_INPUT_SIZE))
        throw InvalidArgument("bslz4_compress: block of " + std::to_string(block_bytes) +
                              " bytes; LZ4 accepts at most " + std::to_string(LZ4_MAX_INPUT_SIZE));

    const size_t n = data.size() / elem_size;
    std::vector<uint8_t> out(header_bytes);
    write_be(out.data(), data.size(), 8);
    write_be(out.data() + 8, block_bytes, 4);

    const size_t scratch = size_t(std::min<uint64_t>(block_bytes, data.size()));
    std::vector<uint8_t> shuffled(scratch);
    std::vector<uint8_t> packed(static_cast<size_t>(LZ4_compressBound(int(scratch))));
    auto put_block = [&](size_t first, size_t count) {
        const size_t bytes = count * elem_size;
        shuffle_block(data.data() + first * elem_size, shuffled.data(), count, elem_size);
        const int len =
            LZ4_compress_default(reinterpret_cast<const char*>(shuffled.data()),
                                 reinterpret_cast<char*>(packed.data()), int(bytes), int(packed.size()));
        if (len <= 0) throw Error("bslz4_compress: LZ4_compress_default failed");
        const size_t at = out.size();
        out.resize(at + 4 + size_t(len));
        write_be(out.data() + at, uint64_t(len), 4);
        std::memcpy(out.data() + at + 4, packed.data(), size_t(len));
    };
    size_t first = 0;
    for (; first + block_size <= n; first += block_size) put_block(first, block_size);
    const size_t last = (n - first) - (n - first) % block_multiple;
    if (last > 0) put_block(first, last);
    first += last;
    out.insert(out.end(), data.begin() + first * elem_size, data.end());
    return out;
}

uint64_t bslz4_uncompressed_size(std::span<const uint8_t> chunk, const std::string& what) {
    if (chunk.size() < header_bytes)
        throw IoError(what + ": truncated bitshuffle-LZ4 chunk: " + std::to_string(chunk.size()) +
                      " bytes, shorter than the 12-byte header");
    return read_be(chunk.data(), 8);
}

std::vector<BslzBlock> bslz4_blocks(std::span<const uint8_t> chunk, size_t elem_size,
                                    const std::string& what) {
    if (elem_size == 0) throw InvalidArgument("bslz4_blocks: element size 0; it must be >= 1");
    const uint64_t total = bslz4_uncompressed_size(chunk, what);
    uint64_t block_bytes = read_be(chunk.data() + 8, 4);
    if (total % elem_size != 0)
        corrupt(what, "uncompressed size " + std::to_string(total) + " is not a whole number of " +
                          std::to_string(elem_size) + "-byte elements");
    if (block_bytes == 0) block_bytes = uint64_t(bslz4_default_block_size(elem_size)) * elem_size;
    if (block_bytes % (block_multiple * elem_size) != 0)
        corrupt(what, "block size " + std::to_string(block_bytes) +
                          " bytes is not a multiple of 8 elements of " + std::to_string(elem_size) +
                          " bytes");

    const uint64_t n = total / elem_size;
    const uint64_t block_elems = block_bytes / elem_size;
    const uint64_t full_blocks = n / block_elems;
    const uint64_t last_elems = (n % block_elems) - (n % block_elems) % block_multiple;
    const uint64_t block_count = full_blocks + (last_elems ? 1 : 0);
    const uint64_t tail_bytes = (n % block_multiple) * elem_size;

    std::vector<BslzBlock> blocks;
    // Each block takes at least 5 chunk bytes, which bounds a corrupt header's count.
    blocks.reserve(size_t(std::min<uint64_t>(block_count, chunk.size() / 5)) + 1);
    uint64_t pos = header_bytes, dst = 0;
    for (uint64_t b = 0; b < block_count; ++b) {
        const uint64_t dst_size = b < full_blocks ? block_bytes : last_elems * elem_size;
        // Named only for an error: this loop runs for every block of every frame.
        auto where = [&, at = pos] {
            return "block " + std::to_string(b) + " of " + std::to_string(block_count) + " at byte " +
                   std::to_string(at);
        };
        if (chunk.size() - pos < 4)
            throw IoError(what + ": truncated bitshuffle-LZ4 chunk: " + where() +
                          " has no room for its 4-byte length (chunk is " + std::to_string(chunk.size()) +
                          " bytes)");
        const uint64_t len = read_be(chunk.data() + pos, 4);
        pos += 4;
        if (len == 0 || len > lz4_bound(dst_size))
            corrupt(what, where() + " claims " + std::to_string(len) + " compressed bytes for " +
                              std::to_string(dst_size) + " uncompressed (accepted: 1 to " +
                              std::to_string(lz4_bound(dst_size)) + ")");
        if (len > chunk.size() - pos)
            throw IoError(what + ": truncated bitshuffle-LZ4 chunk: " + where() + " needs " +
                          std::to_string(len) + " bytes, " + std::to_string(chunk.size() - pos) + " remain");
        blocks.push_back({pos, uint32_t(len), dst, uint32_t(dst_size), false});
        pos += len;
        dst += dst_size;
    }
    const uint64_t remaining = chunk.size() - pos;
    if (remaining < tail_bytes)
        throw IoError(what + ": truncated bitshuffle-LZ4 chunk: the " + std::to_string(tail_bytes) +
                      " raw trailing bytes are missing (" + std::to_string(remaining) + " remain)");
    if (remaining > tail_bytes)
        corrupt(what, std::to_string(remaining - tail_bytes) +
                          " unexpected bytes after the last block (the header announces " +
                          std::to_string(total) + " uncompressed bytes)");
    if (tail_bytes) blocks.push_back({pos, uint32_t(tail_bytes), dst, uint32_t(tail_bytes), true});
    return blocks;
}

void lz4_decode_block(std::span<const uint8_t> src, std::span<uint8_t> dst, const std::string& what) {
    constexpr size_t min_match = 4;
    size_t ip = 0, op = 0;
    for (;;) {
        if (ip >= src.size())
            throw IoError(what + ": LZ4 block ends after a match (" + std::to_string(op) + " of " +
                          std::to_string(dst.size()) + " bytes decoded); a block must end with literals");
        const uint8_t token = src[ip++];
        size_t lit = token >> 4;
        if (lit == 15) lit = read_length(src, ip, lit, dst.size(), what, "literal");
        if (lit > src.size() - ip)
            throw IoError(what + ": LZ4 block truncated: a run of " + std::to_string(lit) +
                          " literals at byte " + std::to_string(ip) + " passes its end (" +
                          std::to_string(src.size()) + " bytes)");
        if (lit > dst.size() - op)
            throw IoError(what + ": LZ4 block decodes to more than the expected " +
                          std::to_string(dst.size()) + " bytes");
        std::memcpy(dst.data() + op, src.data() + ip, lit);
        ip += lit;
        op += lit;
        if (ip == src.size()) break;  // the last sequence has literals only

        if (src.size() - ip < 2) throw IoError(what + ": LZ4 block truncated inside a match offset");
        const size_t offset = size_t(src[ip]) | size_t(src[ip + 1]) << 8;
        ip += 2;
        if (offset == 0 || offset > op)
            throw IoError(what + ": LZ4 match offset " + std::to_string(offset) + " at output byte " +
                          std::to_string(op) + " points outside the decoded data");
        size_t len = token & 15;
        if (len == 15) len = read_length(src, ip, len, dst.size(), what, "match");
        len += min_match;
        if (len > dst.size() - op)
            throw IoError(what + ": LZ4 block decodes to more than the expected " +
                          std::to_string(dst.size()) + " bytes");
        uint8_t* out = dst.data() + op;
        const uint8_t* from = out - offset;
        if (offset >= len) {
            std::memcpy(out, from, len);
        } else {
            // Overlapping match: the last `offset` bytes repeat. Once a whole
            // number of periods is in place it can be copied as one block, so
            // the copied length doubles each step (bit planes of sparse
            // counts are long runs of offset 1).
            std::memcpy(out, from, offset);
            size_t done = offset;
            while (done < len) {
                const size_t n = std::min(done, len - done);
                std::memcpy(out + done, out, n);
                done += n;
            }
        }
        op += len;
    }
    if (op != dst.size())
        throw IoError(what + ": LZ4 block decodes to " + std::to_string(op) + " bytes, expected " +
                      std::to_string(dst.size()));
}

void bslz4_decompress(std::span<const uint8_t> chunk, size_t elem_size, std::span<uint8_t> out,
                      const std::string& what) {
    const uint64_t total = bslz4_uncompressed_size(chunk, what);
    if (total != out.size())
        throw IoError(what + ": bitshuffle-LZ4 chunk holds " + std::to_string(total) +
                      " uncompressed bytes, expected " + std::to_string(out.size()));
    const std::vector<BslzBlock> blocks = bslz4_blocks(chunk, elem_size, what);
    std::vector<uint8_t> shuffled;
    for (size_t b = 0; b < blocks.size(); ++b) {
        const BslzBlock& k = blocks[b];
        const auto src = chunk.subspan(size_t(k.src_offset), k.src_size);
        if (k.raw) {
            std::memcpy(out.data() + k.dst_offset, src.data(), k.dst_size);
            continue;
        }
        shuffled.resize(k.dst_size);
        lz4_decode_block(src, shuffled, what + ": block " + std::to_string(b));
        unshuffle_block(shuffled.data(), out.data() + k.dst_offset, k.dst_size / elem_size, elem_size);
    }
}

}  // namespace kiln
