#pragma once
// The Vulkan instance and device the viewer creates and kiln adopts
// (display.cpp puts the window's surface, swapchain and drawing on them).
#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>

#include "kiln/context.hpp"

namespace viewer {

/// A Vulkan 1.3 instance with the surface extensions GLFW needs. With
/// `validation`: the Khronos layer with synchronization validation, and a
/// messenger (returned in `messenger`) counting its messages from the
/// instance's creation on. Throws kiln::Error saying what is missing.
VkInstance create_instance(bool validation, VkDebugUtilsMessengerEXT& messenger);

/// Destroys what create_instance made (the messenger may be VK_NULL_HANDLE).
void destroy_instance(VkInstance instance, VkDebugUtilsMessengerEXT messenger);

struct PickedDevice {
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    uint32_t family = 0;  ///< graphics, compute and presentation to the surface
};

/// The device to run on: among those `wanted` names (index or part of the
/// name; empty: all), the first discrete GPU, else integrated, else any, with
/// Vulkan 1.3, synchronization2, timeline semaphores, float64,
/// VK_KHR_swapchain and a queue family that presents to `surface`. Throws
/// kiln::Error naming each device and why it was refused.
PickedDevice pick_device(VkInstance instance, VkSurfaceKHR surface, const std::string& wanted);

/// Creates the device with one queue of `family`, VK_KHR_swapchain and what
/// kiln's own device would enable where the device has it, with
/// synchronization2 and timeline semaphores. Returns its handles and
/// enabled features for kiln::Context (no queue lock: one thread submits).
kiln::ExternalDevice create_device(VkInstance instance, VkPhysicalDevice physical, uint32_t family);

std::string device_name(VkPhysicalDevice physical);

/// A memory type among `bits` with the properties `want`; throws kiln::Error if none.
uint32_t memory_type(VkPhysicalDevice physical, uint32_t bits, VkMemoryPropertyFlags want);

}  // namespace viewer
