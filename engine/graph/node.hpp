#pragma once
// Nodes of a graph: compute dispatches with declared reads and writes,
// buffer copies (transfers between staging and arrays), and external
// recorders (a library that records its own commands, VkFFT).
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "graph/storage.hpp"
#include "vk/image.hpp"

namespace kiln::detail {

enum class Access : uint8_t { read = 1, write = 2, read_write = 3 };

inline bool writes(Access a) { return static_cast<uint8_t>(a) & 2; }

/// A byte range of an array's storage, or of a raw buffer kiln manages
/// outside arrays (staging slices, imported host memory).
struct BufferRef {
    std::shared_ptr<Storage> storage;
    VkBuffer raw = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    VkDeviceSize range = 0;  // 0: to the end of the storage
    Access access = Access::read;

    const void* key() const { return storage ? static_cast<const void*>(storage.get()) : raw; }
};

/// An image a dispatch writes as a storage image or samples (a combined
/// image sampler). The node holds it until the work is done.
struct ImageRef {
    std::shared_ptr<const vk::Image> image;
    Access access = Access::read;
    bool sampled = false;

    const void* key() const { return image.get(); }
};

struct Dispatch {
    std::string name;                     // kernel name: pipeline cache and profile
    std::span<const uint32_t> spirv;
    std::shared_ptr<const void> code_owner;  // keeps run-time compiled code alive
    std::string entry = "main";
    std::vector<BufferRef> buffers;       // bindings 0..n-1 of set 0
    std::vector<ImageRef> images;         // bindings n, n+1, ... after the buffers
    std::vector<std::byte> push;
    std::vector<uint32_t> spec;           // spec constants; ids 0-2 are the workgroup size
    std::array<uint32_t, 3> groups{1, 1, 1};
};

struct Copy {
    std::string name;
    BufferRef src, dst;
    VkDeviceSize size = 0;
};

/// Commands a library records itself (VkFFT's dispatches and the barriers
/// between them). Its buffers take part in hazard tracking as a dispatch's
/// do; `record` gets them resolved, in order, and must touch no other
/// kiln memory, use only `stages`, and leave nothing bound that kiln relies
/// on (the recorder rebinds its pipeline after it).
struct External {
    std::string name;
    std::vector<BufferRef> buffers;
    std::function<void(VkCommandBuffer, std::span<const VkDescriptorBufferInfo>)> record;
    VkPipelineStageFlags2 stages = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
};

struct Node {
    std::variant<Dispatch, Copy, External> op;
    /// Every resource the node touches, buffers and images, as (key, access):
    /// what hazard tracking needs.
    template <typename F> void for_each_resource(F&& f) const {
        for_each_buffer([&](const BufferRef& b) { f(b.key(), b.access); });
        if (auto* d = std::get_if<Dispatch>(&op))
            for (auto& i : d->images) f(i.key(), i.access);
    }
    const std::string& name() const {
        return std::visit([](auto& n) -> const std::string& { return n.name; }, op);
    }
    template <typename F> void for_each_buffer(F&& f) const {
        if (auto* d = std::get_if<Dispatch>(&op))
            for (auto& b : d->buffers) f(b);
        else if (auto* e = std::get_if<External>(&op))
            for (auto& b : e->buffers) f(b);
        else {
            auto& c = std::get<Copy>(op);
            f(c.src);
            f(c.dst);
        }
    }
};

/// Recorded work, not yet compiled.
struct GraphIR {
    std::vector<Node> nodes;
    bool empty() const { return nodes.empty(); }
};

} // namespace kiln::detail
