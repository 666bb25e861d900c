#pragma once
// A kiln context: one Vulkan device, its compute queue, memory and the graph
// of pending work. Several contexts may live in one process.
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/device.hpp"
#include "kiln/profile.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

namespace detail {
struct ContextImpl;
}

/// How much of the GPU work gets timestamp queries.
enum class Timing {
    off,         ///< no queries
    submission,  ///< one span per submission
    nodes,       ///< every node (the default): the profile table per kernel
};

/// Options for creating a Context. Every field has a working default.
struct ContextOptions {
    /// Device by index; when unset, `device_name`, then KILN_DEVICE, then the
    /// first discrete GPU, then any device.
    std::optional<uint32_t> device_index;
    /// Device by case-insensitive substring of its name (as pyclesperanto's select_device).
    std::string device_name;
    /// Khronos validation with synchronization validation. Unset: KILN_VALIDATION=1 turns it on.
    std::optional<bool> validation;
    /// Persist the VkPipelineCache on disk (per device and driver version).
    /// Unset: on, unless KILN_PIPELINE_CACHE=0.
    std::optional<bool> pipeline_cache;
    /// Where the pipeline cache and compiled user kernels live; default
    /// $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln.
    std::string cache_dir;
    Timing timing = Timing::nodes;
    /// Node timings kept for traces and per-kernel medians, and submission
    /// spans kept (each); older ones are dropped, while every kernel's
    /// count, min, max, mean, std and total still cover all runs (Profile).
    size_t profile_capacity = 65536;
    /// Memory is taken from Vulkan in blocks of this size and sub-allocated
    /// (at most the device's maxMemoryAllocationSize and maxStorageBufferRange,
    /// so that a block binds whole; an array larger than half a block gets
    /// one of its own).
    uint64_t block_size = 256ull << 20;
    /// Size of the host-visible staging ring used for transfers.
    uint64_t staging_size = 64ull << 20;
    /// Pending eager work is submitted once it holds this many nodes.
    uint32_t flush_nodes = 4096;
    /// Transfers at least this large import the caller's memory directly
    /// (VK_EXT_external_memory_host) instead of copying through staging.
    /// Off by default: importing pins the pages at every call, which costs
    /// more than the staging ring's parallel copies at every size measured
    /// (bench/results/2026-11-25-h100-transfers).
    uint64_t import_threshold = ~0ull;
    /// Pageable transfers move through the staging ring in pieces of this
    /// many bytes, each submitted when ready so host copies and DMA overlap.
    /// 0: chosen by size (one piece up to 4 MiB, else about eight of at
    /// least 1 MiB), at most a quarter of staging_size.
    uint64_t transfer_piece = 0;
    /// Where arrays live in host-visible memory (lavapipe, integrated GPUs),
    /// push and pull copy in place. Off: always through staging or import.
    bool direct_host_access = true;
    /// Behave like a discrete GPU even where device memory is host-visible
    /// (lavapipe, integrated GPUs): arrays are not mapped, and every push and
    /// pull goes through staging copies (or imported host memory), so the
    /// copy paths and their barriers run under validation on any device.
    /// Implies direct_host_access = false. Unset: KILN_EMULATE_DISCRETE=1
    /// turns it on.
    std::optional<bool> emulate_discrete;
    /// When the host waits for the GPU, it polls for up to this many
    /// microseconds before it blocks. A blocking wait's wake-up can take
    /// longer than short GPU work (0.03-0.2 ms more per wait measured on an
    /// H200 in a virtual machine); polling costs one CPU core while it lasts.
    /// 0: always block. Unset: $KILN_SPIN_US, else 1000 (0 on a CPU device
    /// such as lavapipe, whose work runs on the host's own cores).
    std::optional<uint32_t> spin_wait_us;
    /// The longest the host waits for one submission before it throws a
    /// VulkanError naming the submission's kernels (a kernel that never
    /// ends, a hung device). 0: no limit. Unset: $KILN_FENCE_TIMEOUT_MS,
    /// else 120000 (two minutes).
    std::optional<uint64_t> fence_timeout_ms;
    /// Caps the bytes one shader binding may cover below the device's
    /// maxStorageBufferRange (0: the device's limit). For testing the paths
    /// that split large arrays with small ones.
    uint64_t max_binding_range = 0;
    /// Called with every validation message (besides counting it); may be empty.
    std::function<void(const std::string&)> on_validation_message;
};

/// Handles an embedding application gives kiln to use instead of creating its
/// own. kiln destroys none of them. The device must have been created with a
/// compute-capable queue family `queue_family`, Vulkan 1.3 and the
/// synchronization2 and timelineSemaphore features (say so below); kiln uses
/// what the device has enabled and checks features it needs per operation.
/// kiln/interop.hpp shares buffers and orders work with the application.
struct ExternalDevice {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical_device = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t queue_family = 0;
    /// Features the application enabled, so kiln knows what it may use.
    bool float64 = false, int64 = false, int16 = false, int8 = false, float16 = false;
    bool storage8 = false, storage16 = false, push_descriptors = false;
    /// VkPhysicalDeviceVulkan12Features::hostQueryReset was enabled: kiln
    /// then resets its timestamp queries from the host, which saves the
    /// in-command-buffer reset (about 2 us per submission on an H200).
    bool host_query_reset = false;
    /// Features kiln needs on an adopted device (a Context refuses the
    /// device without them, naming what to enable):
    /// VkPhysicalDeviceVulkan13Features::synchronization2 and
    /// VkPhysicalDeviceVulkan12Features::timelineSemaphore.
    bool synchronization2 = false, timeline_semaphore = false;
    /// When kiln shares the application's queue with other threads: kiln
    /// calls lock_queue before and unlock_queue after each use of `queue`
    /// (vkQueueSubmit2, vkQueueWaitIdle), from whichever thread uses the
    /// context, holding the context's lock (never call into the context
    /// while holding the queue lock). Both or neither (InvalidArgument);
    /// they stay callable until the Context and its copies are gone.
    std::function<void()> lock_queue, unlock_queue;
};

/// Owns (or adopts) a Vulkan device and everything kiln does on it. Copies
/// share the same underlying context.
///
/// Threads: a Context (and its copies) may be used from several threads at
/// once. Every call takes the context's lock, so calls from different
/// threads run one at a time, each op's work recorded as a whole; work
/// recorded by different threads interleaves in the pending graph, each
/// thread's in its own order. A Graph capture records only the calls of the
/// thread that began it. Arrays themselves are not locked: use one Array
/// from one thread at a time, as with NumPy arrays, and read profile() while
/// no other thread runs work on the context.
class Context {
public:
    /// Picks and opens a device; throws kiln::Error when no Vulkan driver or
    /// no matching device is found.
    explicit Context(const ContextOptions& options = {});
    /// Adopts an application's device and queue.
    Context(const ExternalDevice& external, const ContextOptions& options = {});
    ~Context();
    Context(const Context&);
    Context& operator=(const Context&);
    Context(Context&&) noexcept;
    Context& operator=(Context&&) noexcept;

    /// Every Vulkan device of the system (creates a temporary instance).
    static std::vector<DeviceInfo> devices();

    const DeviceInfo& device() const;
    MemoryStats memory_stats() const;

    /// Submits pending work and waits for all work of this context to finish.
    void sync();
    /// Submits pending work without waiting. While an application's
    /// timeline wait or signal is pending (kiln/interop.hpp), it submits even
    /// with no work pending (an empty command buffer carries them).
    void flush();

    /// Per-kernel timing of the work done so far (when timing is on).
    Profile& profile();

    /// Workgroup size of a built-in kernel by name (as pyFAI's
    /// engine.workgroup_size[...]); {0,0,0} restores the kernel's default.
    void set_workgroup_size(const std::string& kernel, std::array<uint32_t, 3> size);
    std::optional<std::array<uint32_t, 3>> workgroup_size(const std::string& kernel) const;

    /// Validation messages seen so far (0 unless validation is on).
    uint64_t validation_message_count() const;
    std::vector<std::string> validation_messages() const;

    /// Whether this is the same context as another.
    bool operator==(const Context& o) const { return state_ == o.state_; }

    /// The implementation, for ops and tools inside kiln.
    detail::ContextImpl& state() const { return *state_; }
    const std::shared_ptr<detail::ContextImpl>& shared_state() const { return state_; }
    explicit Context(std::shared_ptr<detail::ContextImpl> s);

private:
    std::shared_ptr<detail::ContextImpl> state_;
};

} // namespace kiln
#pragma GCC visibility pop
