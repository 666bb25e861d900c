#pragma once
// Small helpers of the viewer's own Vulkan code (device_setup.cpp and
// display.cpp): VkResult checks that throw kiln::VulkanError, GLFW's last
// error, what the loader and a device offer, and the callback of the
// validation messenger.
#include <vulkan/vulkan.h>

#include <string>
#include <vector>

namespace viewer {

/// The name of a VkResult, for messages ("VkResult" for the rarer ones).
const char* result_name(VkResult r);

/// Throws kiln::VulkanError "WHAT failed: NAME (CODE)" unless r is VK_SUCCESS.
void check(VkResult r, const char* what);

/// GLFW's description of its last error; empty when there was none.
std::string glfw_error();

/// Whether the Vulkan loader offers the instance layer `name`.
bool has_layer(const char* name);

/// The names of the extensions a device offers.
std::vector<std::string> device_extensions(VkPhysicalDevice pd);

bool contains(const std::vector<std::string>& v, const char* s);

/// `s` in ASCII lower case.
std::string lower(std::string s);

/// The validation messenger's callback: prints the message on stderr and
/// counts it (validation_message_count(), display.hpp).
VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT type,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);

}  // namespace viewer
