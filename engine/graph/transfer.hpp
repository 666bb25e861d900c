#pragma once
// Moving bytes between the caller's memory and an array's storage.
#include <cstddef>
#include <memory>

namespace kiln::detail {

class DeviceResources;
class Scheduler;
struct Storage;

/// Copies `bytes` from host memory into the storage before returning (the
/// data may be freed afterwards). Uses, in order of preference: a direct
/// write into host-visible memory, an import of the caller's pages, the
/// staging ring in chunks (recorded into the pending graph, in order).
void upload(DeviceResources& res, Scheduler& sched, const std::shared_ptr<Storage>& s, const void* src, size_t bytes);

/// Waits for the work producing the storage and copies it into host memory.
void download(DeviceResources& res, Scheduler& sched, const std::shared_ptr<Storage>& s, void* dst, size_t bytes);

} // namespace kiln::detail
