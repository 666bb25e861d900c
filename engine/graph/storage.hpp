#pragma once
// The memory behind an Array. Memory is placed lazily, when the graph that
// first uses it is compiled: an intermediate that no Array handle refers to
// by then is transient and may share memory with others whose lifetimes do
// not overlap.
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>

#include "vk/allocator.hpp"

namespace kiln::detail {

class RetireQueue;

struct Storage {
    /// `retired` takes the memory when the storage goes (outlived: Arrays
    /// and graphs hold the context).
    Storage(RetireQueue* retired, uint64_t bytes) : retired(retired), bytes(bytes) {}
    /// Hands the memory to the retire queue, freed once the last submission using it is done.
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    /// Gives the storage persistent memory from `allocator` now. The caller
    /// holds the context's lock.
    void place(vk::Allocator& allocator);
    bool placed() const { return buffer != VK_NULL_HANDLE; }
    /// Placed in a transient arena (a submission's or a recorded graph's):
    /// its buffer is the arena's and changes when the graph is compiled again.
    bool transient() const { return placed() && !alloc && !external; }

    RetireQueue* retired;
    uint64_t bytes;
    vk::UniqueAllocation alloc;   // persistent memory, when not transient
    VkBuffer buffer = VK_NULL_HANDLE;  // where the bytes are, once placed
    VkDeviceSize offset = 0;
    std::byte* mapped = nullptr;  // host address when the memory is host-visible
    /// An application's buffer range (kiln::wrap_buffer): placed from the
    /// start, never freed by kiln, never mapped (pushes and pulls stage),
    /// and written by the application behind kiln's back.
    bool external = false;
    bool coherent = true;
    std::atomic<int> handles{0};  // live Array handles
    uint64_t last_serial = 0;     // last submission that used the memory
};

} // namespace kiln::detail
