#pragma once
// An application's own Vulkan objects, for the tests of a device adopted
// through ExternalDevice (tests/graph/test_external.cpp, test_interop.cpp):
// its instance (validation with synchronization validation, messages
// collected), device and queue, buffers in memory it allocates, timeline
// semaphores and its own submissions on the queue it shares with kiln.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kiln/context.hpp"

namespace kiln::test {


/// The features an AppDevice is created with.
struct AppFeatures {
    bool synchronization2 = true, timeline_semaphore = true;
    bool float64 = false;  ///< shaderFloat64 (the device must have it)
};

class AppDevice {
public:
    /// Messages of the application's validation go to `sink` (kiln's work on
    /// the adopted device included), which outlives the device.
    explicit AppDevice(std::vector<std::string>& sink, AppFeatures f = {});
    /// Destroys the device last: validation reports any object left on it.
    ~AppDevice();
    AppDevice(const AppDevice&) = delete;
    AppDevice& operator=(const AppDevice&) = delete;

    /// The handles for kiln, saying the features the device was created with.
    ExternalDevice external() const;
    /// A memory type among `bits` with the properties `want`.
    uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags want) const;

    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t family = 0;

private:
    AppFeatures features_;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties memory_{};
};

/// A buffer bound to memory the application allocates (mapped when the
/// properties ask for host-visible memory).
struct AppBuffer {
    AppBuffer(const AppDevice& app, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags props);
    ~AppBuffer();
    AppBuffer(const AppBuffer&) = delete;
    AppBuffer& operator=(const AppBuffer&) = delete;
    template <typename T> T* as() const { return static_cast<T*>(mapped); }

    VkDevice device;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;
};

/// A timeline semaphore of the application's device, starting at 0.
struct Timeline {
    explicit Timeline(const AppDevice& app);
    ~Timeline();
    Timeline(const Timeline&) = delete;
    Timeline& operator=(const Timeline&) = delete;

    uint64_t value() const;
    /// Sets the semaphore to `v` from the host (vkSignalSemaphore).
    void signal(uint64_t v) const;
    /// Waits on the host until the semaphore reaches `v`: VK_SUCCESS, or VK_TIMEOUT.
    VkResult host_wait(uint64_t v, uint64_t timeout_ns = 20'000'000'000ull) const;

    VkDevice device;
    VkSemaphore semaphore = VK_NULL_HANDLE;
};

/// The application's own submissions on the queue it shares with kiln.
class AppCommands {
public:
    explicit AppCommands(const AppDevice& app);
    ~AppCommands();
    AppCommands(const AppCommands&) = delete;
    AppCommands& operator=(const AppCommands&) = delete;

    /// Submits the commands `record` writes, after `t` reaches `wait` (in
    /// stages `wait_stage`), then sets `t` to `signal`.
    void submit(const std::function<void(VkCommandBuffer)>& record, const Timeline& t, uint64_t wait,
                VkPipelineStageFlags2 wait_stage, uint64_t signal);

private:
    const AppDevice& app_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
};

/// Runs `body` with an application's device made with `features`, then
/// fails the test on any message the application's validation reported
/// (kiln's use of the device included, and objects left on it when it goes).
void with_app_device(const std::function<void(AppDevice&)>& body, AppFeatures features = {});

} // namespace kiln::test
