#include "graph/transfer.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "graph/copy_pool.hpp"
#include "graph/device_resources.hpp"
#include "graph/scheduler.hpp"
#include "kiln/error.hpp"
#include "vk/host_import.hpp"

namespace kiln::detail {

namespace {

Node copy_node(const char* name, BufferRef src, BufferRef dst, VkDeviceSize size) {
    src.access = Access::read;
    dst.access = Access::write;
    return Node{Copy{name, std::move(src), std::move(dst), size}};
}

// The caller's memory imported for one synchronous DMA, when worthwhile.
std::unique_ptr<vk::HostImport> try_import(DeviceResources& res, const void* p, size_t bytes) {
    if (bytes < res.options().import_threshold || !res.device().enabled().external_memory_host)
        return nullptr;
    try {
        return std::make_unique<vk::HostImport>(res.device(), p, bytes);
    } catch (const Error&) {
        return nullptr;  // e.g. read-only pages: the staging ring still works
    }
}

void flush_range(DeviceResources& res, const Storage& s, size_t bytes, bool invalidate) {
    if (s.coherent) return;
    VkMappedMemoryRange r{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    r.memory = s.alloc->memory();
    r.offset = s.alloc->offset;
    r.size = VK_WHOLE_SIZE;
    (void)bytes;
    if (invalidate)
        vkInvalidateMappedMemoryRanges(res.device().handle(), 1, &r);
    else
        vkFlushMappedMemoryRanges(res.device().handle(), 1, &r);
}

// The size of the pieces a pageable transfer moves through the staging
// ring: transfers up to 4 MiB in one piece (recorded behind pending work,
// one submission in all); larger ones in about eight, each submitted as soon as
// its host copy is done, so the DMA of one overlaps the copy of the next
// (pull: the copy out of one overlaps the DMA of the next). A piece is at
// least 1 MiB (each costs a submission) and at most a quarter of the ring.
// Measured on an H100 (bench/results/2026-11-25-h100-transfers): 4 MiB in
// four pieces ran at 8-9 GB/s, in one at 9-11; 16 MiB in eight at 23-31,
// in one at 15.
size_t piece_size(DeviceResources& res, size_t bytes) {
    const size_t most = res.staging().capacity() / 4;
    if (res.options().transfer_piece) return std::min<size_t>(res.options().transfer_piece, most);
    if (bytes <= (4u << 20)) return std::min(bytes, most);
    const size_t eighth = (bytes / 8 + (1u << 20) - 1) / (1u << 20) * (1u << 20);
    return std::clamp<size_t>(eighth, 1u << 20, most);
}

} // namespace

void upload(DeviceResources& res, Scheduler& sched, const std::shared_ptr<Storage>& s, const void* src, size_t bytes) {
    // One transfer at a time per context: its staging slices, waits and the
    // storage's serials stay consistent when threads share the context.
    const auto lock = sched.lock();
    VkBuffer pinned;
    VkDeviceSize pinned_offset;
    const bool from_pinned = res.allocator().find_host(src, bytes, pinned, pinned_offset);
    if (sched.capturing() && from_pinned) {
        // In a graph: a DMA that reads the pinned buffer at every run.
        sched.record(copy_node("push", BufferRef{nullptr, pinned, pinned_offset, bytes}, BufferRef{s}, bytes));
        return;
    }
    if (sched.capturing())
        throw InvalidArgument("push inside a Graph capture: push inputs before Graph::run(), or push from a "
                              "PinnedBuffer, which a graph reads at every run");
    if (!s->placed()) s->place(res.allocator());
    // Host-visible memory not used by pending work: write it in place,
    // after whatever submitted work still uses it.
    if (s->mapped && s->alloc && res.options().direct_host_access && s->last_serial < sched.pending_serial()) {
        sched.wait(s->last_serial);
        std::memcpy(s->mapped, src, bytes);
        flush_range(res, *s, bytes, false);
        return;
    }
    if (from_pinned) {
        sched.record(copy_node("push", BufferRef{nullptr, pinned, pinned_offset, bytes}, BufferRef{s}, bytes));
        sched.sync();  // the caller may reuse its buffer once push returns
        return;
    }
    if (auto imp = try_import(res, src, bytes)) {
        sched.record(copy_node("push", BufferRef{nullptr, imp->buffer(), imp->offset(), bytes}, BufferRef{s}, bytes));
        sched.sync();  // the import must outlive the copy
        return;
    }
    // Pieces through the ring; a large push submits each piece at once so
    // the DMA of one overlaps the host copy of the next.
    const auto* p = static_cast<const std::byte*>(src);
    const size_t chunk = piece_size(res, bytes);
    for (size_t off = 0; off < bytes; off += chunk) {
        size_t n = std::min(chunk, bytes - off);
        Slice slice = sched.staging(n);
        parallel_copy(slice.mapped, p + off, n);
        sched.record(copy_node("push", BufferRef{nullptr, slice.buffer, slice.offset, n}, BufferRef{s, VK_NULL_HANDLE, off, n}, n));
        if (bytes > chunk) sched.flush();
    }
}

void download(DeviceResources& res, Scheduler& sched, const std::shared_ptr<Storage>& s, void* dst, size_t bytes) {
    const auto lock = sched.lock();
    VkBuffer pinned;
    VkDeviceSize pinned_offset;
    const bool to_pinned = res.allocator().find_host(dst, bytes, pinned, pinned_offset);
    if (sched.capturing() && to_pinned) {
        // In a graph: a DMA into the pinned buffer at every run.
        sched.record(copy_node("pull", BufferRef{s}, BufferRef{nullptr, pinned, pinned_offset, bytes}, bytes));
        return;
    }
    if (sched.capturing())
        throw InvalidArgument("pull inside a Graph capture: pull outputs after Graph::run(), or pull into a "
                              "PinnedBuffer, which a graph fills at every run");
    if (!s->placed()) s->place(res.allocator());  // never written: its contents are undefined, as numpy.empty's
    if (s->mapped && s->alloc && res.options().direct_host_access) {
        // Read in place once the work that writes it is done.
        if (s->last_serial >= sched.pending_serial()) sched.flush();
        sched.wait(s->last_serial);
        flush_range(res, *s, bytes, true);
        std::memcpy(dst, s->mapped, bytes);
        return;
    }
    if (to_pinned) {
        sched.record(copy_node("pull", BufferRef{s}, BufferRef{nullptr, pinned, pinned_offset, bytes}, bytes));
        sched.sync();
        return;
    }
    if (auto imp = try_import(res, dst, bytes)) {
        sched.record(copy_node("pull", BufferRef{s}, BufferRef{nullptr, imp->buffer(), imp->offset(), bytes}, bytes));
        sched.sync();
        return;
    }
    // The copies below are recorded behind the pending work that writes the
    // array, so a pull of a fresh result is one submission and one wait.
    // Pieces through the ring, two in flight: the host copies one out while
    // the DMA fills the next. Slices are held until copied out.
    auto* p = static_cast<std::byte*>(dst);
    const size_t chunk = piece_size(res, bytes);
    struct Out {
        Slice slice;
        size_t off, n;
        uint64_t serial;
    };
    std::optional<Out> prev;
    auto drain = [&](const Out& o) {
        sched.wait(o.serial);
        parallel_copy(p + o.off, o.slice.mapped, o.n);
        sched.release_staging(o.slice);
    };
    for (size_t off = 0; off < bytes; off += chunk) {
        size_t n = std::min(chunk, bytes - off);
        Slice slice = sched.staging(n, true);
        sched.record(copy_node("pull", BufferRef{s, VK_NULL_HANDLE, off, n}, BufferRef{nullptr, slice.buffer, slice.offset, n}, n));
        Out o{slice, off, n, sched.flush()};
        if (prev) drain(*prev);
        prev = o;
    }
    if (prev) drain(*prev);
}

} // namespace kiln::detail
