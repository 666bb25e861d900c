#include "graph/context_state.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "graph/record.hpp"
#include "vk/check.hpp"

namespace kiln::detail {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::string device_list(const std::vector<DeviceInfo>& infos) {
    std::string s;
    for (auto& i : infos) s += "\n  [" + std::to_string(i.index) + "] " + i.name + " (" + i.type + ")";
    return s.empty() ? " (none)" : s;
}

uint32_t choose_device(const std::vector<DeviceInfo>& infos, const ContextOptions& o) {
    if (infos.empty())
        throw Error("no Vulkan device found; install a GPU driver or Mesa's lavapipe "
                    "(apt-get install mesa-vulkan-drivers)");
    auto by_index = [&](uint64_t i, const std::string& from) {
        if (i >= infos.size())
            throw InvalidArgument(from + " asks for device " + std::to_string(i) + " but there are " +
                                  std::to_string(infos.size()) + ":" + device_list(infos));
        return static_cast<uint32_t>(i);
    };
    auto by_name = [&](const std::string& name, const std::string& from) {
        for (auto& i : infos)
            if (lower(i.name).find(lower(name)) != std::string::npos) return i.index;
        throw InvalidArgument(from + " '" + name + "' matches no device name; devices:" + device_list(infos));
    };
    if (o.device_index) return by_index(*o.device_index, "device_index");
    if (!o.device_name.empty()) return by_name(o.device_name, "device_name");
    if (const char* env = std::getenv("KILN_DEVICE"); env && *env) {
        std::string v = env;
        if (std::all_of(v.begin(), v.end(), ::isdigit)) return by_index(std::stoull(v), "KILN_DEVICE");
        return by_name(v, "KILN_DEVICE");
    }
    const char* preference[] = {"discrete", "integrated", "virtual", "cpu", "other"};
    for (const char* type : preference)
        for (auto& i : infos)
            if (i.type == type && i.vulkan13) return i.index;
    return 0;
}

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

bool env_flag(const char* name, bool fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    std::string s = lower(v);
    return !(s == "0" || s == "off" || s == "false" || s == "no");
}

std::filesystem::path default_cache_dir() {
    if (const char* d = std::getenv("KILN_CACHE_DIR"); d && *d) return d;
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::filesystem::path(d) / "kiln";
    if (const char* d = std::getenv("HOME"); d && *d) return std::filesystem::path(d) / ".cache" / "kiln";
    return {};
}

char hex_digit(unsigned v) { return "0123456789abcdef"[v & 15]; }

std::string hex(uint32_t v) {
    std::string s(8, '0');
    for (int i = 7; i >= 0; --i, v >>= 4) s[i] = hex_digit(v);
    return s;
}

} // namespace

ContextState::ContextState(const ContextOptions& options, const ExternalDevice* external)
    : options_(options) {
    bool validation = options.validation.value_or(env_flag("KILN_VALIDATION", false));
    const bool discrete = options.emulate_discrete.value_or(env_flag("KILN_EMULATE_DISCRETE", false));
    options_.emulate_discrete = discrete;
    if (discrete) options_.direct_host_access = false;
    if (external) {
        if (!external->instance || !external->physical_device || !external->device || !external->queue)
            throw InvalidArgument("ExternalDevice needs instance, physical_device, device and queue handles");
        instance_ = std::make_unique<vk::Instance>(external->instance);
        auto pds = instance_->physical_devices();
        auto it = std::find(pds.begin(), pds.end(), external->physical_device);
        uint32_t index = it == pds.end() ? 0 : static_cast<uint32_t>(it - pds.begin());
        vk::Enabled en;
        en.float64 = external->float64;
        en.int64 = external->int64;
        en.int16 = external->int16;
        en.int8 = external->int8;
        en.float16 = external->float16;
        en.storage8 = external->storage8;
        en.storage16 = external->storage16;
        en.push_descriptors = external->push_descriptors;
        en.host_query_reset = external->host_query_reset;
        device_ = std::make_unique<vk::Device>(external->physical_device, index, external->device,
                                               external->queue, external->queue_family, en);
    } else {
        instance_ = std::make_unique<vk::Instance>(vk::InstanceCreateInfo{validation, options.on_validation_message});
        auto pds = instance_->physical_devices();
        std::vector<DeviceInfo> infos;
        for (uint32_t i = 0; i < pds.size(); ++i) infos.push_back(vk::query_device(pds[i], i));
        uint32_t index = choose_device(infos, options);
        device_ = std::make_unique<vk::Device>(pds[index], index);
    }
    device_->cap_binding_range(options.max_binding_range);
    allocator_ = std::make_unique<vk::Allocator>(*device_, options.block_size, !discrete);

    std::filesystem::path cache_file;
    if (options.pipeline_cache.value_or(env_flag("KILN_PIPELINE_CACHE", true))) {
        std::filesystem::path dir = options.cache_dir.empty() ? default_cache_dir() : std::filesystem::path(options.cache_dir);
        const auto& i = device_->info();
        if (!dir.empty())
            cache_file = dir / ("pipelines-" + hex(i.vendor_id) + "-" + hex(i.device_id) + "-" +
                                hex(i.driver_version) + ".bin");
    }
    pipelines_ = std::make_unique<vk::Pipelines>(*device_, cache_file);
    staging_ = std::make_unique<StagingRing>(*allocator_, options.staging_size);

    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = device_->queue_family();
    vk::check(vkCreateCommandPool(device_->handle(), &pci, nullptr, &pool_), "vkCreateCommandPool");
    // A CPU device (lavapipe) runs the work on the host's cores: no polling there.
    spin_us_ = device_->info().type == "cpu" ? 0 : 1000;
    profile_.set_capacity(options.profile_capacity);
    if (const char* v = std::getenv("KILN_SPIN_US"); v && *v) spin_us_ = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    if (options.spin_wait_us) spin_us_ = *options.spin_wait_us;
    uint64_t timeout_ms = options.fence_timeout_ms.value_or(120000);
    if (!options.fence_timeout_ms)
        if (const char* v = std::getenv("KILN_FENCE_TIMEOUT_MS"); v && *v) timeout_ms = std::strtoull(v, nullptr, 10);
    fence_timeout_ns_ = timeout_ms == 0 || timeout_ms > UINT64_MAX / 1000000 ? UINT64_MAX : timeout_ms * 1000000;
}

ContextState::~ContextState() {
    vkQueueWaitIdle(device_->queue());
    try {
        poll();
    } catch (...) {
    }
    kept_.clear();  // their memory goes to retired_, freed below
    for (auto& f : in_flight_)
        if (f.owned) destroy(*f.owned);
    in_flight_.clear();
    pending_.nodes.clear();
    for (auto& [serial, a] : retired_) allocator_->free(a);
    retired_.clear();
    staging_.reset();
    pipelines_.reset();
    free_fences_.clear();
    free_queries_.clear();
    vkDestroyCommandPool(device_->handle(), pool_, nullptr);  // frees the command buffers
    allocator_.reset();
    device_.reset();
    instance_.reset();
}

void ContextState::record(Node node) {
    std::lock_guard guard(mutex_);
    if (capture_ && capture_thread_ == std::this_thread::get_id()) {
        capture_->nodes.push_back(std::move(node));
        return;
    }
    node.for_each_buffer([&](const BufferRef& b) {
        if (b.storage) b.storage->last_serial = next_serial_;
    });
    pending_.nodes.push_back(std::move(node));
    if (pending_.nodes.size() >= options_.flush_nodes) flush();
}

void ContextState::begin_capture(GraphIR* target) {
    std::lock_guard guard(mutex_);
    if (capture_) throw InvalidArgument("a graph capture is already in progress on this context");
    capture_ = target;
    capture_thread_ = std::this_thread::get_id();
}

void ContextState::end_capture() {
    std::lock_guard guard(mutex_);
    capture_ = nullptr;
}

Submission ContextState::prepare(GraphIR& graph, Plan& plan, bool reusable) {
    const bool timing = options_.timing != Timing::off && device_->info().timestamps;
    plan = compile(graph, allocator_->alignment(), timing, options_.timing == Timing::nodes);
    for (auto& s : plan.to_allocate)
        if (!s->placed()) place(*s);
    Submission sub;
    sub.reusable = reusable;
    if (plan.arena_size) {
        sub.arena = allocator_->allocate(plan.arena_size, vk::MemoryUsage::device);
        for (size_t i = 0; i < plan.transients.size(); ++i) {
            Storage& s = *plan.transients[i];
            s.buffer = sub.arena.buffer();
            s.offset = sub.arena.offset + plan.transient_offsets[i];
            s.mapped = sub.arena.mapped() ? sub.arena.mapped() + plan.transient_offsets[i] : nullptr;
            s.coherent = sub.arena.mapped() ? sub.arena.host_coherent() : true;
        }
    }
    VkDevice dev = device_->handle();
    if (!free_cmds_.empty()) {
        sub.cmd = free_cmds_.back();  // vkBeginCommandBuffer resets it
        free_cmds_.pop_back();
    } else {
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool_;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        vk::check(vkAllocateCommandBuffers(dev, &ai, &sub.cmd), "vkAllocateCommandBuffers");
    }
    if (!free_fences_.empty()) {
        sub.fence = std::move(free_fences_.back());
        free_fences_.pop_back();
    } else {
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        vk::check(vkCreateFence(dev, &fci, nullptr, sub.fence.put(dev)), "vkCreateFence");
    }
    if (plan.query_count) {
        // The smallest free pool that is large enough, else a new one with
        // room to spare for the next, larger graphs.
        auto best = free_queries_.end();
        for (auto it = free_queries_.begin(); it != free_queries_.end(); ++it)
            if (it->first >= plan.query_count && (best == free_queries_.end() || it->first < best->first)) best = it;
        if (best != free_queries_.end()) {
            sub.queries = std::move(best->second);
            sub.query_capacity = best->first;
            free_queries_.erase(best);
        } else {
            VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
            qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
            qci.queryCount = std::max<uint32_t>(std::bit_ceil(plan.query_count), 16);
            vk::check(vkCreateQueryPool(dev, &qci, nullptr, sub.queries.put(dev)), "vkCreateQueryPool");
            sub.query_capacity = qci.queryCount;
        }
        sub.query_count = plan.query_count;
        sub.time_nodes = plan.time_nodes;
    }
    if (sub.time_nodes) {
        sub.names.reserve(plan.order.size());
        for (uint32_t i : plan.order) sub.names.push_back(graph.nodes[i].name());
    }
    try {
        record_commands(*this, sub, graph, plan);
    } catch (...) {
        destroy(sub);
        throw;
    }
    sub.keep = std::move(graph);
    return sub;
}

uint64_t ContextState::submit(Submission& sub) {
    sub.serial = next_serial_++;
    for (auto& n : sub.keep.nodes)
        n.for_each_buffer([&](const BufferRef& b) {
            if (b.storage) b.storage->last_serial = sub.serial;
        });
    VkCommandBufferSubmitInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cbi.commandBuffer = sub.cmd;
    VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    si.commandBufferInfoCount = 1;
    si.pCommandBufferInfos = &cbi;
    vk::check(vkQueueSubmit2(device_->queue(), 1, &si, sub.fence), "vkQueueSubmit2");
    return sub.serial;
}

uint64_t ContextState::flush() {
    std::lock_guard guard(mutex_);
    if (pending_.empty()) return next_serial_ - 1;
    GraphIR graph = std::move(pending_);
    pending_ = {};
    Plan plan;
    Flight f;
    f.owned = std::make_unique<Submission>(prepare(graph, plan, false));
    f.serial = submit(*f.owned);
    in_flight_.push_back(std::move(f));
    return in_flight_.back().serial;
}

void ContextState::wait(uint64_t serial) {
    std::lock_guard guard(mutex_);
    if (serial <= completed_) return;
    for (auto& f : in_flight_) {
        if (f.serial < serial) continue;
        Submission& sub = f.owned ? *f.owned : f.recorded->sub;
        VkResult r = VK_NOT_READY;
        if (spin_us_) {
            // Short waits: poll, since a blocking wait's wake-up can take
            // longer than the work (a virtual machine's interrupts).
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us_);
            while ((r = vkGetFenceStatus(device_->handle(), sub.fence)) == VK_NOT_READY &&
                   std::chrono::steady_clock::now() < until) {
            }
        }
        if (r == VK_NOT_READY) r = vkWaitForFences(device_->handle(), 1, sub.fence.address(), VK_TRUE, fence_timeout_ns_);
        if (r == VK_TIMEOUT)
            throw VulkanError("a submission did not finish within " + std::to_string(fence_timeout_ns_ / 1000000) +
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

void ContextState::poll() {
    std::lock_guard guard(mutex_);
    while (!in_flight_.empty()) {
        Flight& f = in_flight_.front();
        Submission& sub = f.owned ? *f.owned : f.recorded->sub;
        VkResult r = vkGetFenceStatus(device_->handle(), sub.fence);
        if (r == VK_NOT_READY) break;
        vk::check(r, "vkGetFenceStatus");
        finish(sub);
        completed_ = f.serial;
        if (f.owned) destroy(*f.owned);
        else f.recorded->in_flight = false;
        in_flight_.pop_front();
    }
    staging_->release(completed_);
    while (!retired_.empty() && retired_.front().first <= completed_) {
        allocator_->free(retired_.front().second);
        retired_.pop_front();
    }
}

void ContextState::finish(Submission& sub) {
    if (!sub.queries) return;
    std::vector<uint64_t> ticks(sub.query_count);
    VkResult r = vkGetQueryPoolResults(device_->handle(), sub.queries, 0, sub.query_count,
                                       ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                       VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS) return;  // timings are best effort; results are not affected
    uint32_t bits = device_->timestamp_valid_bits();
    uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    double us_per_tick = device_->info().timestamp_period_ns / 1000.0;
    auto at = [&](uint32_t q) { return ticks[q] & mask; };
    if (!time_origin_) time_origin_ = at(0);
    auto rel = [&](uint64_t t) { return (static_cast<double>(t) - static_cast<double>(*time_origin_)) * us_per_tick; };
    profile_.add_submission((static_cast<double>(at(1) - at(0))) * us_per_tick / 1000.0);
    if (sub.time_nodes)
        for (uint32_t i = 0; i < sub.names.size(); ++i) {
            uint64_t b = at(2 + 2 * i), e = at(3 + 2 * i);
            profile_.add(sub.names[i], rel(b), e >= b ? (e - b) * us_per_tick : 0.0, sub.serial);
        }
}

void ContextState::destroy(Submission& sub) {
    // Only finished (or never submitted) submissions get here: their objects
    // go back to the free lists, a few of each at most.
    VkDevice dev = device_->handle();
    constexpr size_t keep = 16;
    if (sub.cmd) {
        if (free_cmds_.size() < keep) free_cmds_.push_back(sub.cmd);
        else vkFreeCommandBuffers(dev, pool_, 1, &sub.cmd);
    }
    // Objects not kept are destroyed with the submission (vk/handle.hpp).
    if (sub.fence && free_fences_.size() < keep && vkResetFences(dev, 1, sub.fence.address()) == VK_SUCCESS)
        free_fences_.push_back(std::move(sub.fence));
    if (sub.queries && free_queries_.size() < keep) free_queries_.push_back({sub.query_capacity, std::move(sub.queries)});
    if (sub.arena) allocator_->free(sub.arena);
    sub = Submission{};
}

void ContextState::retire(const vk::Allocation& a, uint64_t serial) {
    std::lock_guard guard(mutex_);
    if (!a) return;
    if (serial <= completed_ && serial < next_serial_) {
        allocator_->free(a);
        return;
    }
    retired_.push_back({serial, a});
}

void ContextState::place(Storage& s) {
    std::lock_guard guard(mutex_);
    s.alloc = allocator_->allocate(s.bytes, vk::MemoryUsage::device);
    s.buffer = s.alloc.buffer();
    s.offset = s.alloc.offset;
    s.mapped = s.alloc.mapped();
    s.coherent = s.alloc.host_coherent();
}

Slice ContextState::staging(VkDeviceSize size, bool hold) {
    std::lock_guard guard(mutex_);
    if (size > staging_->capacity())
        throw InvalidArgument("staging request of " + std::to_string(size) + " bytes exceeds the ring of " +
                              std::to_string(staging_->capacity()) + " bytes");
    const uint64_t serial = hold ? StagingRing::held : next_serial_;
    Slice s = staging_->allocate(size, serial);
    while (!s) {
        flush();
        if (in_flight_.empty())
            throw Error("the staging ring is full of held slices; release them before asking for more");
        wait(in_flight_.front().serial);
        s = staging_->allocate(size, serial);
    }
    return s;
}

void ContextState::release_staging(const Slice& s) {
    std::lock_guard guard(mutex_);
    staging_->done(s);
    staging_->release(completed_);
}

std::unique_ptr<RecordedGraph> ContextState::record_graph(GraphIR graph) {
    std::lock_guard guard(mutex_);
    auto g = std::make_unique<RecordedGraph>();
    g->sub = prepare(graph, g->plan, true);
    return g;
}

uint64_t ContextState::submit_recorded(RecordedGraph& g) {
    std::lock_guard guard(mutex_);
    flush();
    if (g.in_flight) wait(g.sub.serial);
    vk::check(vkResetFences(device_->handle(), 1, g.sub.fence.address()), "vkResetFences");
    // Its timestamps were read when it finished (poll); reset for this run.
    if (g.sub.queries && device_->enabled().host_query_reset)
        vkResetQueryPool(device_->handle(), g.sub.queries, 0, g.sub.query_count);
    Flight f;
    f.recorded = &g;
    f.serial = submit(g.sub);
    g.in_flight = true;
    uint64_t serial = f.serial;
    in_flight_.push_back(std::move(f));
    return serial;
}

void ContextState::release_recorded(RecordedGraph& g) {
    std::lock_guard guard(mutex_);
    if (g.in_flight) wait(g.sub.serial);
    // The arena goes back once nothing can still be running on it.
    vk::Allocation arena = g.sub.arena;
    g.sub.arena = {};
    // Its intermediates lose their place in the arena; a recompile places them anew.
    for (auto& t : g.plan.transients) {
        t->buffer = VK_NULL_HANDLE;
        t->offset = 0;
        t->mapped = nullptr;
    }
    destroy(g.sub);
    retire(arena, completed_);
}

std::optional<std::array<uint32_t, 3>> ContextState::workgroup_size(const std::string& kernel) const {
    std::lock_guard guard(mutex_);
    auto it = workgroup_sizes_.find(kernel);
    if (it == workgroup_sizes_.end()) return std::nullopt;
    return it->second;
}

void ContextState::set_workgroup_size(const std::string& kernel, std::array<uint32_t, 3> size) {
    std::lock_guard guard(mutex_);
    if (size == std::array<uint32_t, 3>{0, 0, 0}) {
        workgroup_sizes_.erase(kernel);
        return;
    }
    uint64_t n = uint64_t(size[0]) * size[1] * size[2];
    if (n == 0 || n > device_->info().max_workgroup_invocations)
        throw InvalidArgument("workgroup size " + std::to_string(size[0]) + "x" + std::to_string(size[1]) +
                              "x" + std::to_string(size[2]) + " for kernel '" + kernel +
                              "' is not accepted: every extent must be >= 1 and the product at most " +
                              std::to_string(device_->info().max_workgroup_invocations));
    workgroup_sizes_[kernel] = size;
}

MemoryStats ContextState::memory_stats() const { return allocator_->stats(); }

} // namespace kiln::detail
