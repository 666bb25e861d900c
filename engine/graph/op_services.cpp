#include "graph/op_services.hpp"

#include <algorithm>

#include "graph/context_impl.hpp"
#include "graph/transfer.hpp"
#include "kiln/error.hpp"

namespace kiln::detail {

OpServices::OpServices(DeviceResources& resources, Scheduler& scheduler, Profiler& profiler, RetireQueue& retired,
                       std::recursive_mutex& mutex)
    : resources_(resources), scheduler_(scheduler), profiler_(profiler), retired_(retired), mutex_(mutex) {}

const DeviceInfo& OpServices::info() const { return resources_.info(); }
const vk::Enabled& OpServices::enabled() const { return resources_.device().enabled(); }
const ContextOptions& OpServices::options() const { return resources_.options(); }

void OpServices::record(Node node) { scheduler_.record(std::move(node)); }
bool OpServices::capturing() const { return scheduler_.capturing(); }

OpServices::Kept& OpServices::kept(const std::string& key, uint64_t bytes) {
    std::lock_guard guard(mutex_);
    Kept& k = kept_[key];
    if (!k.storage || k.storage->bytes < bytes) {
        k.storage = std::make_shared<Storage>(&retired_, bytes);
        k.storage->place(resources_.allocator());
        k.ready = false;
    }
    return k;
}

std::shared_ptr<const vk::Image> OpServices::kept_image(const std::string& key, VkFormat format, uint32_t width,
                                                        uint32_t height) {
    std::lock_guard guard(mutex_);
    std::shared_ptr<const vk::Image>& k = kept_images_[key];
    if (k && k->format() == format && k->width() >= width && k->height() >= height) return k;
    if (k && k->format() == format) {
        width = std::max(width, k->width());
        height = std::max(height, k->height());
    }
    const vk::Device& dev = resources_.device();
    if (!vk::Image::supported(dev, format, width, height)) return nullptr;
    k = std::make_shared<const vk::Image>(dev, format, width, height);
    return k;
}

void OpServices::place(const Array& a) {
    std::lock_guard guard(mutex_);
    if (!a.storage()->placed()) a.storage()->place(resources_.allocator());
}

std::optional<OpServices::BlockPlace> OpServices::block_of(const Array& a) const {
    const Storage& s = *a.storage();
    if (!s.alloc) return std::nullopt;
    const vk::Block& b = *s.alloc->block;
    return BlockPlace{b.buffer, b.size, b.serial, s.offset};
}

const vk::Device& OpServices::device() const { return resources_.device(); }

std::shared_ptr<void> OpServices::cached(const std::string& key,
                                         const std::function<std::shared_ptr<void>()>& make) {
    std::lock_guard guard(mutex_);
    std::shared_ptr<void>& o = cached_[key];
    if (!o) o = make();
    return o;
}

// The cached objects may own pipelines that submitted work still uses: the
// scheduler, which waits for the device, goes after the services.
OpServices::~OpServices() {
    if (cached_.empty() && kept_images_.empty()) return;
    resources_.device().wait_idle();
    cached_.clear();
    kept_images_.clear();
}

std::optional<std::array<uint32_t, 3>> OpServices::workgroup_size(const std::string& kernel) const {
    std::lock_guard guard(mutex_);
    auto it = workgroup_sizes_.find(kernel);
    if (it == workgroup_sizes_.end()) return std::nullopt;
    return it->second;
}

void OpServices::set_workgroup_size(const std::string& kernel, std::array<uint32_t, 3> size) {
    std::lock_guard guard(mutex_);
    if (size == std::array<uint32_t, 3>{0, 0, 0}) {
        workgroup_sizes_.erase(kernel);
        return;
    }
    const uint32_t most = resources_.info().max_workgroup_invocations;
    uint64_t n = uint64_t(size[0]) * size[1] * size[2];
    if (n == 0 || n > most)
        throw InvalidArgument("workgroup size " + std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" +
                              std::to_string(size[2]) + " for kernel '" + kernel +
                              "' is not accepted: every extent must be >= 1 and the product at most " +
                              std::to_string(most));
    workgroup_sizes_[kernel] = size;
}

void OpServices::read(const Array& a, void* dst, size_t bytes) {
    download(resources_, scheduler_, a.storage(), dst, bytes);
}

bool OpServices::pinned(const void* p, size_t bytes) const {
    VkBuffer buffer;
    VkDeviceSize offset;
    return resources_.allocator().find_host(p, bytes, buffer, offset);
}

std::optional<uint64_t> OpServices::version(const Array& a) const {
    std::lock_guard guard(mutex_);
    const Storage& s = *a.storage();
    // Host writes in place leave no trace in the serials, nor do the
    // application's own writes to its buffer (wrap_buffer).
    if (!s.placed() || s.external || (s.mapped && resources_.options().direct_host_access)) return std::nullopt;
    if (s.last_serial >= scheduler_.pending_serial()) return std::nullopt;
    return s.last_serial;
}

void OpServices::finish_submitted(const Array& a) {
    std::lock_guard guard(mutex_);
    scheduler_.wait(a.storage()->last_serial);
}

OpServices::Mark OpServices::mark() const { return {scheduler_.pending_serial()}; }

bool OpServices::submitted_since(const Array& a, Mark m) const {
    std::lock_guard guard(mutex_);
    const uint64_t last = a.storage()->last_serial;
    return last >= m.at && last < scheduler_.pending_serial();
}

std::vector<TraceEvent> OpServices::events_of(const std::function<void()>& work) {
    scheduler_.sync();
    const uint64_t before = profiler_.profile().event_count();
    work();
    scheduler_.sync();
    return profiler_.profile().events_since(before);
}

} // namespace kiln::detail

namespace kiln::ops {

detail::OpServices& services(const Array& a) { return a.state().services; }
detail::OpServices& services(const Context& c) { return c.state().services; }

} // namespace kiln::ops
