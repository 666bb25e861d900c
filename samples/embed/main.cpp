// kiln-embed: kiln inside an application that has its own Vulkan device, with
// no window (README, "Embedding kiln"). The application (app_vulkan.hpp)
// creates a Vulkan 1.3 device with synchronization2 and timeline semaphores
// and hands it to kiln. Each frame kiln blurs a synthetic sky, and the
// application copies the result from kiln's buffer into its own image on its
// own command buffer, ordered by one timeline semaphore: kiln sets it to 2f-1
// once frame f's blur is written, the copy waits for that and sets 2f, and
// kiln's next submission waits for 2f. The last frame's image is read back,
// written as a PNG and compared with kiln's CPU reference.
#include <kiln/kiln.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "app_vulkan.hpp"

namespace {

// An image barrier between copies: layout `from` -> `to`, after `src` accesses, before `dst` ones.
void copy_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags2 src,
                  VkAccessFlags2 dst) {
    VkImageMemoryBarrier2 b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2, nullptr, VK_PIPELINE_STAGE_2_COPY_BIT, src,
                            VK_PIPELINE_STAGE_2_COPY_BIT, dst, from, to, VK_QUEUE_FAMILY_IGNORED,
                            VK_QUEUE_FAMILY_IGNORED, image, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    VkDependencyInfo d{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    d.imageMemoryBarrierCount = 1;
    d.pImageMemoryBarriers = &b;
    vkCmdPipelineBarrier2(cmd, &d);
}

// The application's own work on kiln's result, on its command buffer: once
// the timeline reaches `wait`, kiln's buffer into its image and the image into
// the read-back buffer; then the timeline is set to `signal`.
void copy_to_image(const AppVulkan& app, const kiln::BufferView& view, uint64_t wait, uint64_t signal) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    check(vkBeginCommandBuffer(app.cmd, &bi), "vkBeginCommandBuffer");
    copy_barrier(app.cmd, app.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                 VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferImageCopy region{};
    region.bufferOffset = view.offset;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {app.size, app.size, 1};
    vkCmdCopyBufferToImage(app.cmd, view.buffer, app.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    copy_barrier(app.cmd, app.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                 VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    region.bufferOffset = 0;
    vkCmdCopyImageToBuffer(app.cmd, app.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, app.readback, 1, &region);
    VkMemoryBarrier2 to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, nullptr, VK_PIPELINE_STAGE_2_COPY_BIT,
                             VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT};
    VkDependencyInfo d{VK_STRUCTURE_TYPE_DEPENDENCY_INFO, nullptr, 0, 1, &to_host};
    vkCmdPipelineBarrier2(app.cmd, &d);
    check(vkEndCommandBuffer(app.cmd), "vkEndCommandBuffer");

    VkSemaphoreSubmitInfo after{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, nullptr, app.timeline, wait,
                                VK_PIPELINE_STAGE_2_COPY_BIT};
    VkSemaphoreSubmitInfo then{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, nullptr, app.timeline, signal,
                               VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkCommandBufferSubmitInfo commands{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, nullptr, app.cmd};
    VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2, nullptr, 0, 1, &after, 1, &commands, 1, &then};
    check(vkQueueSubmit2(app.queue, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit2");
}

}  // namespace

int main(int argc, char** argv) {
    std::string out = "embed.png";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-o" && i + 1 < argc) {
            out = argv[++i];
            continue;
        }
        std::printf("usage: kiln-embed [-o FILE]\n"
                    "kiln in an application with its own Vulkan device: three frames of a Gaussian blur of a\n"
                    "256 x 256 synthetic sky, each copied from kiln's buffer into the application's image; the\n"
                    "last is read back, written as a gray PNG (-o, default embed.png) and compared with kiln's\n"
                    "CPU reference. KILN_VALIDATION=1: Khronos validation, with synchronization validation, on\n"
                    "the application's instance. Exit: 0 it matches, 1 a mismatch or an error, 2 usage,\n"
                    "3 validation messages.\n");
        return arg == "--help" || arg == "-h" ? 0 : 2;
    }
    try {
        const uint32_t size = 256;
        const uint64_t frames = 3;
        kiln::SkyParams params;
        params.size = size;
        const kiln::HostArray sky = kiln::synthetic_sky(params);
        kiln::HostArray got(sky.shape, kiln::DType::float32);
        bool validation = false;
        int messages = 0;
        {
            AppVulkan app(size);
            kiln::ExternalDevice ed{app.instance, app.physical, app.device, app.queue, app.family};
            ed.synchronization2 = ed.timeline_semaphore = true;  // enabled by AppVulkan: kiln requires both
            kiln::Context ctx(ed);
            std::printf("embed: kiln %s on %s\n", KILN_VERSION, ctx.device().name.c_str());
            const kiln::Array input = kiln::Array::from_host(ctx, sky);
            for (uint64_t frame = 1; frame <= frames; ++frame) {
                kiln::Array blurred = kiln::gaussian_blur(input, 1.0 + frame);  // recorded, not run yet
                const kiln::BufferView view = kiln::buffer_of(blurred);        // the VkBuffer behind it
                kiln::signal_after_next_submission(ctx, app.timeline, 2 * frame - 1);
                ctx.flush();                   // submits; the timeline reaches 2f-1 once the blur is written
                app.host_wait(2 * frame - 2);  // the last copy has finished: its command buffer is free
                copy_to_image(app, view, 2 * frame - 1, 2 * frame);
                kiln::wait_before_next_submission(ctx, app.timeline, 2 * frame);
            }  // `blurred` goes: kiln may reuse its memory, in a submission that waits for the copy
            app.host_wait(2 * frames);
            std::memcpy(got.data(), app.pixels, got.nbytes());
            validation = app.validation;
            messages = app.validation_messages;
        }  // the Context goes before the device it adopted
        kiln::io::write_png_gray(out, got, kiln::io::Stretch::log);

        const double sigma = 1.0 + frames;
        const kiln::HostArray want = kiln::cpu::gaussian_filter(sky, {0, sigma, sigma});
        double peak = 0;
        for (float v : sky.as<float>()) peak = std::max(peak, std::fabs(double(v)));
        size_t mismatches = 0;
        for (size_t i = 0; i < want.size(); ++i) {
            const double g = got.as<float>()[i], w = want.as<float>()[i];
            if (!(std::fabs(g - w) <= 1e-5 * std::fabs(w) + 1e-6 * peak) && mismatches++ < 5)
                std::printf("embed: pixel (%zu, %zu) is %.9g, the CPU reference %.9g\n", i / size, i % size, g, w);
        }
        std::printf("embed: %d frames; the last (sigma %g), read back from the application's image, differs from "
                    "the CPU reference in %zu of %zu pixels; wrote %s\n",
                    int(frames), sigma, mismatches, want.size(), out.c_str());
        if (validation)
            std::printf("embed: validation (Khronos, with synchronization validation): %d messages\n", messages);
        return mismatches ? 1 : messages ? 3 : 0;
    } catch (const kiln::Error& e) {
        std::fprintf(stderr, "embed: %s\n", e.what());
        return 1;
    }
}
