#pragma once
// Everything a Context owns: device, memory, pipelines, the pending graph and
// the submissions in flight. Shared by threads through one recursive lock:
// every member that touches the shared state takes it, and an op whose
// recording must not interleave with another thread's (those using the kept
// scratch) holds lock() while it records.
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <optional>
#include <string>

#include "graph/compile.hpp"
#include "graph/node.hpp"
#include "graph/staging.hpp"
#include "kiln/context.hpp"
#include "kiln/error.hpp"
#include "vk/allocator.hpp"
#include "vk/device.hpp"
#include "vk/handle.hpp"
#include "vk/instance.hpp"
#include "vk/pipeline.hpp"

namespace kiln::detail {

/// A command buffer, its fence and queries: one submission's GPU objects.
struct Submission {
    uint64_t serial = 0;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    vk::Fence fence;
    vk::QueryPool queries;
    vk::DescriptorPool descriptors;
    uint32_t query_count = 0;     // queries this submission uses
    uint32_t query_capacity = 0;  // queries the pool holds
    bool time_nodes = false;
    std::vector<std::string> names;  // node names in execution order
    GraphIR keep;                    // holds the graph's storages until done
    vk::Allocation arena;            // transient memory, freed when done
    bool reusable = false;           // owned by an explicit Graph
};

/// A compiled, recorded graph that can be submitted many times.
struct RecordedGraph {
    Submission sub;
    Plan plan;
    bool in_flight = false;
};

class ContextState {
public:
    ContextState(const ContextOptions& options, const ExternalDevice* external);
    ~ContextState();
    ContextState(const ContextState&) = delete;
    ContextState& operator=(const ContextState&) = delete;

    const ContextOptions& options() const { return options_; }
    vk::Device& device() { return *device_; }
    const DeviceInfo& info() const { return device_->info(); }
    vk::Allocator& allocator() { return *allocator_; }
    /// Whether pulls read arrays in place (mapped device memory and
    /// options().direct_host_access): then every submission ends with a
    /// barrier to host reads, not only those that copy.
    bool host_reads_in_place() const {
        return options_.direct_host_access && allocator_->device_memory_mappable();
    }
    vk::Pipelines& pipelines() { return *pipelines_; }
    Profile& profile() { return profile_; }
    vk::Instance& instance() { return *instance_; }

    /// Adds a node to the capture in progress, or to the pending graph
    /// (submitted once it holds options().flush_nodes nodes).
    void record(Node node);
    /// Whether the calling thread is capturing into a Graph (a capture
    /// records only the calls of the thread that began it).
    bool capturing() const {
        std::lock_guard guard(mutex_);
        return capture_ != nullptr && capture_thread_ == std::this_thread::get_id();
    }
    /// The context's lock, for a sequence of calls that must not interleave
    /// with another thread's (recursive: members take it again inside).
    std::unique_lock<std::recursive_mutex> lock() const { return std::unique_lock(mutex_); }
    void begin_capture(GraphIR* target);
    void end_capture();

    /// The serial the pending graph will be submitted with.
    uint64_t pending_serial() const {
        std::lock_guard guard(mutex_);
        return next_serial_;
    }
    uint64_t completed_serial() const {
        std::lock_guard guard(mutex_);
        return completed_;
    }
    /// Submits the pending graph (if any) without waiting; returns its serial.
    uint64_t flush();
    /// Waits until submission `serial` has finished.
    void wait(uint64_t serial);
    void sync() { wait(flush()); }
    /// Notes finished submissions: timings, memory returned.
    void poll();

    /// Memory freed once submission `serial` has finished.
    void retire(const vk::Allocation& a, uint64_t serial);
    /// Gives a storage persistent memory now.
    void place(Storage& s);
    /// A staging slice for the pending graph; when the ring is full, submits
    /// pending work and waits for the oldest submissions until it fits.
    /// A held slice stays reserved until release_staging().
    Slice staging(VkDeviceSize size, bool hold = false);
    void release_staging(const Slice& s);
    VkDeviceSize staging_capacity() const { return staging_->capacity(); }

    /// Compiles and records a captured graph for repeated submission.
    std::unique_ptr<RecordedGraph> record_graph(GraphIR graph);
    /// Submits a recorded graph after the pending work; returns its serial.
    uint64_t submit_recorded(RecordedGraph& g);
    void release_recorded(RecordedGraph& g);

    std::optional<std::array<uint32_t, 3>> workgroup_size(const std::string& kernel) const;
    void set_workgroup_size(const std::string& kernel, std::array<uint32_t, 3> size);

    MemoryStats memory_stats() const;

    /// Device memory an op keeps between calls under `key` (say, a histogram
    /// each use leaves zeroed, so the next needs no clearing pass). `ready`
    /// is the op's own flag: whether the memory is in that state once the
    /// work recorded so far has run. Freed with the context.
    struct Kept {
        std::shared_ptr<Storage> storage;
        bool ready = false;
    };
    Kept& kept(const std::string& key) {
        std::lock_guard guard(mutex_);
        return kept_[key];
    }

private:
    Submission prepare(GraphIR& graph, Plan& plan, bool reusable);
    uint64_t submit(Submission& sub);
    void finish(Submission& sub);
    void destroy(Submission& sub);

    ContextOptions options_;
    std::unique_ptr<vk::Instance> instance_;
    std::unique_ptr<vk::Device> device_;
    std::unique_ptr<vk::Allocator> allocator_;
    std::unique_ptr<vk::Pipelines> pipelines_;
    std::unique_ptr<StagingRing> staging_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    // Per-submission objects of finished submissions, kept for the next ones:
    // creating a query pool or fence costs the driver far more than reusing
    // one. Fences are unsignalled; query pools are reset in the command buffer.
    std::map<std::string, Kept> kept_;
    std::vector<VkCommandBuffer> free_cmds_;
    std::vector<vk::Fence> free_fences_;
    std::vector<std::pair<uint32_t, vk::QueryPool>> free_queries_;  // capacity, pool
    uint32_t spin_us_ = 0;  // busy-wait this long on a fence before blocking
    uint64_t fence_timeout_ns_ = UINT64_MAX;  // then a VulkanError names the kernels

    mutable std::recursive_mutex mutex_;
    GraphIR pending_;
    GraphIR* capture_ = nullptr;
    std::thread::id capture_thread_;
    uint64_t next_serial_ = 1;
    uint64_t completed_ = 0;
    struct Flight {
        uint64_t serial = 0;
        std::unique_ptr<Submission> owned;
        RecordedGraph* recorded = nullptr;
    };
    std::deque<Flight> in_flight_;
    std::deque<std::pair<uint64_t, vk::Allocation>> retired_;
    Profile profile_;
    std::optional<uint64_t> time_origin_;
    std::map<std::string, std::array<uint32_t, 3>> workgroup_sizes_;
};

} // namespace kiln::detail
