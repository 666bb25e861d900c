// h5_chunk_index.hpp: the dataset's object header (version 1 or 2, with its
// continuation chunks), its data layout message, and the version 1 B-tree
// and fixed array chunk indexes, read with pread and checked as they go.
// Written from the HDF5 File Format Specification (version 3.0).
#include "io/h5_chunk_index.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>

#include "io/h5_util.hpp"
#include "kiln/error.hpp"

namespace kiln::io {

namespace {

constexpr uint64_t max_header_bytes = uint64_t(64) << 20;  // an object header, all its chunks
constexpr size_t max_header_chunks = 4096;
constexpr unsigned max_btree_level = 64;
constexpr uint16_t msg_layout = 0x0008, msg_continuation = 0x0010;

// Little-endian fields of bytes read from the file; running past the end is
// an IoError naming the structure.
class Cursor {
public:
    Cursor(std::span<const std::byte> bytes, std::string what) : b_(bytes), what_(std::move(what)) {}
    size_t left() const { return b_.size() - at_; }
    uint64_t uint(unsigned n) {
        need(n);
        uint64_t v = 0;
        for (unsigned i = 0; i < n; ++i) v |= std::to_integer<uint64_t>(b_[at_ + i]) << (8 * i);
        at_ += n;
        return v;
    }
    uint8_t u8() { return uint8_t(uint(1)); }
    void skip(size_t n) {
        need(n);
        at_ += n;
    }
    std::span<const std::byte> take(size_t n) {
        need(n);
        const auto s = b_.subspan(at_, n);
        at_ += n;
        return s;
    }
    bool signature(const char (&sig)[5]) {
        const auto s = take(4);
        return std::memcmp(s.data(), sig, 4) == 0;
    }

private:
    void need(size_t n) const {
        if (n > left())
            throw IoError(what_ + " ends early: " + std::to_string(n) + " more bytes needed, " +
                          std::to_string(left()) + " left");
    }
    std::span<const std::byte> b_;
    size_t at_ = 0;
    std::string what_;
};

std::string hex(uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    do {
        s.insert(s.begin(), digits[v & 15]);
        v >>= 4;
    } while (v);
    return "0x" + s;
}

// Scaled chunk coordinates (offset / chunk extent) of a B-tree key, the
// element-size dimension last; compared lexicographically, as HDF5 does.
using Scaled = std::array<uint64_t, 4>;

class IndexReader {
public:
    IndexReader(const File& file, uint64_t size, const ChunkIndexQuery& q, const std::string& what)
        : file_(file), size_(size), q_(q), what_(what), rank_(unsigned(q.dims.size())) {
        undefined_ = q.sizeof_addr >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * q.sizeof_addr)) - 1;
        nominal_ = q.element_size;
        for (uint64_t c : q.chunk) nominal_ = mul(nominal_, c, "a chunk's bytes");
        frames_ = rank_ == 3 ? q.dims[0] : 1;
    }

    ChunkIndex read() {
        const std::vector<std::byte> layout = layout_message();
        return decode_layout(layout);
    }

private:
    [[noreturn]] void fail(const std::string& msg) const { throw IoError(what_ + ": chunk index: " + msg); }

    uint64_t mul(uint64_t a, uint64_t b, const char* what) const {
        uint64_t r = 0;
        if (__builtin_mul_overflow(a, b, &r)) fail(std::string(what) + " overflows 64 bits");
        return r;
    }

    uint64_t sum(uint64_t a, uint64_t b) const {
        uint64_t r = 0;
        if (__builtin_add_overflow(a, b, &r)) fail("an address past 2^64");
        return r;
    }

    // `n` bytes at HDF5 address `addr`, which must lie within the file.
    std::vector<std::byte> block(uint64_t addr, uint64_t n, const std::string& what) const {
        if (addr == undefined_ || addr > size_ || q_.base > size_ - addr || n > size_ - addr - q_.base)
            fail(what + " at address " + hex(addr) + " (" + std::to_string(n) +
                 " bytes) lies beyond the end of the file (" + std::to_string(size_) + " bytes)");
        std::vector<std::byte> out(n);
        file_.read_at(q_.base + addr, out);
        return out;
    }
    // Bytes of the file from HDF5 address `addr` on, at most `n`.
    uint64_t available(uint64_t addr, uint64_t n) const {
        if (addr > size_ || q_.base > size_ - addr) return 0;
        return std::min(n, size_ - addr - q_.base);
    }

    void check_sum(std::span<const std::byte> covered, std::span<const std::byte> stored,
                   const std::string& what) const {
        uint32_t want = 0;
        for (size_t i = 0; i < 4; ++i) want |= std::to_integer<uint32_t>(stored[i]) << (8 * i);
        const uint32_t got = lookup3(covered);
        if (got != want)
            fail(what + ": checksum " + hex(got) + " where " + hex(want) + " is stored (corrupt metadata)");
    }

    // --- object header -----------------------------------------------------

    std::vector<std::byte> layout_message() {
        const uint64_t header = q_.header;
        const std::vector<std::byte> head = block(header, available(header, 64), "the object header");
        Cursor prefix(head, what_ + ": object header at " + hex(header));
        struct Region {
            uint64_t addr, bytes;
        };
        std::vector<Region> todo;
        unsigned version = 0;
        bool creation_order = false;
        if (head.size() >= 4 && std::memcmp(head.data(), "OHDR", 4) == 0) {
            prefix.skip(4);
            version = prefix.u8();
            if (version != 2) fail("object header version " + std::to_string(version) + "; kiln reads 1 and 2");
            const uint8_t flags = prefix.u8();
            creation_order = flags & 0x04;
            if (flags & 0x20) prefix.skip(16);  // access, modification, change and birth times
            if (flags & 0x10) prefix.skip(4);   // attribute storage phase change values
            const uint64_t chunk0 = prefix.uint(1u << (flags & 3));
            if (chunk0 > max_header_bytes) fail("object header chunk of " + std::to_string(chunk0) + " bytes");
            const uint64_t prefix_bytes = head.size() - prefix.left();
            todo.push_back({header, prefix_bytes + chunk0 + 4});
        } else {
            version = prefix.u8();
            if (version != 1) fail("object header version " + std::to_string(version) + "; kiln reads 1 and 2");
            prefix.skip(1 + 2 + 4);  // reserved, message count, reference count
            const uint64_t chunk0 = prefix.uint(4);
            todo.push_back({header + 16, chunk0});  // messages start 8-byte aligned, after 12 bytes
        }

        std::optional<std::vector<std::byte>> layout;
        std::set<uint64_t> seen;
        uint64_t total = 0;
        for (size_t i = 0; i < todo.size(); ++i) {
            const Region r = todo[i];
            if (i >= max_header_chunks) fail("the object header has more than " + std::to_string(max_header_chunks) + " chunks");
            if (!seen.insert(r.addr).second) fail("the object header's chunk at " + hex(r.addr) + " is continued twice");
            total += r.bytes;
            if (r.bytes > max_header_bytes || total > max_header_bytes)
                fail("object header chunks of more than " + std::to_string(max_header_bytes) + " bytes");
            const std::string name = "object header chunk at " + hex(r.addr);
            const std::vector<std::byte> bytes = block(r.addr, r.bytes, name);
            std::span<const std::byte> messages(bytes);
            if (version == 2) {
                if (bytes.size() < 8) fail(name + ": " + std::to_string(bytes.size()) + " bytes, too short");
                check_sum(messages.first(bytes.size() - 4), messages.last(4), name);
                if (i > 0 && std::memcmp(bytes.data(), "OCHK", 4) != 0) fail(name + ": no OCHK signature");
                const size_t prefix_bytes = i == 0 ? head.size() - prefix.left() : 4;
                if (prefix_bytes + 4 > bytes.size()) fail(name + ": shorter than its prefix");
                messages = messages.subspan(prefix_bytes, bytes.size() - prefix_bytes - 4);
            }
            Cursor c(messages, what_ + ": " + name);
            const size_t message_header = version == 1 ? 8 : (creation_order ? 6 : 4);
            while (c.left() >= message_header) {
                const uint16_t type = uint16_t(c.uint(version == 1 ? 2 : 1));
                const uint64_t bytes_of = c.uint(2);
                const uint8_t flags = c.u8();
                c.skip(message_header - (version == 1 ? 5 : 4));
                const auto data = c.take(bytes_of);
                if (type == msg_continuation) {
                    Cursor m(data, what_ + ": continuation message in " + name);
                    const uint64_t addr = m.uint(q_.sizeof_addr), len = m.uint(q_.sizeof_size);
                    todo.push_back({addr, len});
                } else if (type == msg_layout) {
                    if (layout) fail("two data layout messages");
                    if (flags & 0x02) fail("the data layout message is marked shared");
                    layout.emplace(data.begin(), data.end());
                }
            }
        }
        if (!layout) fail("the object header at " + hex(header) + " has no data layout message");
        return *layout;
    }

    // --- data layout message -------------------------------------------------

    // The chunk dimensions the layout message states: the dataset's chunk,
    // then the element size.
    void check_chunk_dims(Cursor& c, unsigned ndims, unsigned bytes_each) {
        if (ndims != rank_ + 1)
            fail("layout message of " + std::to_string(ndims) + " dimensions for a dataset of rank " +
                 std::to_string(rank_));
        for (unsigned u = 0; u < ndims; ++u) {
            const uint64_t d = c.uint(bytes_each);
            const uint64_t want = u < rank_ ? q_.chunk[u] : q_.element_size;
            if (d != want)
                fail("layout message's chunk dimension " + std::to_string(u) + " is " + std::to_string(d) +
                     ", HDF5 reports " + std::to_string(want));
        }
    }

    ChunkIndex decode_layout(std::span<const std::byte> bytes) {
        Cursor c(bytes, what_ + ": data layout message");
        ChunkIndex out;
        const unsigned version = c.u8();
        if (version < 3 || version > 4) {
            out.kind = "layout message version " + std::to_string(version);
            return out;
        }
        const unsigned layout_class = c.u8();
        if (layout_class != 2) fail("layout class " + std::to_string(layout_class) + " for a chunked dataset");
        if (version == 3) {
            const unsigned ndims = c.u8();
            const uint64_t root = c.uint(q_.sizeof_addr);
            check_chunk_dims(c, ndims, 4);
            out.kind = "version 1 B-tree";
            out.supported = true;
            if (root != undefined_) btree(root, out);
            return out;
        }
        const uint8_t flags = c.u8();
        const unsigned ndims = c.u8(), bytes_each = c.u8();
        if (bytes_each < 1 || bytes_each > 8)
            fail("layout message's dimensions of " + std::to_string(bytes_each) + " bytes (1 to 8 accepted)");
        check_chunk_dims(c, ndims, bytes_each);
        const unsigned type = c.u8();
        unsigned page_bits = 0;
        switch (type) {
            case 1:
                out.kind = "single chunk";
                if (flags & 0x02) c.skip(q_.sizeof_size + 4);
                break;
            case 2:
                out.kind = "implicit";
                break;
            case 3:
                out.kind = "fixed array";
                page_bits = c.u8();
                break;
            case 4:
                out.kind = "extensible array";
                c.skip(5);
                break;
            case 5:
                out.kind = "version 2 B-tree";
                c.skip(6);
                break;
            default:
                fail("chunk index type " + std::to_string(type) + " (1 to 5 exist)");
        }
        const uint64_t addr = c.uint(q_.sizeof_addr);
        if (type != 3) return out;
        out.supported = true;
        if (addr != undefined_) fixed_array(addr, page_bits, out);
        return out;
    }

    // A stored chunk at scaled coordinates `s`, checked against the grid.
    void add(ChunkIndex& out, const Scaled& s, uint64_t addr, uint64_t bytes, uint32_t mask) {
        const uint64_t frame = rank_ == 3 ? s[0] : 0;
        for (unsigned u = rank_ == 3 ? 1 : 0; u <= rank_; ++u)
            if (s[u] != 0) fail("a chunk at chunk coordinate " + std::to_string(s[u]) + " of dimension " +
                                std::to_string(u) + ", where chunks span the whole frame");
        if (frame >= frames_)
            fail("a chunk for frame " + std::to_string(frame) + " of a dataset of " + std::to_string(frames_) +
                 " frames");
        if (!out.chunks.empty() && frame <= out.chunks.back().frame)
            fail("frame " + std::to_string(frame) + "'s chunk listed after frame " +
                 std::to_string(out.chunks.back().frame) + "'s (out of order, or twice)");
        if (addr == undefined_) fail("frame " + std::to_string(frame) + "'s chunk has no address");
        if (bytes == 0) fail("frame " + std::to_string(frame) + "'s chunk of 0 bytes");
        out.chunks.push_back({frame, addr, bytes, mask});
    }

    // --- version 1 B-tree (node type 1: raw data chunks) -------------------

    struct Node {
        uint64_t addr;
        int level;  // -1: the root, any level
        Scaled lo, hi;
        bool bounded;
    };

    static bool less(const Scaled& a, const Scaled& b, unsigned n) {
        return std::lexicographical_compare(a.begin(), a.begin() + n, b.begin(), b.begin() + n);
    }

    void btree(uint64_t root, ChunkIndex& out) {
        const unsigned nd = rank_ + 1, sa = q_.sizeof_addr;
        const uint64_t key_bytes = 8 + 8 * uint64_t(nd), head_bytes = 8 + 2 * uint64_t(sa);
        const uint64_t max_entries = std::min<uint64_t>(2 * uint64_t(q_.btree_k), 0xFFFF);
        std::map<uint64_t, uint64_t> extents;  // nodes read: first byte -> one past the last
        std::vector<Node> stack{{root, -1, {}, {}, false}};
        while (!stack.empty()) {
            const Node n = stack.back();
            stack.pop_back();
            const std::string name = "B-tree node at " + hex(n.addr);
            const std::vector<std::byte> head = block(n.addr, head_bytes, name);
            Cursor h(head, what_ + ": " + name);
            if (!h.signature("TREE")) fail(name + ": no TREE signature");
            const unsigned type = h.u8(), level = h.u8();
            const uint64_t entries = h.uint(2);
            if (type != 1) fail(name + ": node type " + std::to_string(type) + " where chunks' (1) belong");
            if (n.level < 0) out.levels = level + 1;
            if (n.level >= 0 ? int(level) != n.level : level > max_btree_level)
                fail(name + ": level " + std::to_string(level) +
                     (n.level >= 0 ? " below a node of level " + std::to_string(n.level + 1)
                                   : " (at most " + std::to_string(max_btree_level) + ")"));
            if (entries > max_entries || (entries == 0 && n.level >= 0))
                fail(name + ": " + std::to_string(entries) + " entries (1 to " + std::to_string(max_entries) +
                     " in a tree of K = " + std::to_string(q_.btree_k) + ")");
            const uint64_t body = entries * (key_bytes + sa) + key_bytes;
            const uint64_t end = n.addr + head_bytes + body;
            // Nodes may not overlap: each byte of the file is read once, and
            // a node reached twice (a cycle, or two parents) is refused.
            const auto next = extents.lower_bound(n.addr);
            if ((next != extents.end() && next->first < end) ||
                (next != extents.begin() && std::prev(next)->second > n.addr))
                fail(name + " overlaps another node (reached twice, or a corrupt child address)");
            extents.emplace(n.addr, end);
            const std::vector<std::byte> data = block(n.addr + head_bytes, body, name);
            Cursor c(data, what_ + ": " + name);
            std::vector<Scaled> keys(entries + 1);
            std::vector<std::array<uint64_t, 3>> children(entries);  // address, bytes, mask
            for (uint64_t i = 0; i <= entries; ++i) {
                const uint64_t bytes = c.uint(4), mask = c.uint(4);
                Scaled s{};
                bool on_grid = true;
                for (unsigned u = 0; u < nd; ++u) {
                    const uint64_t offset = c.uint(8), extent = u < rank_ ? q_.chunk[u] : q_.element_size;
                    s[u] = offset / extent;
                    on_grid = on_grid && offset % extent == 0;
                }
                if (i < entries) {
                    // A left key names a chunk or a subtree's first: on the grid.
                    if (!on_grid) fail(name + ": key " + std::to_string(i) + " is not a multiple of the chunk's extent");
                    children[i] = {c.uint(sa), bytes, mask};
                }
                if (i > 0 && !less(keys[i - 1], s, nd))
                    fail(name + ": key " + std::to_string(i) + " does not follow key " + std::to_string(i - 1));
                keys[i] = s;
            }
            if (n.bounded && (less(keys[0], n.lo, nd) || less(n.hi, keys[entries], nd)))
                fail(name + ": keys outside the range its parent gives it");
            if (level == 0) {
                for (uint64_t i = 0; i < entries; ++i)
                    add(out, keys[i], children[i][0], children[i][1], uint32_t(children[i][2]));
                continue;
            }
            for (uint64_t i = entries; i-- > 0;)
                stack.push_back({children[i][0], int(level) - 1, keys[i], keys[i + 1], true});
        }
    }

    // --- fixed array ----------------------------------------------------------

    void fixed_array(uint64_t addr, unsigned page_bits, ChunkIndex& out) {
        const unsigned sa = q_.sizeof_addr, ss = q_.sizeof_size;
        const std::string hname = "fixed array header at " + hex(addr);
        const std::vector<std::byte> hb = block(addr, 4 + 4 + uint64_t(ss) + sa + 4, hname);
        check_sum(std::span(hb).first(hb.size() - 4), std::span(hb).last(4), hname);
        Cursor h(hb, what_ + ": " + hname);
        if (!h.signature("FAHD")) fail(hname + ": no FAHD signature");
        const unsigned version = h.u8(), client = h.u8(), entry = h.u8(), bits = h.u8();
        const uint64_t nelmts = h.uint(ss), dblock = h.uint(sa);
        if (version != 0) fail(hname + ": version " + std::to_string(version) + " (kiln reads 0)");
        if (client != (q_.filtered ? 1u : 0u))
            fail(hname + ": client " + std::to_string(client) + " for a dataset " +
                 (q_.filtered ? "with" : "without") + " filters");
        if (bits != page_bits)
            fail(hname + ": " + std::to_string(bits) + " page bits, the layout message says " +
                 std::to_string(page_bits));
        const unsigned size_bytes = q_.filtered ? entry - sa - 4 : 0;
        if (q_.filtered ? (entry < sa + 5 || entry > sa + 12) : entry != sa)
            fail(hname + ": entries of " + std::to_string(entry) + " bytes");
        // The array holds a chunk per place of the grid of the maximum
        // extent; kiln's datasets are one chunk across, so place = frame.
        const uint64_t places = rank_ == 3 ? q_.max_dims[0] : 1;
        for (unsigned u = rank_ == 3 ? 1 : 0; u < rank_; ++u)
            if (q_.max_dims[u] != q_.chunk[u]) {
                out.supported = false;
                out.kind += " over a grid of several chunks a frame";
                return;
            }
        if (nelmts != places)
            fail(hname + ": " + std::to_string(nelmts) + " entries for a dataset of at most " +
                 std::to_string(places) + " chunks");
        if (dblock == undefined_) return;

        const uint64_t per_page = bits >= 63 ? ~uint64_t(0) : uint64_t(1) << bits;
        const bool paged = nelmts > per_page;
        const uint64_t pages = paged ? (nelmts + per_page - 1) / per_page : 0;
        const uint64_t bitmap = (pages + 7) / 8, prefix = 4 + 2 + uint64_t(sa);
        const uint64_t elements_bytes = paged ? 0 : mul(nelmts, entry, "the fixed array's size");
        const std::string dname = "fixed array data block at " + hex(dblock);
        const std::vector<std::byte> db = block(dblock, prefix + bitmap + elements_bytes + 4, dname);
        check_sum(std::span(db).first(db.size() - 4), std::span(db).last(4), dname);
        Cursor d(db, what_ + ": " + dname);
        if (!d.signature("FADB")) fail(dname + ": no FADB signature");
        if (d.u8() != 0 || d.u8() != client) fail(dname + ": version or client differs from its header's");
        if (d.uint(sa) != addr) fail(dname + ": names another header");
        const auto decode = [&](Cursor& c, uint64_t first, uint64_t count) {
            for (uint64_t i = 0; i < count; ++i) {
                const uint64_t chunk_addr = c.uint(sa);
                const uint64_t bytes = q_.filtered ? c.uint(size_bytes) : nominal_;
                const uint32_t mask = q_.filtered ? uint32_t(c.uint(4)) : 0;
                if (chunk_addr == undefined_) continue;  // never written
                Scaled s{};
                s[0] = rank_ == 3 ? first + i : 0;
                if (rank_ == 2 && first + i != 0) s[1] = first + i;  // refused by add
                add(out, s, chunk_addr, bytes, mask);
            }
        };
        if (!paged) {
            decode(d, 0, nelmts);
            return;
        }
        const auto init = d.take(bitmap);
        const uint64_t page_bytes = mul(per_page, entry, "a fixed array page's size") + 4;
        for (uint64_t p = 0; p < pages; ++p) {
            if (!(std::to_integer<unsigned>(init[p / 8]) & (0x80u >> (p % 8)))) continue;  // never written
            const uint64_t first = p * per_page, count = std::min(per_page, nelmts - first);
            const uint64_t page_addr = sum(dblock + prefix + bitmap + 4, mul(p, page_bytes, "a page's place"));
            const std::string pname = "fixed array page " + std::to_string(p) + " at " + hex(page_addr);
            const std::vector<std::byte> pb = block(page_addr, count * entry + 4, pname);
            check_sum(std::span(pb).first(pb.size() - 4), std::span(pb).last(4), pname);
            Cursor c(pb, what_ + ": " + pname);
            decode(c, first, count);
        }
    }

    const File& file_;
    uint64_t size_;
    const ChunkIndexQuery& q_;
    std::string what_;
    unsigned rank_;
    uint64_t undefined_ = 0, nominal_ = 0, frames_ = 0;
};

}  // namespace

uint32_t lookup3(std::span<const std::byte> bytes, uint32_t initval) {
    const auto rot = [](uint32_t x, int k) { return (x << k) | (x >> (32 - k)); };
    uint32_t a = 0xdeadbeefu + uint32_t(bytes.size()) + initval, b = a, c = a;
    const auto byte = [&](size_t i) { return std::to_integer<uint32_t>(bytes[i]); };
    size_t at = 0, left = bytes.size();
    while (left > 12) {
        a += byte(at) | byte(at + 1) << 8 | byte(at + 2) << 16 | byte(at + 3) << 24;
        b += byte(at + 4) | byte(at + 5) << 8 | byte(at + 6) << 16 | byte(at + 7) << 24;
        c += byte(at + 8) | byte(at + 9) << 8 | byte(at + 10) << 16 | byte(at + 11) << 24;
        a -= c, a ^= rot(c, 4), c += b;
        b -= a, b ^= rot(a, 6), a += c;
        c -= b, c ^= rot(b, 8), b += a;
        a -= c, a ^= rot(c, 16), c += b;
        b -= a, b ^= rot(a, 19), a += c;
        c -= b, c ^= rot(b, 4), b += a;
        at += 12;
        left -= 12;
    }
    if (left == 0) return c;
    // The last 1 to 12 bytes, little-endian into a, b, c.
    uint32_t tail[3] = {0, 0, 0};
    for (size_t i = 0; i < left; ++i) tail[i / 4] |= byte(at + i) << (8 * (i % 4));
    a += tail[0];
    b += tail[1];
    c += tail[2];
    c ^= b, c -= rot(b, 14);
    a ^= c, a -= rot(c, 11);
    b ^= a, b -= rot(a, 25);
    c ^= b, c -= rot(b, 16);
    a ^= c, a -= rot(c, 4);
    b ^= a, b -= rot(a, 14);
    c ^= b, c -= rot(b, 24);
    return c;
}

ChunkIndex read_chunk_index(const File& file, uint64_t file_size, const ChunkIndexQuery& q, const std::string& what) {
    const size_t rank = q.dims.size();
    if ((rank != 2 && rank != 3) || q.max_dims.size() != rank || q.chunk.size() != rank || q.element_size == 0 ||
        (q.sizeof_addr < 2 || q.sizeof_addr > 8) || (q.sizeof_size < 2 || q.sizeof_size > 8) || q.btree_k == 0)
        throw InvalidArgument(what + ": chunk index query of rank " + std::to_string(rank) +
                              " (2 or 3), addresses of " + std::to_string(q.sizeof_addr) + " bytes and lengths of " +
                              std::to_string(q.sizeof_size) + " (2 to 8), element size " +
                              std::to_string(q.element_size));
    for (size_t u = rank == 3 ? 1 : 0; u < rank; ++u)
        if (q.chunk[u] != q.dims[u] || q.chunk[u] == 0)
            throw InvalidArgument(what + ": chunk index query for chunks other than one whole frame");
    if (rank == 3 && q.chunk[0] != 1)
        throw InvalidArgument(what + ": chunk index query for chunks of " + std::to_string(q.chunk[0]) + " frames");
    return IndexReader(file, file_size, q, what).read();
}

std::optional<ChunkIndexQuery> chunk_index_query(hid_t file, hid_t dataset) {
    ChunkIndexQuery q;
    H5O_info_t info{};
    if (H5Oget_info2(dataset, &info, H5O_INFO_BASIC) < 0) return std::nullopt;
    q.header = info.addr;
    Handle fcpl(H5Fget_create_plist(file), H5Pclose);
    size_t sa = 0, ss = 0;
    hsize_t userblock = 0;
    unsigned k = 0;
    if (fcpl.get() < 0 || H5Pget_sizes(fcpl.get(), &sa, &ss) < 0 || H5Pget_userblock(fcpl.get(), &userblock) < 0 ||
        H5Pget_istore_k(fcpl.get(), &k) < 0)
        return std::nullopt;
    q.sizeof_addr = unsigned(sa);
    q.sizeof_size = unsigned(ss);
    q.base = userblock;
    q.btree_k = k;
    Handle type(H5Dget_type(dataset), H5Tclose);
    Handle space(H5Dget_space(dataset), H5Sclose);
    Handle dcpl(H5Dget_create_plist(dataset), H5Pclose);
    if (type.get() < 0 || space.get() < 0 || dcpl.get() < 0 || H5Pget_layout(dcpl.get()) != H5D_CHUNKED)
        return std::nullopt;
    q.element_size = H5Tget_size(type.get());
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank != 2 && rank != 3) return std::nullopt;
    hsize_t dims[3] = {}, max_dims[3] = {}, chunk[3] = {};
    if (H5Sget_simple_extent_dims(space.get(), dims, max_dims) < 0 || H5Pget_chunk(dcpl.get(), rank, chunk) != rank)
        return std::nullopt;
    q.dims.assign(dims, dims + rank);
    q.max_dims.assign(max_dims, max_dims + rank);
    q.chunk.assign(chunk, chunk + rank);
    q.filtered = H5Pget_nfilters(dcpl.get()) > 0;
    if (q.element_size == 0 || sa < 2 || sa > 8 || ss < 2 || ss > 8 || k == 0) return std::nullopt;
    for (int u = rank == 3 ? 1 : 0; u < rank; ++u)
        if (chunk[u] != dims[u] || chunk[u] == 0) return std::nullopt;
    if (rank == 3 && chunk[0] != 1) return std::nullopt;
    return q;
}

}  // namespace kiln::io
