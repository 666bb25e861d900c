#include "vk/host_import.hpp"

#include <cstdint>

#include "vk/check.hpp"
#include "vk/device.hpp"

namespace kiln::vk {

HostImport::HostImport(const Device& device, const void* ptr, size_t bytes) : device_(device) {
    if (!device.enabled().external_memory_host)
        throw Unsupported("host memory import (VK_EXT_external_memory_host) is not available");
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT hp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &hp;
    vkGetPhysicalDeviceProperties2(device.physical(), &p2);
    const uintptr_t align = hp.minImportedHostPointerAlignment;
    // The import covers whole pages; those around the caller's range are
    // mapped (they hold part of it) and kiln never writes outside the range.
    uintptr_t begin = reinterpret_cast<uintptr_t>(ptr) / align * align;
    uintptr_t end = (reinterpret_cast<uintptr_t>(ptr) + bytes + align - 1) / align * align;
    offset_ = reinterpret_cast<uintptr_t>(ptr) - begin;
    VkDeviceSize size = end - begin;
    void* base = reinterpret_cast<void*>(begin);
    VkDevice dev = device.handle();

    VkMemoryHostPointerPropertiesEXT props{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    check(device.host_pointer_properties_fn(dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, base, &props),
          "vkGetMemoryHostPointerPropertiesEXT");

    VkExternalMemoryBufferCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.pNext = &ext;
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    check(vkCreateBuffer(dev, &bci, nullptr, &buffer_), "vkCreateBuffer (host import)");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, buffer_, &req);
    uint32_t bits = props.memoryTypeBits & req.memoryTypeBits;
    uint32_t type = 0;
    while (type < 32 && !(bits & (1u << type))) ++type;
    if (type == 32) {
        vkDestroyBuffer(dev, buffer_, nullptr);
        throw Unsupported("no memory type accepts this host pointer for import");
    }
    VkImportMemoryHostPointerInfoEXT import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
    import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    import.pHostPointer = base;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &import;
    ai.allocationSize = size;
    ai.memoryTypeIndex = type;
    VkResult r = vkAllocateMemory(dev, &ai, nullptr, &memory_);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(dev, buffer_, nullptr);
        check(r, "vkAllocateMemory (host import)");
    }
    r = vkBindBufferMemory(dev, buffer_, memory_, 0);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(dev, buffer_, nullptr);
        vkFreeMemory(dev, memory_, nullptr);
        check(r, "vkBindBufferMemory (host import)");
    }
}

HostImport::~HostImport() {
    vkDestroyBuffer(device_.handle(), buffer_, nullptr);
    vkFreeMemory(device_.handle(), memory_, nullptr);
}

} // namespace kiln::vk
