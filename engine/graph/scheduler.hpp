#pragma once
// The scheduler: the pending graph (or the capture in progress), the serials
// of submissions, the submissions in flight, and the recorded graphs it
// submits again. Every member takes the context's recursive lock; a
// sequence of calls that must not interleave with another thread's takes
// lock() around them.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "graph/compile.hpp"
#include "graph/node.hpp"
#include "graph/staging.hpp"
#include "graph/submission.hpp"

namespace kiln::vk {
class SubmissionPool;
}

namespace kiln::detail {

class DeviceResources;
class Profiler;
class RetireQueue;

class Scheduler {
public:
    /// Submits through `resources`' queue with objects from `objects`;
    /// reports finished submissions to `retired` and their timestamps to
    /// `profiler`. `mutex` is the context's lock.
    Scheduler(DeviceResources& resources, vk::SubmissionPool& objects, RetireQueue& retired, Profiler& profiler,
              std::recursive_mutex& mutex);
    /// Waits for the queue to be idle, then gives back what is in flight or pending.
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    /// The context's lock, for a sequence of calls that must not interleave
    /// with another thread's (recursive: members take it again inside).
    std::unique_lock<std::recursive_mutex> lock() const { return std::unique_lock(mutex_); }

    /// Adds a node to the capture in progress, or to the pending graph
    /// (submitted once it holds options().flush_nodes nodes).
    void record(Node node);
    /// Whether the calling thread is capturing into a Graph (a capture
    /// records only the calls of the thread that began it).
    bool capturing() const;
    /// Records the calling thread's nodes into `target` until end_capture().
    void begin_capture(GraphIR* target);
    void end_capture();

    /// The serial the pending graph will be submitted with.
    uint64_t pending_serial() const;
    /// Submits the pending graph without waiting; returns its serial. With
    /// nothing pending it submits nothing, unless a semaphore wait or signal
    /// is pending: then an empty submission carries it.
    uint64_t flush();
    /// Waits until submission `serial` has finished.
    void wait(uint64_t serial);
    /// Submits the pending graph and waits for all work.
    void sync() { wait(flush()); }
    /// Notes finished submissions: timings, memory and staging returned.
    void poll();

    /// A staging slice for the pending graph; when the ring is full, submits
    /// pending work and waits for the oldest submissions until it fits.
    /// A held slice stays reserved until release_staging().
    Slice staging(VkDeviceSize size, bool hold = false);
    void release_staging(const Slice& s);

    /// The next submission waits until the timeline semaphore reaches
    /// `value` before any of its work (and so before any later work).
    void wait_before_next(VkSemaphore timeline, uint64_t value);
    /// The next submission sets the timeline semaphore to `value` once its
    /// work, and all work submitted before it, has finished, after a barrier
    /// that makes what it wrote visible to the host. A recorded graph's
    /// launch carries it after the graph (an empty submission follows it).
    void signal_after_next(VkSemaphore timeline, uint64_t value);

    /// Compiles and records a captured graph for repeated submission.
    std::unique_ptr<RecordedGraph> record_graph(GraphIR graph);
    /// Submits a recorded graph after the pending work; returns its serial.
    uint64_t submit_recorded(RecordedGraph& g);
    /// Waits for a recorded graph's last run, then gives back its objects.
    void release_recorded(RecordedGraph& g);

private:
    Submission prepare(GraphIR& graph, Plan& plan, bool reusable, bool host_barrier = false);
    /// Submits the pending graph (or an empty one that carries semaphores);
    /// the pending signals go with it when `with_signals`.
    uint64_t flush_pending(bool with_signals);
    /// Submits `sub` with the pending waits, and the pending signals when `with_signals`.
    uint64_t submit(Submission& sub, bool with_signals);
    void recycle(Submission& sub);

    DeviceResources& resources_;
    vk::SubmissionPool& objects_;
    RetireQueue& retired_;
    Profiler& profiler_;
    std::recursive_mutex& mutex_;

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
    // The application's timeline semaphores for the next submission (kiln/interop.hpp).
    std::vector<VkSemaphoreSubmitInfo> waits_, signals_;
};

} // namespace kiln::detail
