// GPU interop for applications (kiln/interop.hpp): the buffer behind an
// array, an application's buffer as an array, and the application's
// timeline semaphores on kiln's next submission.
#include "kiln/interop.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "graph/context_impl.hpp"
#include "kiln/error.hpp"

namespace kiln {

BufferView buffer_of(const Array& a) {
    if (!a.valid()) throw InvalidArgument("buffer_of on a null Array (default-constructed or moved from)");
    detail::ContextImpl& st = a.state();
    const auto lock = st.scheduler.lock();
    detail::Storage& s = *a.storage();
    if (s.transient())
        throw InvalidArgument("buffer_of: the array of shape " + a.shape().str() +
                              " lives in a transient arena of a graph (an intermediate no Array held when the "
                              "graph was compiled), whose memory it shares with other intermediates and which "
                              "moves when the graph is compiled again; it has no stable buffer. Keep an Array of "
                              "it while the graph is captured, or copy it into an array of your own");
    if (!s.placed()) s.place(st.resources.allocator());
    return {s.buffer, s.offset, a.nbytes()};
}

Array wrap_buffer(const Context& ctx, VkBuffer buffer, VkDeviceSize offset, Shape shape, DType dtype) {
    if (buffer == VK_NULL_HANDLE) throw InvalidArgument("wrap_buffer: the buffer is VK_NULL_HANDLE");
    detail::ContextImpl& st = ctx.state();
    const DeviceInfo& info = st.resources.info();
    // Kernels bind the range at `offset` (plus aligned pieces of it): a
    // descriptor's offset must be a multiple of minStorageBufferOffsetAlignment.
    const VkDeviceSize align = std::max<VkDeviceSize>(4, info.min_storage_offset_alignment);
    if (offset % align != 0)
        throw InvalidArgument("wrap_buffer: offset " + std::to_string(offset) + " is not a multiple of " +
                              std::to_string(align) + " (4 bytes, and the minStorageBufferOffsetAlignment of '" +
                              info.name + "', DeviceInfo::min_storage_offset_alignment)");
    // Array::empty checks the shape and the dtype against the device's
    // features; its storage is then pointed at the application's range.
    Array a = Array::empty(ctx, shape, dtype);
    const uint64_t bytes = a.nbytes();
    const uint64_t bound = (bytes + 3) / 4 * 4;  // kernels bind whole 32-bit words
    if (offset > UINT64_MAX - bound)
        throw InvalidArgument("wrap_buffer: offset " + std::to_string(offset) + " plus " + std::to_string(bound) +
                              " bytes of a " + std::string(dtype_name(dtype)) + " array of shape " + shape.str() +
                              " overflows a VkDeviceSize");
    detail::Storage& s = *a.storage();
    s.external = true;
    s.buffer = buffer;
    s.offset = offset;
    s.mapped = nullptr;  // pushes and pulls go through staging
    s.coherent = true;
    return a;
}

namespace {

void check_timeline(VkSemaphore timeline, const char* what) {
    if (timeline == VK_NULL_HANDLE)
        throw InvalidArgument(std::string(what) + ": the semaphore is VK_NULL_HANDLE; give a timeline semaphore "
                                                  "(VK_SEMAPHORE_TYPE_TIMELINE) of the context's device");
}

} // namespace

void wait_before_next_submission(const Context& ctx, VkSemaphore timeline, uint64_t value) {
    check_timeline(timeline, "wait_before_next_submission");
    ctx.state().scheduler.wait_before_next(timeline, value);
}

void signal_after_next_submission(const Context& ctx, VkSemaphore timeline, uint64_t value) {
    check_timeline(timeline, "signal_after_next_submission");
    ctx.state().scheduler.signal_after_next(timeline, value);
}

} // namespace kiln
