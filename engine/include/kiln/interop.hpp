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
BufferView buffer_of(const Array& a);

/// An Array over an application-owned buffer range, without a copy. The
/// buffer must belong to ctx's device and have STORAGE_BUFFER, TRANSFER_SRC
/// and TRANSFER_DST usage; the range must hold shape.size() elements of
/// dtype from a 4-byte aligned offset. The application keeps the buffer
/// alive until the Array and every copy of it are released, and orders its
/// own writes before kiln reads them (wait_before_next_submission).
Array wrap_buffer(const Context& ctx, VkBuffer buffer, VkDeviceSize offset, Shape shape,
                  DType dtype = DType::float32);

/// kiln's next submission waits until `timeline` (a timeline semaphore of
/// ctx's device) reaches `value`, before any of its work. Several calls add
/// several waits.
void wait_before_next_submission(const Context& ctx, VkSemaphore timeline, uint64_t value);

/// kiln's next submission sets `timeline` to `value` when all its work has
/// finished.
void signal_after_next_submission(const Context& ctx, VkSemaphore timeline, uint64_t value);

}  // namespace kiln
#pragma GCC visibility pop
