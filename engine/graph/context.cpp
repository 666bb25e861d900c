#include "kiln/context.hpp"

#include "graph/context_impl.hpp"

namespace kiln {

Context::Context(const ContextOptions& options)
    : state_(std::make_shared<detail::ContextImpl>(options, nullptr)) {}

Context::Context(const ExternalDevice& external, const ContextOptions& options)
    : state_(std::make_shared<detail::ContextImpl>(options, &external)) {}

Context::Context(std::shared_ptr<detail::ContextImpl> s) : state_(std::move(s)) {}
Context::~Context() = default;
Context::Context(const Context&) = default;
Context& Context::operator=(const Context&) = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

std::vector<DeviceInfo> Context::devices() {
    vk::Instance instance(vk::InstanceCreateInfo{});
    std::vector<DeviceInfo> out;
    auto pds = instance.physical_devices();
    for (uint32_t i = 0; i < pds.size(); ++i) out.push_back(vk::query_device(pds[i], i));
    return out;
}

const DeviceInfo& Context::device() const { return state_->resources.info(); }
MemoryStats Context::memory_stats() const { return state_->resources.memory_stats(); }
void Context::sync() { state_->scheduler.sync(); }
void Context::flush() { state_->scheduler.flush(); }
Profile& Context::profile() { return state_->profiler.profile(); }

void Context::set_workgroup_size(const std::string& kernel, std::array<uint32_t, 3> size) {
    state_->services.set_workgroup_size(kernel, size);
}

std::optional<std::array<uint32_t, 3>> Context::workgroup_size(const std::string& kernel) const {
    return state_->services.workgroup_size(kernel);
}

uint64_t Context::validation_message_count() const { return state_->resources.instance().message_count(); }
std::vector<std::string> Context::validation_messages() const { return state_->resources.instance().messages(); }

std::string MemoryStats::str() const {
    auto mib = [](uint64_t b) { return std::to_string(b / (1 << 20)) + "." + std::to_string((b % (1 << 20)) * 10 / (1 << 20)) + " MiB"; };
    std::string s = "kiln memory: " + mib(in_use) + " in use (peak " + mib(peak) + "), " + mib(reserved) +
                    " reserved in " + std::to_string(blocks) + " blocks, " + std::to_string(allocations) +
                    " allocations\n";
    for (size_t i = 0; i < heaps.size(); ++i) {
        const HeapStats& h = heaps[i];
        s += "  heap " + std::to_string(i) + ": " + mib(h.in_use) + " in use, peak " + mib(h.peak) + ", " +
             mib(h.reserved) + " reserved, size " + mib(h.size);
        if (budget_available) s += ", driver: " + mib(h.driver_usage) + " used of " + mib(h.budget) + " budget";
        s += "\n";
    }
    return s;
}

} // namespace kiln
