#include "graph/scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "graph/device_resources.hpp"
#include "graph/profiler.hpp"
#include "graph/record.hpp"
#include "graph/retire_queue.hpp"
#include "kiln/error.hpp"
#include "vk/check.hpp"
#include "vk/submission_pool.hpp"

namespace kiln::detail {

namespace {

// The distinct node names of a submission, in order, for error messages.
std::string kernel_names(const GraphIR& g) {
    std::vector<std::string> names;
    for (const Node& n : g.nodes)
        if (std::find(names.begin(), names.end(), n.name()) == names.end()) names.push_back(n.name());
    std::string s;
    for (size_t i = 0; i < names.size() && i < 12; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > 12) s += " and " + std::to_string(names.size() - 12) + " more";
    return s.empty() ? "none" : s;
}

} // namespace

Scheduler::Scheduler(DeviceResources& resources, vk::SubmissionPool& objects, RetireQueue& retired,
                     Profiler& profiler, std::recursive_mutex& mutex)
    : resources_(resources), objects_(objects), retired_(retired), profiler_(profiler), mutex_(mutex) {}

Scheduler::~Scheduler() {
    resources_.device().wait_idle();
    try {
        poll();
    } catch (...) {
    }
    for (auto& f : in_flight_)
        if (f.owned) recycle(*f.owned);
    in_flight_.clear();
    pending_.nodes.clear();
}

void Scheduler::record(Node node) {
    std::lock_guard guard(mutex_);
    if (capture_ && capture_thread_ == std::this_thread::get_id()) {
        capture_->nodes.push_back(std::move(node));
        return;
    }
    node.for_each_buffer([&](const BufferRef& b) {
        if (b.storage) b.storage->last_serial = next_serial_;
    });
    pending_.nodes.push_back(std::move(node));
    if (pending_.nodes.size() >= resources_.options().flush_nodes) flush();
}

bool Scheduler::capturing() const {
    std::lock_guard guard(mutex_);
    return capture_ != nullptr && capture_thread_ == std::this_thread::get_id();
}

void Scheduler::begin_capture(GraphIR* target) {
    std::lock_guard guard(mutex_);
    if (capture_) throw InvalidArgument("a graph capture is already in progress on this context");
    capture_ = target;
    capture_thread_ = std::this_thread::get_id();
}

void Scheduler::end_capture() {
    std::lock_guard guard(mutex_);
    capture_ = nullptr;
}

uint64_t Scheduler::pending_serial() const {
    std::lock_guard guard(mutex_);
    return next_serial_;
}

Submission Scheduler::prepare(GraphIR& graph, Plan& plan, bool reusable, bool host_barrier) {
    const ContextOptions& options = resources_.options();
    const bool timing = options.timing != Timing::off && resources_.info().timestamps;
    plan = compile(graph, resources_.allocator().alignment(), timing, options.timing == Timing::nodes);
    for (auto& s : plan.to_allocate)
        if (!s->placed()) s->place(resources_.allocator());
    Submission sub;
    sub.reusable = reusable;
    sub.host_barrier = host_barrier;
    if (plan.arena_size) {
        sub.arena = vk::UniqueAllocation(resources_.allocator(), plan.arena_size, vk::MemoryUsage::device);
        for (size_t i = 0; i < plan.transients.size(); ++i) {
            Storage& s = *plan.transients[i];
            s.buffer = sub.arena->buffer();
            s.offset = sub.arena->offset + plan.transient_offsets[i];
            s.mapped = sub.arena->mapped() ? sub.arena->mapped() + plan.transient_offsets[i] : nullptr;
            s.coherent = sub.arena->mapped() ? sub.arena->host_coherent() : true;
        }
    }
    sub.cmd = objects_.command_buffer();
    sub.fence = objects_.fence();
    if (plan.query_count) {
        sub.queries = objects_.timestamps(plan.query_count);
        sub.query_count = plan.query_count;
        sub.time_nodes = plan.time_nodes;
    }
    if (sub.time_nodes) {
        sub.names.reserve(plan.order.size());
        for (uint32_t i : plan.order) sub.names.push_back(graph.nodes[i].name());
    }
    try {
        record_commands(resources_, sub, graph, plan);
    } catch (...) {
        recycle(sub);
        throw;
    }
    sub.keep = std::move(graph);
    return sub;
}

uint64_t Scheduler::submit(Submission& sub, bool with_signals) {
    VkCommandBufferSubmitInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cbi.commandBuffer = sub.cmd;
    VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    si.commandBufferInfoCount = 1;
    si.pCommandBufferInfos = &cbi;
    si.waitSemaphoreInfoCount = static_cast<uint32_t>(waits_.size());
    si.pWaitSemaphoreInfos = waits_.data();
    if (with_signals) {
        si.signalSemaphoreInfoCount = static_cast<uint32_t>(signals_.size());
        si.pSignalSemaphoreInfos = signals_.data();
    }
    resources_.device().submit(si, sub.fence);  // throws before anything changes
    waits_.clear();
    if (with_signals) signals_.clear();
    sub.serial = next_serial_++;
    for (auto& n : sub.keep.nodes)
        n.for_each_buffer([&](const BufferRef& b) {
            if (b.storage) b.storage->last_serial = sub.serial;
        });
    return sub.serial;
}

uint64_t Scheduler::flush() {
    std::lock_guard guard(mutex_);
    return flush_pending(true);
}

uint64_t Scheduler::flush_pending(bool with_signals) {
    const bool signals = with_signals && !signals_.empty();
    if (pending_.empty() && waits_.empty() && !signals) return next_serial_ - 1;
    GraphIR graph = std::move(pending_);
    pending_ = {};
    Plan plan;
    Flight f;
    f.owned = std::make_unique<Submission>(prepare(graph, plan, false, signals));
    f.serial = submit(*f.owned, with_signals);
    in_flight_.push_back(std::move(f));
    return in_flight_.back().serial;
}

void Scheduler::wait_before_next(VkSemaphore timeline, uint64_t value) {
    std::lock_guard guard(mutex_);
    VkSemaphoreSubmitInfo w{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    w.semaphore = timeline;
    w.value = value;
    w.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;  // before any of kiln's work
    waits_.push_back(w);
}

void Scheduler::signal_after_next(VkSemaphore timeline, uint64_t value) {
    std::lock_guard guard(mutex_);
    VkSemaphoreSubmitInfo s{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    s.semaphore = timeline;
    s.value = value;
    s.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;  // after all of it
    signals_.push_back(s);
}

void Scheduler::wait(uint64_t serial) {
    std::lock_guard guard(mutex_);
    if (serial <= completed_) return;
    VkDevice dev = resources_.device().handle();
    const uint32_t spin_us = resources_.spin_us();
    const uint64_t timeout_ns = resources_.fence_timeout_ns();
    for (auto& f : in_flight_) {
        if (f.serial < serial) continue;
        Submission& sub = f.owned ? *f.owned : f.recorded->sub;
        VkResult r = VK_NOT_READY;
        if (spin_us) {
            // Short waits: poll, since a blocking wait's wake-up can take
            // longer than the work (a virtual machine's interrupts).
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us);
            while ((r = vkGetFenceStatus(dev, sub.fence)) == VK_NOT_READY && std::chrono::steady_clock::now() < until) {
            }
        }
        if (r == VK_NOT_READY) r = vkWaitForFences(dev, 1, sub.fence.address(), VK_TRUE, timeout_ns);
        if (r == VK_TIMEOUT)
            throw VulkanError("a submission did not finish within " + std::to_string(timeout_ns / 1000000) +
                                  " ms (kernels: " + kernel_names(sub.keep) +
                                  "): a kernel that does not end, or a hung device. The wait limit is "
                                  "ContextOptions::fence_timeout_ms (KILN_FENCE_TIMEOUT_MS); the submission may "
                                  "still be running, so this context cannot be relied on any more",
                              r);
        if (r == VK_ERROR_DEVICE_LOST)
            throw VulkanError("the GPU device was lost while running kiln work (driver reset or crash) in a "
                              "submission of kernels: " + kernel_names(sub.keep) +
                                  "; this context cannot be used any more, create a new one",
                              r);
        vk::check(r, "vkWaitForFences");
        break;
    }
    poll();
}

void Scheduler::poll() {
    std::lock_guard guard(mutex_);
    while (!in_flight_.empty()) {
        Flight& f = in_flight_.front();
        Submission& sub = f.owned ? *f.owned : f.recorded->sub;
        VkResult r = vkGetFenceStatus(resources_.device().handle(), sub.fence);
        if (r == VK_NOT_READY) break;
        vk::check(r, "vkGetFenceStatus");
        profiler_.read(sub);
        completed_ = f.serial;
        retired_.collect(completed_);
        if (f.owned) recycle(*f.owned);
        else f.recorded->in_flight = false;
        in_flight_.pop_front();
    }
    resources_.staging().release(completed_);
}

void Scheduler::recycle(Submission& sub) {
    // Only finished (or never submitted) submissions get here; what the
    // pool does not keep, and the arena, go with the submission.
    objects_.recycle(std::move(sub.cmd), std::move(sub.fence), std::move(sub.queries));
    sub = Submission{};
}

Slice Scheduler::staging(VkDeviceSize size, bool hold) {
    std::lock_guard guard(mutex_);
    StagingRing& ring = resources_.staging();
    if (size > ring.capacity())
        throw InvalidArgument("staging request of " + std::to_string(size) + " bytes exceeds the ring of " +
                              std::to_string(ring.capacity()) + " bytes");
    const uint64_t serial = hold ? StagingRing::held : next_serial_;
    Slice s = ring.allocate(size, serial);
    while (!s) {
        flush();
        if (in_flight_.empty())
            throw Error("the staging ring is full of held slices; release them before asking for more");
        wait(in_flight_.front().serial);
        s = ring.allocate(size, serial);
    }
    return s;
}

void Scheduler::release_staging(const Slice& s) {
    std::lock_guard guard(mutex_);
    resources_.staging().done(s);
    resources_.staging().release(completed_);
}

std::unique_ptr<RecordedGraph> Scheduler::record_graph(GraphIR graph) {
    std::lock_guard guard(mutex_);
    auto g = std::make_unique<RecordedGraph>();
    g->sub = prepare(graph, g->plan, true);
    return g;
}

uint64_t Scheduler::submit_recorded(RecordedGraph& g) {
    std::lock_guard guard(mutex_);
    // Pending eager work first, with the pending waits; the signals go after the graph.
    if (!pending_.empty()) flush_pending(false);
    if (g.in_flight) wait(g.sub.serial);
    VkDevice dev = resources_.device().handle();
    vk::check(vkResetFences(dev, 1, g.sub.fence.address()), "vkResetFences");
    // Its timestamps were read when it finished (poll); reset for this run.
    if (g.sub.queries && resources_.device().enabled().host_query_reset)
        vkResetQueryPool(dev, g.sub.queries.pool, 0, g.sub.query_count);
    Flight f;
    f.recorded = &g;
    // The graph's command buffer was recorded without a barrier to host
    // reads: pending signals follow it in an empty submission that has one
    // (a signal covers all work earlier in submission order).
    f.serial = submit(g.sub, false);
    g.in_flight = true;
    uint64_t serial = f.serial;
    in_flight_.push_back(std::move(f));
    if (!signals_.empty()) flush_pending(true);
    return serial;
}

void Scheduler::release_recorded(RecordedGraph& g) {
    std::lock_guard guard(mutex_);
    // The graph's objects are reused or freed at once: nothing may still run on them.
    if (g.in_flight) wait(g.sub.serial);
    // Its intermediates lose their place in the arena; a recompile places them anew.
    for (auto& t : g.plan.transients) {
        t->buffer = VK_NULL_HANDLE;
        t->offset = 0;
        t->mapped = nullptr;
    }
    recycle(g.sub);
}

} // namespace kiln::detail
