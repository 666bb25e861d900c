#include "graph/storage.hpp"

#include "graph/retire_queue.hpp"

namespace kiln::detail {

Storage::~Storage() {
    if (alloc) retired->release(last_serial, std::move(alloc));
}

void Storage::place(vk::Allocator& allocator) {
    alloc = vk::UniqueAllocation(allocator, bytes, vk::MemoryUsage::device);
    buffer = alloc->buffer();
    offset = alloc->offset;
    mapped = alloc->mapped();
    coherent = alloc->host_coherent();
}

} // namespace kiln::detail
