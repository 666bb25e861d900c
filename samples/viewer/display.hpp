#pragma once
// The viewer's own Vulkan: a GLFW window, the instance and device the
// application creates (device_setup.hpp) and kiln adopts, the swapchain,
// and each frame's submission: the picture kiln wrote into one of its
// buffers is copied into an image, the control panel (Dear ImGui) drawn
// over it, and the result blitted into the swapchain image and presented.
// Timeline semaphores order it against kiln's work: kiln signals
// `kiln_timeline` when frame f's picture is written, the frame's submission
// waits for it and signals `app_timeline` f once it has read the picture,
// and kiln's next submission waits for that before it writes the picture
// again.
#include <vulkan/vulkan.h>  // before GLFW, which then declares its Vulkan functions
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/context.hpp"
#include "kiln/interop.hpp"

struct ImDrawData;

namespace viewer {

struct DisplayOptions {
    int width = 1280, height = 800;
    std::string title = "kiln viewer";
    /// Khronos validation with synchronization validation on the viewer's
    /// instance; messages are counted (validation_message_count()).
    bool validation = false;
    /// Device index or part of its name; empty: a discrete GPU, else any.
    std::string device;
    /// FIFO presentation (the display's rate); off: immediate or mailbox where offered.
    bool vsync = true;
};

/// Validation messages (warnings and errors) the viewer's messenger has seen.
uint64_t validation_message_count();

class Display {
public:
    /// Opens the window and creates instance, surface, device and swapchain.
    /// Throws kiln::Error with what is missing: no display, no Vulkan surface
    /// support, no device that can present to the window or that has
    /// Vulkan 1.3, timeline semaphores, synchronization2 and float64.
    explicit Display(const DisplayOptions& options);
    ~Display();
    Display(const Display&) = delete;
    Display& operator=(const Display&) = delete;

    GLFWwindow* window() const { return window_; }
    /// The handles and enabled features, for kiln::Context(ExternalDevice).
    kiln::ExternalDevice external() const;
    std::string device_name() const;

    /// Sets up Dear ImGui (GLFW and Vulkan backends) on this window.
    void init_imgui();

    /// The swapchain's size (the picture's).
    uint32_t width() const { return extent_.width; }
    uint32_t height() const { return extent_.height; }
    /// Recreates the swapchain when the window's size changed; true if it did.
    /// Call only when no frame is in flight (after wait_frame).
    bool update_size();

    VkSemaphore kiln_timeline() const { return kiln_timeline_; }
    VkSemaphore app_timeline() const { return app_timeline_; }
    /// Waits on the host until frame `frame`'s submission has finished.
    void wait_frame(uint64_t frame);

    /// Frame `frame`: waits (on the device) for kiln_timeline to reach it,
    /// copies `picture` (width() x height() RGBA8 texels) into the window,
    /// draws `ui` over it, presents, and signals app_timeline = frame. With
    /// `capture`, also reads the presented image back (captured()).
    void present(uint64_t frame, const kiln::BufferView& picture, ImDrawData* ui, bool capture);
    /// The last captured frame as RGB, row by row (waits for it).
    struct Picture {
        int width = 0, height = 0;
        std::vector<uint8_t> rgb;
        /// Read from the presented image itself; false: from the image
        /// blitted into it (where the window's images cannot be read).
        bool from_window = false;
    };
    Picture captured();

private:
    void create_swapchain();
    void destroy_swapchain();
    void create_canvas();
    void destroy_canvas();
    /// Records an image layout transition and dependency into cmd_ (a memory
    /// dependency alone for VK_NULL_HANDLE).
    /// Records the read-back of frame `frame` (the window's image `target`,
    /// in TRANSFER_DST layout, is left in TRANSFER_SRC where it is read).
    void record_capture(uint64_t frame, VkImage target);
    void barrier(VkImage image, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkImageLayout from,
                 VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access, VkImageLayout to);

    DisplayOptions options_;
    GLFWwindow* window_ = nullptr;
    bool glfw_ = false;
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkSurfaceKHR surface_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t family_ = 0;
    kiln::ExternalDevice external_;  // the handles above and the features enabled (device_setup.hpp)

    VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
    VkFormat format_ = VK_FORMAT_UNDEFINED;
    VkExtent2D extent_{};
    uint32_t min_images_ = 2;
    bool swapchain_readable_ = false;  // TRANSFER_SRC usage: the screenshot reads the presented image
    std::vector<VkImage> images_;
    std::vector<VkSemaphore> rendered_;  // per swapchain image, waited by the present
    bool out_of_date_ = false;

    // The picture kiln wrote, with the panel drawn over it, before the blit.
    VkImage canvas_ = VK_NULL_HANDLE;
    VkDeviceMemory canvas_memory_ = VK_NULL_HANDLE;
    VkImageView canvas_view_ = VK_NULL_HANDLE;
    VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
    VkRenderPass render_pass_ = VK_NULL_HANDLE;
    VkFormat canvas_format_ = VK_FORMAT_R8G8B8A8_UNORM;

    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    VkSemaphore acquired_ = VK_NULL_HANDLE;
    VkSemaphore kiln_timeline_ = VK_NULL_HANDLE, app_timeline_ = VK_NULL_HANDLE;
    uint64_t submitted_ = 0;  // the last frame submitted

    // Read-back of a captured frame.
    VkBuffer readback_ = VK_NULL_HANDLE;
    VkDeviceMemory readback_memory_ = VK_NULL_HANDLE;
    VkDeviceSize readback_size_ = 0;
    bool readback_coherent_ = false;
    uint64_t captured_frame_ = 0;
    VkExtent2D captured_extent_{};
    bool captured_bgra_ = false;
    bool captured_window_ = false;

    VkDescriptorPool imgui_pool_ = VK_NULL_HANDLE;
    bool imgui_ = false;
};

}  // namespace viewer
