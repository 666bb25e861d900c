#include "display.hpp"

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_vulkan.h>

#include <algorithm>

#include "device_setup.hpp"
#include "kiln/error.hpp"
#include "vk_util.hpp"

namespace viewer {

namespace {

constexpr uint64_t wait_limit_ns = 120ull * 1000000000ull;  // two minutes, as kiln's default

}  // namespace

Display::Display(const DisplayOptions& options) : options_(options) {
    glfwSetErrorCallback(nullptr);
    if (!glfwInit()) {
        std::string why = glfw_error();
        const char* display = std::getenv("DISPLAY");
        const char* wayland = std::getenv("WAYLAND_DISPLAY");
        throw kiln::Error("cannot open a window: " + (why.empty() ? "glfwInit failed" : why) +
                          ((!display || !*display) && (!wayland || !*wayland)
                               ? " (no display: DISPLAY is not set; run on a desktop or under "
                                 "`xvfb-run -a`)"
                               : ""));
    }
    glfw_ = true;
    if (!glfwVulkanSupported())
        throw kiln::Error("no Vulkan surface support: GLFW found no Vulkan loader offering the window-system "
                          "surface extensions (install libvulkan1 and a Vulkan driver, e.g. mesa-vulkan-drivers)");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    window_ = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
    if (!window_) throw kiln::Error("cannot create a window: " + glfw_error());  // GLFW says why
    glfwSetWindowSizeLimits(window_, 480, 240, GLFW_DONT_CARE, GLFW_DONT_CARE);
    instance_ = create_instance(options_.validation, messenger_);
    VkResult r = glfwCreateWindowSurface(instance_, window_, nullptr, &surface_);
    if (r != VK_SUCCESS)
        throw kiln::VulkanError("no Vulkan surface support for the window: glfwCreateWindowSurface failed (" +
                                    std::string(result_name(r)) + ") " + glfw_error(),
                                r);
    const PickedDevice picked = pick_device(instance_, surface_, options_.device);
    physical_ = picked.physical;
    family_ = picked.family;
    external_ = create_device(instance_, physical_, family_);
    device_ = external_.device;
    queue_ = external_.queue;

    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = family_;
    check(vkCreateCommandPool(device_, &pci, nullptr, &pool_), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = pool_;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(device_, &cai, &cmd_), "vkAllocateCommandBuffers");
    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    check(vkCreateSemaphore(device_, &sci, nullptr, &acquired_), "vkCreateSemaphore");
    VkSemaphoreTypeCreateInfo tci{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    tci.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    tci.initialValue = 0;
    sci.pNext = &tci;
    check(vkCreateSemaphore(device_, &sci, nullptr, &kiln_timeline_), "vkCreateSemaphore");
    check(vkCreateSemaphore(device_, &sci, nullptr, &app_timeline_), "vkCreateSemaphore");

    // The canvas and the panel's render pass: the pass loads what the copy
    // put there, and leaves the image ready for the blit.
    VkAttachmentDescription color{};
    color.format = canvas_format_;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color.initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    color.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &ref;
    VkSubpassDependency deps[2]{};
    deps[0].srcSubpass = VK_SUBPASS_EXTERNAL;
    deps[0].dstSubpass = 0;
    deps[0].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    deps[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    deps[0].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    deps[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    deps[1].srcSubpass = 0;
    deps[1].dstSubpass = VK_SUBPASS_EXTERNAL;
    deps[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    deps[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    deps[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    deps[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    VkRenderPassCreateInfo rpi{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rpi.attachmentCount = 1;
    rpi.pAttachments = &color;
    rpi.subpassCount = 1;
    rpi.pSubpasses = &sub;
    rpi.dependencyCount = 2;
    rpi.pDependencies = deps;
    check(vkCreateRenderPass(device_, &rpi, nullptr, &render_pass_), "vkCreateRenderPass");

    create_swapchain();
    create_canvas();
}

Display::~Display() {
    if (device_) {
        vkDeviceWaitIdle(device_);
        if (imgui_) {
            ImGui_ImplVulkan_Shutdown();
            ImGui_ImplGlfw_Shutdown();
            ImGui::DestroyContext();
        }
        if (imgui_pool_) vkDestroyDescriptorPool(device_, imgui_pool_, nullptr);
        destroy_canvas();
        destroy_swapchain();
        if (readback_) vkDestroyBuffer(device_, readback_, nullptr);
        if (readback_memory_) vkFreeMemory(device_, readback_memory_, nullptr);
        if (render_pass_) vkDestroyRenderPass(device_, render_pass_, nullptr);
        for (VkSemaphore s : {acquired_, kiln_timeline_, app_timeline_})
            if (s) vkDestroySemaphore(device_, s, nullptr);
        if (pool_) vkDestroyCommandPool(device_, pool_, nullptr);
        vkDestroyDevice(device_, nullptr);
    }
    if (surface_) vkDestroySurfaceKHR(instance_, surface_, nullptr);
    destroy_instance(instance_, messenger_);
    if (window_) glfwDestroyWindow(window_);
    if (glfw_) glfwTerminate();
}

kiln::ExternalDevice Display::external() const { return external_; }

std::string Display::device_name() const { return viewer::device_name(physical_); }

void Display::create_swapchain() {
    VkSurfaceCapabilitiesKHR caps;
    check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical_, surface_, &caps),
          "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window_, &fw, &fh);
    extent_ = caps.currentExtent;
    if (extent_.width == 0xFFFFFFFFu) extent_ = {static_cast<uint32_t>(fw), static_cast<uint32_t>(fh)};
    extent_.width = std::clamp(extent_.width, caps.minImageExtent.width, caps.maxImageExtent.width);
    extent_.height = std::clamp(extent_.height, caps.minImageExtent.height, caps.maxImageExtent.height);

    uint32_t n = 0;
    vkGetPhysicalDeviceSurfaceFormatsKHR(physical_, surface_, &n, nullptr);
    std::vector<VkSurfaceFormatKHR> formats(n);
    vkGetPhysicalDeviceSurfaceFormatsKHR(physical_, surface_, &n, formats.data());
    if (formats.empty()) throw kiln::Error("no Vulkan surface support: the window offers no image format");
    // The picture's bytes are display values: an UNORM format shows them as they are.
    VkSurfaceFormatKHR chosen = formats[0];
    for (VkFormat want : {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM})
        for (auto& f : formats)
            if (f.format == want && chosen.format != VK_FORMAT_B8G8R8A8_UNORM &&
                chosen.format != VK_FORMAT_R8G8B8A8_UNORM)
                chosen = f;
    format_ = chosen.format;
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
        throw kiln::Error("no Vulkan surface support the viewer can use: the window's images cannot be copied into "
                          "(no VK_IMAGE_USAGE_TRANSFER_DST_BIT)");
    swapchain_readable_ = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;

    uint32_t nm = 0;
    vkGetPhysicalDeviceSurfacePresentModesKHR(physical_, surface_, &nm, nullptr);
    std::vector<VkPresentModeKHR> modes(nm);
    vkGetPhysicalDeviceSurfacePresentModesKHR(physical_, surface_, &nm, modes.data());
    VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
    if (!options_.vsync)
        for (VkPresentModeKHR want : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR})
            if (mode == VK_PRESENT_MODE_FIFO_KHR && std::find(modes.begin(), modes.end(), want) != modes.end())
                mode = want;

    min_images_ = std::max(2u, caps.minImageCount);
    uint32_t count = std::max(min_images_, caps.minImageCount + 1);
    if (caps.maxImageCount) count = std::min(count, caps.maxImageCount);

    VkSwapchainCreateInfoKHR ci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    ci.surface = surface_;
    ci.minImageCount = count;
    ci.imageFormat = chosen.format;
    ci.imageColorSpace = chosen.colorSpace;
    ci.imageExtent = extent_;
    ci.imageArrayLayers = 1;
    ci.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | (swapchain_readable_ ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0);
    ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.preTransform = caps.currentTransform;
    ci.compositeAlpha = (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
                            ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
                            : static_cast<VkCompositeAlphaFlagBitsKHR>(caps.supportedCompositeAlpha &
                                                                       -caps.supportedCompositeAlpha);
    ci.presentMode = mode;
    ci.clipped = VK_TRUE;
    check(vkCreateSwapchainKHR(device_, &ci, nullptr, &swapchain_), "vkCreateSwapchainKHR");
    uint32_t ni = 0;
    vkGetSwapchainImagesKHR(device_, swapchain_, &ni, nullptr);
    images_.resize(ni);
    vkGetSwapchainImagesKHR(device_, swapchain_, &ni, images_.data());
    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    rendered_.resize(ni);
    for (auto& s : rendered_) check(vkCreateSemaphore(device_, &sci, nullptr, &s), "vkCreateSemaphore");
    out_of_date_ = false;
}

void Display::destroy_swapchain() {
    for (auto s : rendered_) vkDestroySemaphore(device_, s, nullptr);
    rendered_.clear();
    images_.clear();
    if (swapchain_) vkDestroySwapchainKHR(device_, swapchain_, nullptr);
    swapchain_ = VK_NULL_HANDLE;
}

void Display::create_canvas() {
    VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = canvas_format_;
    ii.extent = {extent_.width, extent_.height, 1};
    ii.mipLevels = 1;
    ii.arrayLayers = 1;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.tiling = VK_IMAGE_TILING_OPTIMAL;
    ii.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    check(vkCreateImage(device_, &ii, nullptr, &canvas_), "vkCreateImage");
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device_, canvas_, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memory_type(physical_, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    check(vkAllocateMemory(device_, &ai, nullptr, &canvas_memory_), "vkAllocateMemory");
    check(vkBindImageMemory(device_, canvas_, canvas_memory_, 0), "vkBindImageMemory");
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = canvas_;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = canvas_format_;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    check(vkCreateImageView(device_, &vi, nullptr, &canvas_view_), "vkCreateImageView");
    VkFramebufferCreateInfo fi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fi.renderPass = render_pass_;
    fi.attachmentCount = 1;
    fi.pAttachments = &canvas_view_;
    fi.width = extent_.width;
    fi.height = extent_.height;
    fi.layers = 1;
    check(vkCreateFramebuffer(device_, &fi, nullptr, &framebuffer_), "vkCreateFramebuffer");
}

void Display::destroy_canvas() {
    if (framebuffer_) vkDestroyFramebuffer(device_, framebuffer_, nullptr);
    if (canvas_view_) vkDestroyImageView(device_, canvas_view_, nullptr);
    if (canvas_) vkDestroyImage(device_, canvas_, nullptr);
    if (canvas_memory_) vkFreeMemory(device_, canvas_memory_, nullptr);
    framebuffer_ = VK_NULL_HANDLE;
    canvas_view_ = VK_NULL_HANDLE;
    canvas_ = VK_NULL_HANDLE;
    canvas_memory_ = VK_NULL_HANDLE;
}

void Display::init_imgui() {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 4};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    dpi.maxSets = 4;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &size;
    check(vkCreateDescriptorPool(device_, &dpi, nullptr, &imgui_pool_), "vkCreateDescriptorPool");

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini beside the user's files
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForVulkan(window_, true);
    ImGui_ImplVulkan_InitInfo info{};
    info.Instance = instance_;
    info.PhysicalDevice = physical_;
    info.Device = device_;
    info.QueueFamily = family_;
    info.Queue = queue_;
    info.DescriptorPool = imgui_pool_;
    info.Subpass = 0;
    info.MinImageCount = min_images_;
    info.ImageCount = static_cast<uint32_t>(images_.size());
    info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    ImGui_ImplVulkan_Init(&info, render_pass_);
    imgui_ = true;

    // The font texture, uploaded once.
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
    ImGui_ImplVulkan_CreateFontsTexture(cmd_);
    check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
    VkCommandBufferSubmitInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cbi.commandBuffer = cmd_;
    VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    si.commandBufferInfoCount = 1;
    si.pCommandBufferInfos = &cbi;
    check(vkQueueSubmit2(queue_, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit2");
    check(vkQueueWaitIdle(queue_), "vkQueueWaitIdle");
    ImGui_ImplVulkan_DestroyFontUploadObjects();
}

bool Display::update_size() {
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window_, &fw, &fh);
    while (fw == 0 || fh == 0) {  // minimized: wait until there is something to draw
        glfwWaitEvents();
        if (glfwWindowShouldClose(window_)) return false;
        glfwGetFramebufferSize(window_, &fw, &fh);
    }
    if (!out_of_date_ && static_cast<uint32_t>(fw) == extent_.width && static_cast<uint32_t>(fh) == extent_.height)
        return false;
    check(vkQueueWaitIdle(queue_), "vkQueueWaitIdle");
    destroy_canvas();
    destroy_swapchain();
    create_swapchain();
    create_canvas();
    if (imgui_) ImGui_ImplVulkan_SetMinImageCount(min_images_);
    return true;
}

void Display::wait_frame(uint64_t frame) {
    if (frame == 0) return;
    VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wi.semaphoreCount = 1;
    wi.pSemaphores = &app_timeline_;
    wi.pValues = &frame;
    VkResult r = vkWaitSemaphores(device_, &wi, wait_limit_ns);
    if (r == VK_TIMEOUT)
        throw kiln::VulkanError("frame " + std::to_string(frame) + " did not finish within two minutes", r);
    check(r, "vkWaitSemaphores");
}

void Display::barrier(VkImage image, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkImageLayout from,
                      VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access, VkImageLayout to) {
    VkImageMemoryBarrier2 b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    b.srcStageMask = src_stage;
    b.srcAccessMask = src_access;
    b.dstStageMask = dst_stage;
    b.dstAccessMask = dst_access;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    // Without an image: the same stages and accesses as a memory barrier.
    VkMemoryBarrier2 m{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    m.srcStageMask = src_stage;
    m.srcAccessMask = src_access;
    m.dstStageMask = dst_stage;
    m.dstAccessMask = dst_access;
    VkDependencyInfo d{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    if (image) {
        d.imageMemoryBarrierCount = 1;
        d.pImageMemoryBarriers = &b;
    } else {
        d.memoryBarrierCount = 1;
        d.pMemoryBarriers = &m;
    }
    vkCmdPipelineBarrier2(cmd_, &d);
}

void Display::record_capture(uint64_t frame, VkImage target) {
    const VkDeviceSize bytes = VkDeviceSize(extent_.width) * extent_.height * 4;
    if (bytes > readback_size_) {
        if (readback_) vkDestroyBuffer(device_, readback_, nullptr);
        if (readback_memory_) vkFreeMemory(device_, readback_memory_, nullptr);
        readback_ = VK_NULL_HANDLE;
        readback_memory_ = VK_NULL_HANDLE;
        VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bci.size = bytes;
        bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        check(vkCreateBuffer(device_, &bci, nullptr, &readback_), "vkCreateBuffer");
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device_, readback_, &req);
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = memory_type(physical_, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
        VkPhysicalDeviceMemoryProperties m;
        vkGetPhysicalDeviceMemoryProperties(physical_, &m);
        readback_coherent_ =
            (m.memoryTypes[ai.memoryTypeIndex].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
        check(vkAllocateMemory(device_, &ai, nullptr, &readback_memory_), "vkAllocateMemory");
        check(vkBindBufferMemory(device_, readback_, readback_memory_, 0), "vkBindBufferMemory");
        readback_size_ = bytes;
    }
    // The presented image itself where the window allows reading it, else
    // the canvas it was blitted from (the same pixels).
    VkImage source = canvas_;
    captured_bgra_ = false;
    captured_window_ = swapchain_readable_;
    if (swapchain_readable_) {
        barrier(target, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        source = target;
        captured_bgra_ = format_ == VK_FORMAT_B8G8R8A8_UNORM || format_ == VK_FORMAT_B8G8R8A8_SRGB;
    }
    VkBufferImageCopy back{};
    back.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    back.imageExtent = {extent_.width, extent_.height, 1};
    vkCmdCopyImageToBuffer(cmd_, source, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_, 1, &back);
    barrier(VK_NULL_HANDLE, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
            VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT,
            VK_IMAGE_LAYOUT_UNDEFINED);
    captured_frame_ = frame;
    captured_extent_ = extent_;
}

void Display::present(uint64_t frame, const kiln::BufferView& picture, ImDrawData* ui, bool capture) {
    const uint64_t texels = uint64_t(extent_.width) * extent_.height;
    if (picture.size < texels * 4)
        throw kiln::InvalidArgument("the picture holds " + std::to_string(picture.size) + " bytes; the window needs " +
                                    std::to_string(texels * 4));
    uint32_t index = 0;
    VkResult acquired = vkAcquireNextImageKHR(device_, swapchain_, wait_limit_ns, acquired_, VK_NULL_HANDLE, &index);
    const bool have_image = acquired == VK_SUCCESS || acquired == VK_SUBOPTIMAL_KHR;
    if (acquired == VK_SUBOPTIMAL_KHR || acquired == VK_ERROR_OUT_OF_DATE_KHR) out_of_date_ = true;
    if (!have_image && acquired != VK_ERROR_OUT_OF_DATE_KHR) check(acquired, "vkAcquireNextImageKHR");

    VkSemaphoreSubmitInfo waits[2]{};
    waits[0].sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO;
    waits[0].semaphore = kiln_timeline_;
    waits[0].value = frame;
    waits[0].stageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
    waits[1].sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO;
    waits[1].semaphore = acquired_;
    waits[1].stageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
    VkSemaphoreSubmitInfo signals[2]{};
    signals[0].sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO;
    signals[0].semaphore = app_timeline_;
    signals[0].value = frame;
    signals[0].stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    signals[1].sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO;
    signals[1].stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;

    VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    si.pWaitSemaphoreInfos = waits;
    si.pSignalSemaphoreInfos = signals;
    if (!have_image) {
        // The window changed under us: nothing to draw into this time, but
        // the frame's order still holds (kiln's picture read, or not, before
        // kiln writes the next one).
        si.waitSemaphoreInfoCount = 1;
        si.signalSemaphoreInfoCount = 1;
        check(vkQueueSubmit2(queue_, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit2");
        submitted_ = frame;
        return;
    }
    VkImage target = images_[index];
    signals[1].semaphore = rendered_[index];

    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer");
    check(vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
    // 1. kiln's picture into the canvas. The previous frame's blit read the
    // canvas: that read comes before this write.
    barrier(canvas_, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED,
            VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkBufferImageCopy copy{};
    copy.bufferOffset = picture.offset;
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {extent_.width, extent_.height, 1};
    vkCmdCopyBufferToImage(cmd_, picture.buffer, canvas_, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);

    // 2. The panel over it.
    barrier(canvas_, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
            VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
            VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    VkRenderPassBeginInfo rbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rbi.renderPass = render_pass_;
    rbi.framebuffer = framebuffer_;
    rbi.renderArea = {{0, 0}, extent_};
    vkCmdBeginRenderPass(cmd_, &rbi, VK_SUBPASS_CONTENTS_INLINE);
    if (ui && imgui_) ImGui_ImplVulkan_RenderDrawData(ui, cmd_);
    vkCmdEndRenderPass(cmd_);  // the canvas is now TRANSFER_SRC_OPTIMAL

    // 3. Into the window's image (the acquire is waited at the transfer stage).
    barrier(target, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED,
            VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkImageBlit blit{};
    blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    blit.dstSubresource = blit.srcSubresource;
    blit.srcOffsets[1] = {static_cast<int32_t>(extent_.width), static_cast<int32_t>(extent_.height), 1};
    blit.dstOffsets[1] = blit.srcOffsets[1];
    vkCmdBlitImage(cmd_, canvas_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   1, &blit, VK_FILTER_NEAREST);

    // 4. The screenshot, then the image to the presentation engine.
    if (capture) record_capture(frame, target);
    const bool read_target = capture && swapchain_readable_;
    barrier(target, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, read_target ? 0 : VK_ACCESS_2_TRANSFER_WRITE_BIT,
            read_target ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
            VK_PIPELINE_STAGE_2_NONE, 0, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
    check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");

    VkCommandBufferSubmitInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cbi.commandBuffer = cmd_;
    si.commandBufferInfoCount = 1;
    si.pCommandBufferInfos = &cbi;
    si.waitSemaphoreInfoCount = 2;
    si.signalSemaphoreInfoCount = 2;
    check(vkQueueSubmit2(queue_, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit2");
    submitted_ = frame;

    VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    pi.waitSemaphoreCount = 1;
    pi.pWaitSemaphores = &rendered_[index];
    pi.swapchainCount = 1;
    pi.pSwapchains = &swapchain_;
    pi.pImageIndices = &index;
    VkResult r = vkQueuePresentKHR(queue_, &pi);
    if (r == VK_SUBOPTIMAL_KHR || r == VK_ERROR_OUT_OF_DATE_KHR)
        out_of_date_ = true;
    else
        check(r, "vkQueuePresentKHR");
}

Display::Picture Display::captured() {
    if (!captured_frame_) throw kiln::Error("no frame was captured");
    wait_frame(captured_frame_);
    void* p = nullptr;
    check(vkMapMemory(device_, readback_memory_, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
    if (!readback_coherent_) {
        VkMappedMemoryRange mr{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
        mr.memory = readback_memory_;
        mr.size = VK_WHOLE_SIZE;
        vkInvalidateMappedMemoryRanges(device_, 1, &mr);
    }
    const size_t texels = size_t(captured_extent_.width) * captured_extent_.height;
    const auto* src = static_cast<const uint8_t*>(p);
    Picture out;
    out.width = static_cast<int>(captured_extent_.width);
    out.height = static_cast<int>(captured_extent_.height);
    out.from_window = captured_window_;
    std::vector<uint8_t>& rgb = out.rgb;
    rgb.resize(texels * 3);
    for (size_t i = 0; i < texels; ++i) {
        rgb[3 * i + 0] = src[4 * i + (captured_bgra_ ? 2 : 0)];
        rgb[3 * i + 1] = src[4 * i + 1];
        rgb[3 * i + 2] = src[4 * i + (captured_bgra_ ? 0 : 2)];
    }
    vkUnmapMemory(device_, readback_memory_);
    return out;
}

}  // namespace viewer
