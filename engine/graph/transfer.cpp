#include "graph/transfer.hpp"

#include <cstring>

#include "graph/context_state.hpp"
#include "vk/host_import.hpp"

namespace kiln::detail {

namespace {

Node copy_node(const char* name, BufferRef src, BufferRef dst, VkDeviceSize size) {
    src.access = Access::read;
    dst.access = Access::write;
    return Node{Copy{name, std::move(src), std::move(dst), size}};
}

// The caller's memory imported for one synchronous DMA, when worthwhile.
std::unique_ptr<vk::HostImport> try_import(ContextState& ctx, const void* p, size_t bytes) {
    if (bytes < ctx.options().import_threshold || !ctx.device().enabled().external_memory_host)
        return nullptr;
    try {
        return std::make_unique<vk::HostImport>(ctx.device(), p, bytes);
    } catch (const Error&) {
        return nullptr;  // e.g. read-only pages: the staging ring still works
    }
}

void flush_range(ContextState& ctx, const Storage& s, size_t bytes, bool invalidate) {
    if (s.coherent) return;
    VkMappedMemoryRange r{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    r.memory = s.alloc.memory();
    r.offset = s.alloc.offset;
    r.size = VK_WHOLE_SIZE;
    (void)bytes;
    if (invalidate)
        vkInvalidateMappedMemoryRanges(ctx.device().handle(), 1, &r);
    else
        vkFlushMappedMemoryRanges(ctx.device().handle(), 1, &r);
}

} // namespace

void upload(ContextState& ctx, const std::shared_ptr<Storage>& s, const void* src, size_t bytes) {
    if (ctx.capturing())
        throw InvalidArgument("push inside a Graph capture: push inputs before Graph::run(), not while recording");
    if (!s->placed()) ctx.place(*s);
    // Host-visible memory not used by pending work: write it in place,
    // after whatever submitted work still uses it.
    if (s->mapped && s->alloc && s->last_serial < ctx.pending_serial()) {
        ctx.wait(s->last_serial);
        std::memcpy(s->mapped, src, bytes);
        flush_range(ctx, *s, bytes, false);
        return;
    }
    if (auto imp = try_import(ctx, src, bytes)) {
        ctx.record(copy_node("push", BufferRef{nullptr, imp->buffer(), imp->offset(), bytes}, BufferRef{s}, bytes));
        ctx.sync();  // the import must outlive the copy
        return;
    }
    const auto* p = static_cast<const std::byte*>(src);
    const size_t chunk = ctx.staging_capacity() / 2;
    for (size_t off = 0; off < bytes; off += chunk) {
        size_t n = std::min(chunk, bytes - off);
        Slice slice = ctx.staging(n);
        std::memcpy(slice.mapped, p + off, n);
        ctx.record(copy_node("push", BufferRef{nullptr, slice.buffer, slice.offset, n}, BufferRef{s, VK_NULL_HANDLE, off, n}, n));
    }
}

void download(ContextState& ctx, const std::shared_ptr<Storage>& s, void* dst, size_t bytes) {
    if (ctx.capturing())
        throw InvalidArgument("pull inside a Graph capture: pull outputs after Graph::run(), not while recording");
    if (!s->placed()) ctx.place(*s);  // never written: its contents are undefined, as numpy.empty's
    if (s->last_serial >= ctx.pending_serial()) ctx.flush();
    ctx.wait(s->last_serial);
    if (s->mapped && s->alloc) {
        flush_range(ctx, *s, bytes, true);
        std::memcpy(dst, s->mapped, bytes);
        return;
    }
    if (auto imp = try_import(ctx, dst, bytes)) {
        ctx.record(copy_node("pull", BufferRef{s}, BufferRef{nullptr, imp->buffer(), imp->offset(), bytes}, bytes));
        ctx.sync();
        return;
    }
    auto* p = static_cast<std::byte*>(dst);
    const size_t chunk = ctx.staging_capacity() / 2;
    for (size_t off = 0; off < bytes; off += chunk) {
        size_t n = std::min(chunk, bytes - off);
        Slice slice = ctx.staging(n);
        ctx.record(copy_node("pull", BufferRef{s, VK_NULL_HANDLE, off, n}, BufferRef{nullptr, slice.buffer, slice.offset, n}, n));
        ctx.sync();
        std::memcpy(p + off, slice.mapped, n);
    }
}

} // namespace kiln::detail
