#pragma once
// What kiln knows about a Vulkan device: the capability summary `kiln devices`
// prints, and the memory statistics of a context.
#include <cstdint>
#include <string>
#include <vector>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// One memory heap of a device.
struct HeapInfo {
    uint64_t size = 0;
    bool device_local = false;
};

/// Capability summary of a physical device.
struct DeviceInfo {
    uint32_t index = 0;          ///< position in the enumeration (what --device N picks)
    std::string name;
    std::string type;            ///< "discrete", "integrated", "virtual", "cpu", "other"
    std::string driver;          ///< driver name and info string
    std::string api_version;     ///< e.g. "1.3.230"
    uint32_t vendor_id = 0, device_id = 0, driver_version = 0;
    std::vector<HeapInfo> heaps;
    uint64_t max_storage_buffer_range = 0;
    uint64_t max_memory_allocation = 0;
    uint32_t max_shared_memory = 0;  ///< maxComputeSharedMemorySize, bytes
    uint32_t max_workgroup_invocations = 0;
    uint32_t max_workgroup_count[3] = {0, 0, 0};
    uint32_t subgroup_size = 0;
    uint32_t min_storage_offset_alignment = 0;
    bool timestamps = false;         ///< a compute queue with timestampValidBits > 0
    float timestamp_period_ns = 0;
    bool float64 = false, int64 = false, float16 = false, int16 = false, int8 = false;
    bool storage8 = false, storage16 = false;
    bool push_descriptors = false, memory_budget = false, external_memory_host = false;
    bool host_query_reset = false;  ///< timestamp queries reset by the host, not in the command buffer
    bool dedicated_compute_queue = false;  ///< a compute queue family without graphics
    /// Float controls the device supports (Vulkan 1.2): kernels keep float32
    /// / float64 denormals (DenormPreserve) and NaN, infinities and signed
    /// zeros (SignedZeroInfNanPreserve) where these are true; kiln asks for
    /// both in every kernel it runs on such a device.
    bool denorm_preserve32 = false, denorm_preserve64 = false;
    bool nan_preserve32 = false, nan_preserve64 = false;
    bool vulkan13 = false;

    /// Multi-line human-readable summary (what `kiln devices` prints).
    std::string summary() const;
};

/// Memory use of one heap as kiln sees it, and as the driver reports it.
struct HeapStats {
    uint64_t size = 0;
    uint64_t in_use = 0;      ///< bytes of live kiln arrays and staging in this heap
    uint64_t peak = 0;        ///< high-water mark of in_use
    uint64_t reserved = 0;    ///< bytes taken from Vulkan in blocks
    uint32_t blocks = 0;
    uint64_t budget = 0;      ///< VK_EXT_memory_budget heapBudget (0 if unavailable)
    uint64_t driver_usage = 0;///< VK_EXT_memory_budget heapUsage, whole process (0 if unavailable)
};

struct MemoryStats {
    std::vector<HeapStats> heaps;
    uint64_t in_use = 0, peak = 0, reserved = 0;
    uint32_t blocks = 0, allocations = 0;
    bool budget_available = false;
    std::string str() const;
};

} // namespace kiln
#pragma GCC visibility pop
