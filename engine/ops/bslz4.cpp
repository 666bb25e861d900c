#include "kiln/bslz4.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "kiln/bslz4_host.hpp"
#include "kiln/pinned.hpp"
#include "host/run_each.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

constexpr uint32_t raw_bit = 0x80000000u;
constexpr size_t table_header = 4;  // uint32 words before the blocks: count and padding
constexpr std::array<uint32_t, 3> decode_local{64, 1, 1};

uint64_t lz4_bound(uint64_t n) { return n + n / 255 + 16; }

uint64_t round_up(uint64_t n, uint64_t m) { return (n + m - 1) / m * m; }

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

// What the kernel's error codes mean (see bslz4_decode.comp).
std::string reason(uint32_t code) {
    switch (code) {
    case 1: return "its table entry does not fit the decoder's buffers";
    case 2: return "the LZ4 block ends after a match; a block must end with literals";
    case 3: return "a run of literals passes the end of the LZ4 block";
    case 4: return "the LZ4 block decodes to more bytes than the block holds";
    case 5: return "an LZ4 match offset points outside the decoded data";
    case 6: return "the LZ4 block decodes to fewer bytes than the block holds";
    case 7: return "the LZ4 block is truncated inside a length or match offset";
    default: return "unknown error code " + std::to_string(code);
    }
}

// Shape of a batch of frames: the frame itself for one, else frames in front.
Shape batch_shape(Shape frame, size_t frames) {
    if (frames == 1) return frame;
    if (frame.ndim() == 3)
        throw InvalidArgument("Bslz4Decoder: a batch of " + std::to_string(frames) + " frames of shape " +
                              frame.str() + " would need 4 dimensions; frames must be 1-D or 2-D when "
                              "max_frames > 1");
    return frame.ndim() == 1 ? Shape{frames, frame[0]} : Shape{frames, frame[0], frame[1]};
}

// A view of the first `count` elements of an array's memory (pushes and pulls
// of a prefix: only the bytes in use travel).
Array prefix(const Array& a, size_t count) {
    return Array(a.context().shared_state(), a.storage(), Shape{count}, a.dtype());
}

} // namespace

struct Bslz4Decoder::Impl {
    std::optional<Context> ctx;  // engaged by the constructor
    Shape frame_shape;
    DType dtype = DType::uint8;
    size_t elem = 1, frame_bytes = 0, max_frames = 1;
    size_t block_bytes = 0;         // largest decoded block (DST_CAP)
    size_t block_capacity = 0;      // table rows
    size_t byte_capacity = 0;       // compressed bytes of a batch
    Array src, table, flags, out;
    std::vector<uint32_t> host_table;
    std::vector<size_t> first_block;  // per pushed chunk, its first table row
    std::vector<size_t> chunk_base;   // per pushed chunk, its first byte in the batch
    std::string label, exact_name;    // chunk k is "<label> <first_index + k>", or exact_name
    size_t first_index = 0;
    size_t pushed_frames = 0, pushed_blocks = 0;

    // Pipelined use: the table and the flags in pinned memory, the sources
    // that graphs copy from, and whether the last batch was pushed or staged.
    PinnedBuffer pinned_table, pinned_flags;
    std::vector<std::span<const uint8_t>> sources;
    bool staged = false;
    detail::OpServices::Mark staged_at;  // a run at or after this mark decodes the staged batch
    const uint32_t* rows() const {
        return staged ? pinned_table.as<const uint32_t>().data() : host_table.data();
    }
};

Bslz4Decoder::Bslz4Decoder(const Context& ctx, Shape frame_shape, DType dtype, size_t max_frames,
                           size_t max_compressed_bytes, size_t block_size)
    : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    if (frame_shape.empty())
        throw InvalidArgument("Bslz4Decoder: the frame shape is empty; give 1 to 3 extents");
    if (max_frames == 0) throw InvalidArgument("Bslz4Decoder: max_frames is 0; decode at least one frame a batch");
    m.ctx = ctx;
    m.frame_shape = frame_shape;
    m.dtype = dtype;
    m.elem = dtype_size(dtype);
    m.frame_bytes = frame_shape.size() * m.elem;
    m.max_frames = max_frames;
    const Shape out_shape = batch_shape(frame_shape, max_frames);

    const size_t block_elems = block_size ? block_size : bslz4_default_block_size(m.elem);
    if (block_elems % 8 != 0)
        throw InvalidArgument("Bslz4Decoder: block size " + std::to_string(block_elems) +
                              " elements; bitshuffle blocks are a multiple of 8 elements (0 for the default)");
    // A frame smaller than one block needs only its own size of shared memory.
    const size_t n = frame_shape.size();
    m.block_bytes = std::max<size_t>(8 * m.elem, std::min(block_elems, n - n % 8) * m.elem);
    const DeviceInfo& info = ctx.device();
    if (m.block_bytes > info.max_shared_memory)
        throw Unsupported("Bslz4Decoder: blocks of " + std::to_string(m.block_bytes) + " bytes need as many "
                          "bytes of shared memory; device '" +
                          info.name + "' has " + std::to_string(info.max_shared_memory) +
                          " (chunks written with the default 8 KiB blocks fit)");

    const size_t full = n / block_elems, rest = (n % block_elems) - (n % block_elems) % 8;
    const size_t per_frame = full + (rest ? 1 : 0) + (n % 8 ? 1 : 0);
    m.block_capacity = per_frame * max_frames;
    const uint64_t frame_bound = 12 + full * (4 + lz4_bound(block_elems * m.elem)) +
                                 (rest ? 4 + lz4_bound(rest * m.elem) : 0) + (n % 8) * m.elem;
    m.byte_capacity = max_compressed_bytes ? max_compressed_bytes : frame_bound * max_frames;

    const uint64_t range = info.max_storage_buffer_range;
    if (uint64_t(m.frame_bytes) * max_frames > range || m.byte_capacity > range)
        throw Unsupported("Bslz4Decoder: a batch of " + std::to_string(max_frames) + " frames of " +
                          std::to_string(m.frame_bytes) + " bytes (" + std::to_string(m.byte_capacity) +
                          " compressed) exceeds device '" + info.name + "''s binding range of " +
                          std::to_string(range) + " bytes; decode at most " +
                          std::to_string(std::max<uint64_t>(1, range / std::max(frame_bound, uint64_t(m.frame_bytes)))) +
                          " frames a batch");
    // The kernel addresses bytes with 32-bit offsets.
    if (m.byte_capacity >= (1ull << 32) || uint64_t(m.frame_bytes) * max_frames >= (1ull << 32))
        throw Unsupported("Bslz4Decoder: batches of 4 GiB or more are not supported; decode fewer frames a batch");

    m.src = Array::empty(ctx, Shape{size_t(round_up(m.byte_capacity, 4))}, DType::uint8);
    // Empty arrays record no work, so a decoder may be made inside a Graph
    // capture; the kernel bounds a table never pushed by the capacity.
    m.table = Array::empty(ctx, Shape{table_header + 4 * m.block_capacity}, DType::uint32);
    m.flags = Array::empty(ctx, Shape{m.block_capacity}, DType::uint32);
    m.out = Array::empty(ctx, out_shape, dtype);
    m.host_table.reserve(table_header + 4 * m.block_capacity);
}

Bslz4Decoder::~Bslz4Decoder() {
    // Graph runs may still read the pinned table or write the pinned flags.
    if (!impl_ || !impl_->pinned_table.data()) return;
    try {
        ops::services(*impl_->ctx).finish_submitted(impl_->table);
    } catch (...) {
    }
}
Bslz4Decoder::Bslz4Decoder(Bslz4Decoder&&) noexcept = default;
Bslz4Decoder& Bslz4Decoder::operator=(Bslz4Decoder&&) noexcept = default;

// Fills the block table (four words per block after table_header words:
// source offset, source size, destination offset, destination size | raw)
// from the chunks' headers. Every chunk's headers form a chain of lengths, a
// cache miss per block, so the chunks are walked in step and their misses
// overlap. Any inconsistency is handed to bslz4_blocks for its message.
void Bslz4Decoder::parse(std::span<const uint8_t> bytes, std::span<const size_t> chunk_sizes,
                         std::span<const ChunkCoding> coding, uint64_t src_base, uint32_t* table) {
    Impl& m = *impl_;
    if (!coding.empty() && coding.size() != chunk_sizes.size())
        throw InvalidArgument("Bslz4Decoder::push: " + std::to_string(coding.size()) + " codings for " +
                              std::to_string(chunk_sizes.size()) + " chunks; give one per chunk, or none");
    if (chunk_sizes.size() > m.max_frames)
        throw InvalidArgument("Bslz4Decoder::push: " + std::to_string(chunk_sizes.size()) +
                              " chunks given; the decoder takes at most " + std::to_string(m.max_frames) +
                              " a batch");
    size_t total = 0;
    for (size_t s : chunk_sizes) total += s;
    if (total != bytes.size())
        throw InvalidArgument("Bslz4Decoder::push: the chunk sizes add up to " + std::to_string(total) +
                              " bytes but " + std::to_string(bytes.size()) + " bytes were given");
    if (src_base + total > m.byte_capacity)
        throw InvalidArgument("Bslz4Decoder::push: " + std::to_string(total) +
                              " compressed bytes; the decoder holds at most " + std::to_string(m.byte_capacity) +
                              " (give max_compressed_bytes, or fewer chunks a batch)");
    m.first_block.clear();
    m.chunk_base.clear();
    m.pushed_frames = m.pushed_blocks = 0;

    struct Walk {
        const uint8_t* p;
        uint64_t size, pos = 12, dst = 0, base, dst_base;
        uint64_t block_bytes, last_bytes, tail;
        uint64_t b = 0, full, count;
        uint32_t* row;
    };
    std::vector<Walk> walks;
    walks.reserve(chunk_sizes.size());
    auto fail = [&](size_t k) {
        const auto chunk = bytes.subspan(walks[k].base, walks[k].size);
        bslz4_blocks(chunk, m.elem, chunk_name(k));  // throws the precise IoError
        throw IoError(chunk_name(k) + ": corrupt bitshuffle-LZ4 chunk");
    };
    size_t at = 0, rows = 0;
    std::vector<size_t> order;  // the compressed chunks, walked below
    for (size_t k = 0; k < chunk_sizes.size(); ++k) {
        const auto chunk = bytes.subspan(at, chunk_sizes[k]);
        if (!coding.empty() && coding[k] == ChunkCoding::raw) {
            // The frame as is: copied in pieces of a block, one workgroup each.
            if (chunk.size() != m.frame_bytes)
                throw IoError(chunk_name(k) + ": a raw (unfiltered) chunk of " + std::to_string(chunk.size()) +
                              " bytes; frames of shape " + m.frame_shape.str() + " " +
                              std::string(dtype_name(m.dtype)) + " take " + std::to_string(m.frame_bytes));
            const size_t pieces = (m.frame_bytes + m.block_bytes - 1) / m.block_bytes;
            if (rows + pieces > m.block_capacity)
                throw Unsupported(chunk_name(k) + ": a raw chunk of " + std::to_string(pieces) +
                                  " blocks, more than the decoder was sized for");
            uint32_t* row = table + table_header + 4 * rows;
            for (size_t p = 0; p < pieces; ++p, row += 4) {
                const size_t off = p * m.block_bytes, len = std::min(m.block_bytes, m.frame_bytes - off);
                row[0] = uint32_t(src_base + at + off);
                row[1] = uint32_t(len);
                row[2] = uint32_t(uint64_t(k) * m.frame_bytes + off);
                row[3] = uint32_t(len) | raw_bit;
            }
            walks.push_back(Walk{});  // keeps walks[k] the walk of chunk k
            m.first_block.push_back(rows);
            m.chunk_base.push_back(size_t(src_base + at));
            rows += pieces;
            at += chunk_sizes[k];
            continue;
        }
        order.push_back(k);
        const uint64_t announced = bslz4_uncompressed_size(chunk, chunk_name(k));
        if (announced != m.frame_bytes)
            throw IoError(chunk_name(k) + ": the bitshuffle-LZ4 chunk holds " + std::to_string(announced) +
                          " uncompressed bytes; frames of shape " + m.frame_shape.str() + " " +
                          std::string(dtype_name(m.dtype)) + " take " + std::to_string(m.frame_bytes));
        Walk w{};
        w.p = chunk.data();
        w.size = chunk.size();
        w.pos = 12;
        w.base = at;
        w.dst_base = uint64_t(k) * m.frame_bytes;
        walks.push_back(w);
        Walk& x = walks.back();
        uint64_t block_bytes = be32(chunk.data() + 8);
        if (block_bytes == 0) block_bytes = uint64_t(bslz4_default_block_size(m.elem)) * m.elem;
        if (block_bytes % (8 * m.elem) != 0) fail(k);
        const uint64_t n = m.frame_bytes / m.elem, block_elems = block_bytes / m.elem;
        x.block_bytes = block_bytes;
        x.full = n / block_elems;
        x.last_bytes = ((n % block_elems) - (n % block_elems) % 8) * m.elem;
        x.count = x.full + (x.last_bytes ? 1 : 0);
        x.tail = (n % 8) * m.elem;
        const uint64_t largest = x.full ? block_bytes : x.last_bytes;
        const uint64_t blocks = x.count + (x.tail ? 1 : 0);
        if (rows + blocks > m.block_capacity)
            throw Unsupported(chunk_name(k) + ": the chunk has " + std::to_string(blocks) +
                              " blocks, more than the decoder was sized for; create it with the block size "
                              "the chunks were written with");
        if (largest > m.block_bytes)
            throw Unsupported(chunk_name(k) + ": blocks of " + std::to_string(largest) +
                              " bytes; the decoder was made for blocks of at most " + std::to_string(m.block_bytes) +
                              " (give its block_size)");
        x.row = table + table_header + 4 * rows;
        m.first_block.push_back(rows);
        m.chunk_base.push_back(size_t(src_base + at));  // where the table's offsets count from
        rows += blocks;
        at += chunk_sizes[k];
    }
    // Every walk of order[lo, hi) that has blocks left takes one step per
    // round.
    const auto walk = [&](size_t lo, size_t hi) {
        std::vector<size_t> left(order.begin() + long(lo), order.begin() + long(hi));
        size_t active = left.size();
        while (active) {
            size_t kept = 0;
            for (size_t i = 0; i < active; ++i) {
                const size_t k = left[i];
                Walk& w = walks[k];
                if (w.b < w.count) {
                    const uint64_t dst_size = w.b < w.full ? w.block_bytes : w.last_bytes;
                    if (w.size - w.pos < 4) fail(k);
                    const uint64_t len = be32(w.p + w.pos);
                    w.pos += 4;
                    if (len == 0 || len > lz4_bound(dst_size) || len > w.size - w.pos) fail(k);
                    w.row[0] = uint32_t(src_base + w.base + w.pos);
                    w.row[1] = uint32_t(len);
                    w.row[2] = uint32_t(w.dst_base + w.dst);
                    w.row[3] = uint32_t(dst_size);
                    w.row += 4;
                    w.pos += len;
                    w.dst += dst_size;
                    ++w.b;
                }
                if (w.b < w.count) {
                    left[kept++] = k;
                    continue;
                }
                // The raw trailing elements, which must end the chunk exactly.
                if (w.size - w.pos != w.tail) fail(k);
                if (w.tail) {
                    w.row[0] = uint32_t(src_base + w.base + w.pos);
                    w.row[1] = uint32_t(w.tail);
                    w.row[2] = uint32_t(w.dst_base + w.dst);
                    w.row[3] = uint32_t(w.tail) | raw_bit;
                }
            }
            active = kept;
        }
    };
    // A batch of many chunks (a detector's frames) is walked by up to four
    // threads, eight chunks or more each: the misses of one thread's walks
    // overlap only so far, and the batch's bytes were just written by
    // other cores. Each walk writes its own rows; the first group with a
    // bad chunk gives the error.
    const size_t groups = std::clamp<size_t>(order.size() / 8, 1, 4);
    run_each(groups, [&](size_t g) { walk(order.size() * g / groups, order.size() * (g + 1) / groups); });
    m.pushed_frames = chunk_sizes.size();
    m.pushed_blocks = rows;
    table[0] = uint32_t(rows);
    table[1] = table[2] = table[3] = 0;
}

void Bslz4Decoder::push(std::span<const uint8_t> bytes, std::span<const size_t> chunk_sizes, size_t first_index,
                        const std::string& label, std::span<const ChunkCoding> coding) {
    Impl& m = *impl_;
    m.label = label;
    m.first_index = first_index;
    m.staged = false;
    m.host_table.resize(table_header + 4 * m.block_capacity);
    parse(bytes, chunk_sizes, coding, 0, m.host_table.data());
    const size_t words = table_header + 4 * m.pushed_blocks;
    prefix(m.table, words).push(m.host_table.data(), words * 4);
    if (!bytes.empty()) prefix(m.src, bytes.size()).push(bytes.data(), bytes.size());
}

void Bslz4Decoder::stage(std::span<const uint8_t> bytes, std::span<const size_t> chunk_sizes, size_t first_index,
                         const std::string& label, std::span<const ChunkCoding> coding) {
    Impl& m = *impl_;
    const auto from = std::find_if(m.sources.begin(), m.sources.end(), [&](std::span<const uint8_t> s) {
        return bytes.data() >= s.data() && bytes.data() + bytes.size() <= s.data() + s.size();
    });
    if (from == m.sources.end())
        throw InvalidArgument("Bslz4Decoder::stage: the " + std::to_string(bytes.size()) +
                              " bytes lie in no source recorded with record(source); stage the batch where a "
                              "recorded graph copies it from");
    detail::OpServices& st = ops::services(*m.ctx);
    // The previous run that read the pinned table (or wrote the flags) must be done.
    st.finish_submitted(m.table);
    m.label = label;
    m.first_index = first_index;
    m.staged = true;
    m.staged_at = st.mark();
    uint32_t* table = m.pinned_table.as<uint32_t>().data();
    try {
        parse(bytes, chunk_sizes, coding, uint64_t(bytes.data() - from->data()), table);
    } catch (...) {
        table[0] = 0;  // a run of the graph decodes nothing rather than a half-written table
        m.pushed_blocks = 0;
        throw;
    }
}

void Bslz4Decoder::push(std::span<const std::vector<uint8_t>> chunks, size_t first_index, const std::string& label,
                        std::span<const ChunkCoding> coding) {
    std::vector<uint8_t> all;
    std::vector<size_t> sizes;
    for (const auto& c : chunks) {
        all.insert(all.end(), c.begin(), c.end());
        sizes.push_back(c.size());
    }
    push(all, sizes, first_index, label, coding);
}

void Bslz4Decoder::record() {
    Impl& m = *impl_;
    struct Push {
        uint32_t src_bytes, dst_bytes, max_blocks;
    } pc{uint32_t(m.src.nbytes()), uint32_t(m.out.nbytes()), uint32_t(m.block_capacity)};
    static_assert(sizeof(Push) == 12);
    const bool words = m.frame_bytes % 4 == 0;
    ops::Dispatcher d(ops::services(*m.ctx), ops::KernelId::bslz4_decode, decode_local);
    d.read(m.src).read(m.table).write(m.flags).write(m.out);
    d.spec(uint32_t(m.block_bytes)).spec(uint32_t(m.elem)).spec(words ? 1u : 0u);
    const uint32_t groups = uint32_t(std::min<size_t>({m.block_capacity, 65535, m.ctx->device().max_workgroup_count[0]}));
    d.push(pc).groups(std::max<uint32_t>(groups, 1)).record();
}

void Bslz4Decoder::record(std::span<const uint8_t> source) {
    Impl& m = *impl_;
    detail::OpServices& st = ops::services(*m.ctx);
    if (!st.capturing())
        throw InvalidArgument("Bslz4Decoder::record(source) outside a Graph capture; record it inside one, or use "
                              "push() and record()");
    if (source.size() > m.byte_capacity)
        throw InvalidArgument("Bslz4Decoder::record: a source of " + std::to_string(source.size()) +
                              " bytes; the decoder holds at most " + std::to_string(m.byte_capacity) +
                              " (give max_compressed_bytes)");
    if (source.empty() || !st.pinned(source.data(), source.size()))
        throw InvalidArgument("Bslz4Decoder::record: the source (" + std::to_string(source.size()) +
                              " bytes) does not lie in one PinnedBuffer of this context; graphs copy only from "
                              "pinned memory");
    const size_t table_words = table_header + 4 * m.block_capacity;
    if (!m.pinned_table.data()) {
        m.pinned_table = PinnedBuffer(*m.ctx, table_words * 4);
        m.pinned_flags = PinnedBuffer(*m.ctx, m.block_capacity * 4);
        std::memset(m.pinned_table.data(), 0, table_words * 4);  // no blocks until a stage()
        std::memset(m.pinned_flags.data(), 0, m.block_capacity * 4);
    }
    prefix(m.table, table_words).push(m.pinned_table.data(), table_words * 4);
    prefix(m.src, source.size()).push(source.data(), source.size());
    record();
    prefix(m.flags, m.block_capacity).pull(m.pinned_flags.data(), m.block_capacity * 4);
    m.sources.push_back(source);
}

void Bslz4Decoder::check() const {
    const Impl& m = *impl_;
    std::vector<uint32_t> pulled;
    const uint32_t* flags = nullptr;
    if (m.staged) {
        detail::OpServices& st = ops::services(*m.ctx);
        if (!st.submitted_since(m.flags, m.staged_at))
            throw InvalidArgument("Bslz4Decoder::check: the batch staged last has not been decoded; launch the "
                                  "graph recorded with record(source) after stage() and before check()");
        st.finish_submitted(m.flags);
        flags = m.pinned_flags.as<const uint32_t>().data();
    } else {
        if (m.pushed_blocks == 0) return;
        pulled = prefix(m.flags, m.pushed_blocks).to_vector<uint32_t>();
        flags = pulled.data();
    }
    for (size_t b = 0; b < m.pushed_blocks; ++b) {
        if (flags[b] == 0) continue;
        const size_t k = size_t(std::upper_bound(m.first_block.begin(), m.first_block.end(), b) - m.first_block.begin()) - 1;
        const size_t last = k + 1 < m.first_block.size() ? m.first_block[k + 1] : m.pushed_blocks;
        const size_t local = b - m.first_block[k];
        const size_t at = m.rows()[table_header + 4 * b] - m.chunk_base[k];
        throw IoError(chunk_name(k) + ": corrupt bitshuffle-LZ4 chunk: block " + std::to_string(local) + " of " +
                      std::to_string(last - m.first_block[k]) + " (LZ4 data at byte " + std::to_string(at) +
                      " of the chunk): " + reason(flags[b]) + " (found by the GPU decoder)");
    }
}

std::string Bslz4Decoder::chunk_name(size_t k) const {
    const Impl& m = *impl_;
    return m.exact_name.empty() ? m.label + " " + std::to_string(m.first_index + k) : m.exact_name;
}

const Array& Bslz4Decoder::output() const { return impl_->out; }
size_t Bslz4Decoder::frames_pushed() const { return impl_->pushed_frames; }
size_t Bslz4Decoder::max_frames() const { return impl_->max_frames; }

Array bslz4_decompress(const Context& ctx, std::span<const uint8_t> chunk, Shape shape, DType dtype,
                       const std::string& name, ChunkCoding coding) {
    const size_t elem = dtype_size(dtype);
    size_t block_elems = 0;
    if (coding == ChunkCoding::bslz4) {
        // Parsing first gives header errors their usual messages and the block size.
        for (const auto& b : bslz4_blocks(chunk, elem, name))
            if (!b.raw) block_elems = std::max<size_t>(block_elems, b.dst_size / elem);
    }
    Bslz4Decoder dec(ctx, shape, dtype, 1, std::max<size_t>(chunk.size(), 1), block_elems);
    const size_t sizes[1] = {chunk.size()};
    const ChunkCoding codings[1] = {coding};
    dec.impl_->exact_name = name;
    dec.push(chunk, sizes, 0, name, codings);
    dec.record();
    dec.check();
    return dec.output();
}

} // namespace kiln
