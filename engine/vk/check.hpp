#pragma once
// Every VkResult is checked: a failure throws kiln::VulkanError naming the call.
#include <vulkan/vulkan.h>

#include <string>

#include "kiln/error.hpp"

namespace kiln::vk {

/// Name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY", ...).
const char* result_name(VkResult r);

/// Throws VulkanError("<what> failed: <result>") unless r is VK_SUCCESS.
inline void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS)
        throw VulkanError(std::string(what) + " failed: " + result_name(r), static_cast<int>(r));
}

} // namespace kiln::vk
