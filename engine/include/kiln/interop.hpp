#pragma once
// GPU interop for applications that render with their own Vulkan device
// (adopted through ExternalDevice): the buffer behind an array, an
// application's buffer used as an array, and ordering kiln's submissions
// against the application's queue work with timeline semaphores.
//
//   kiln::BufferView v = kiln::buffer_of(result);          // draw from it
//   kiln::wait_before_next_submission(ctx, app_timeline, frame_value);
//   kiln::signal_after_next_submission(ctx, kiln_timeline, frame_value);
//   ctx.flush();                                           // submits now
//
// Threads: any thread may call these (each takes the context's lock, as
// every call on a context does). kiln calls ExternalDevice::lock_queue
// while it holds the context's lock: never call into the context while
// holding the queue lock. The application orders its own queue work against
// kiln's with the semaphores below (or Context::sync()), on any queue.
#include <cstdint>

#include <vulkan/vulkan.h>

#include "kiln/array.hpp"
#include "kiln/context.hpp"
#include "kiln/dtype.hpp"
#include "kiln/shape.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// A range of a VkBuffer.
struct BufferView {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    VkDeviceSize size = 0;  ///< a.nbytes()
};

/// The buffer, offset and size of `a`'s memory (given memory now if it had
/// none yet; pending work is not submitted). Valid until `a` and every copy
/// of it are released. The application orders its own use of the range
/// against kiln's work: signal_after_next_submission, or Context::sync().
/// Throws InvalidArgument for a null Array, and for an intermediate placed
/// in a graph's transient arena (memory it shares with other intermediates,
/// which moves when the graph is compiled again); an array an Array handle
/// held while its graph was captured is never one.
BufferView buffer_of(const Array& a);

/// An Array over an application-owned buffer range, without a copy. The
/// buffer must belong to ctx's device and have STORAGE_BUFFER, TRANSFER_SRC
/// and TRANSFER_DST usage; the range must hold shape.size() elements of
/// dtype from an offset that is a multiple of 4 and of the device's
/// minStorageBufferOffsetAlignment (DeviceInfo::min_storage_offset_alignment:
/// kernels bind the range there). kiln cannot query a VkBuffer's size: the
/// application guarantees that the buffer holds offset + nbytes() rounded
/// up to a multiple of 4 bytes (kernels bind whole 32-bit words). Throws
/// InvalidArgument for a null buffer, a misaligned offset or a range past
/// 2^64; Unsupported for a dtype the device's enabled features lack. kiln
/// never frees the buffer and never maps it: push and pull go through
/// staging. The application keeps the buffer alive until the Array and
/// every copy of it are released and kiln's work on it has finished
/// (Context::sync(), or a signal), and orders its own writes before kiln
/// reads them (wait_before_next_submission, or done before the call that
/// records kiln's use).
Array wrap_buffer(const Context& ctx, VkBuffer buffer, VkDeviceSize offset, Shape shape,
                  DType dtype = DType::float32);

/// kiln's next submission waits until `timeline` (a timeline semaphore of
/// ctx's device, VK_SEMAPHORE_TYPE_TIMELINE) reaches `value`, before any of
/// its work (and so before any later work of kiln's). Several calls add
/// several waits. The application must signal it: until then kiln's queue
/// work does not start (a wait for it ends in a VulkanError after
/// ContextOptions::fence_timeout_ms).
void wait_before_next_submission(const Context& ctx, VkSemaphore timeline, uint64_t value);

/// kiln's next submission sets `timeline` to `value` when all its work, and
/// all kiln's work submitted before it, has finished; what it wrote is then
/// visible to the device and, once the host has waited for the value, to
/// the host. It covers every op recorded before this call: any submission
/// (Context::flush(), sync(), a pull, a large push, a full pending graph)
/// submits all pending work. Context::flush() submits even when nothing is
/// pending while a signal or wait is (an empty submission carries it); a
/// Graph::launch() or run() signals after the graph's work. Values of one
/// semaphore must increase (the application's timeline rules).
void signal_after_next_submission(const Context& ctx, VkSemaphore timeline, uint64_t value);

}  // namespace kiln
#pragma GCC visibility pop
