#pragma once
// What an op (engine/ops/) may ask of its context, and nothing more: the
// device's limits and features, recording a node, the capture and the lock,
// kept scratch memory, tuned workgroup sizes, reading results back, and what
// a few ops need to know of work already recorded, in the ops' own terms
// (has this array changed, is the work using it done, what did some work
// cost). Ops reach it with ops::services(array) or ops::services(context);
// the scheduler and the context behind it stay out of their sight.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "graph/node.hpp"
#include "kiln/array.hpp"
#include "kiln/context.hpp"
#include "kiln/profile.hpp"
#include "vk/device.hpp"

namespace kiln::detail {

class DeviceResources;
class Profiler;
class RetireQueue;
class Scheduler;

class OpServices {
public:
    /// `mutex` is the context's lock; the other parts are the context's own.
    OpServices(DeviceResources& resources, Scheduler& scheduler, Profiler& profiler, RetireQueue& retired,
               std::recursive_mutex& mutex);
    OpServices(const OpServices&) = delete;
    OpServices& operator=(const OpServices&) = delete;

    /// The device's limits and capabilities.
    const DeviceInfo& info() const;
    /// The features enabled on the device.
    const vk::Enabled& enabled() const;
    /// The context's options.
    const ContextOptions& options() const;

    /// Adds a node to the capture in progress, or to the pending work.
    void record(Node node);
    /// Whether the calling thread is capturing into a Graph.
    bool capturing() const;
    /// The context's lock, for a recording sequence that must not interleave
    /// with another thread's (recursive: every member takes it too).
    std::unique_lock<std::recursive_mutex> lock() const { return std::unique_lock(mutex_); }

    /// Device memory an op keeps between calls under `key` (say, a histogram
    /// each use leaves zeroed, so the next needs no clearing pass). `ready`
    /// is the op's own flag: whether the memory is in that state once the
    /// work recorded so far has run. Freed with the context.
    struct Kept {
        std::shared_ptr<Storage> storage;
        bool ready = false;
    };
    /// The memory kept under `key`, at least `bytes` and placed (never a
    /// graph's transient): new, and not ready, when there was none or less.
    Kept& kept(const std::string& key, uint64_t bytes);

    /// A 2-D image of `format` kept under `key` (vk/image.hpp: storage and
    /// sampled, GENERAL layout), at least `width` x `height`: a new one
    /// when there was none or a smaller one (work recorded with the old one
    /// keeps it until done). Null where the device takes no such image.
    /// Its contents are the op's to write before each use.
    std::shared_ptr<const vk::Image> kept_image(const std::string& key, VkFormat format, uint32_t width,
                                                uint32_t height);

    /// Gives `a` memory now, for good (never a graph's transient), where it
    /// has none yet: for an object that records its buffers' handles once
    /// (an FFT plan's work buffers).
    void place(const Array& a);
    /// Where a placed array lies for good: its allocator block's buffer and
    /// size, a key of that block unique over the context's life (a block made
    /// later may reuse a freed one's handle), and the array's offset in it.
    struct BlockPlace {
        VkBuffer buffer = VK_NULL_HANDLE;
        uint64_t block_bytes = 0, block_key = 0, offset = 0;
    };
    /// None where the array is not in one of the allocator's blocks (not
    /// placed yet, an application's buffer, a graph's arena).
    std::optional<BlockPlace> block_of(const Array& a) const;
    /// The device, for a library that makes its own Vulkan objects and
    /// submits on the queue through Device::use_queue (VkFFT's plans).
    const vk::Device& device() const;
    /// An object an op keeps per context under `key` (an FFT plan), made by
    /// `make` on first use; destroyed with the context, once the device is idle.
    std::shared_ptr<void> cached(const std::string& key, const std::function<std::shared_ptr<void>()>& make);
    ~OpServices();

    /// A tuned workgroup size for a kernel (or a family of kernels) by name.
    std::optional<std::array<uint32_t, 3>> workgroup_size(const std::string& kernel) const;
    /// Sets one; {0,0,0} removes it. Throws for a size the device refuses.
    void set_workgroup_size(const std::string& kernel, std::array<uint32_t, 3> size);

    /// Copies the first `bytes` of `a` into `dst` once the work recorded so
    /// far that writes it has run.
    void read(const Array& a, void* dst, size_t bytes);
    /// Whether [p, p + bytes) lies in one PinnedBuffer of this context.
    bool pinned(const void* p, size_t bytes) const;

    /// A token for the contents of `a`: equal tokens mean no GPU work used
    /// its memory in between. None while recorded work that uses it is not
    /// yet submitted, and for memory the host writes in place (never placed,
    /// or mapped with direct host access), where there is no telling.
    std::optional<uint64_t> version(const Array& a) const;
    /// Returns once the GPU has finished the submitted work that uses `a`;
    /// recorded work not yet submitted stays pending.
    void finish_submitted(const Array& a);

    /// A point in the order of the context's work, taken by mark().
    struct Mark {
        uint64_t at = 0;
    };
    /// Now: work recorded from here on, or pending, comes at or after it.
    Mark mark() const;
    /// Whether the last work that uses `a` comes at or after `m` and has
    /// been submitted (none recorded since awaits submission).
    bool submitted_since(const Array& a, Mark m) const;

    /// Finishes all work recorded so far, runs `work`, finishes what it
    /// recorded, and returns the profile events of that work.
    std::vector<TraceEvent> events_of(const std::function<void()>& work);

private:
    DeviceResources& resources_;
    Scheduler& scheduler_;
    Profiler& profiler_;
    RetireQueue& retired_;
    std::recursive_mutex& mutex_;
    std::map<std::string, Kept> kept_;
    std::map<std::string, std::shared_ptr<const vk::Image>> kept_images_;
    std::map<std::string, std::shared_ptr<void>> cached_;
    std::map<std::string, std::array<uint32_t, 3>> workgroup_sizes_;
};

} // namespace kiln::detail

namespace kiln::ops {

/// The op services of the context an array belongs to (throws for a null Array).
detail::OpServices& services(const Array& a);
/// The op services of a context.
detail::OpServices& services(const Context& c);

} // namespace kiln::ops
