#include "vk/allocator.hpp"

#include <algorithm>
#include <string>

#include "vk/check.hpp"
#include "vk/device.hpp"

namespace kiln::vk {

VkBuffer Allocation::buffer() const { return block->buffer; }
std::byte* Allocation::mapped() const { return block->mapped ? block->mapped + offset : nullptr; }
bool Allocation::host_coherent() const { return block->coherent; }
VkDeviceMemory Allocation::memory() const { return block->memory; }

namespace {

VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

std::string mib(uint64_t b) { return std::to_string(b >> 20) + " MiB"; }

} // namespace

Allocator::Allocator(const Device& device, VkDeviceSize block_size, bool map_device)
    : device_(device), block_size_(block_size), map_device_(map_device) {
    // 256 bytes covers every device's minStorageBufferOffsetAlignment and
    // keeps arrays on cache-line and DMA-friendly boundaries.
    alignment_ = std::max<VkDeviceSize>(256, device.info().min_storage_offset_alignment);
    uint32_t heaps = device.memory_properties().memoryHeapCount;
    heap_in_use_.assign(heaps, 0);
    heap_peak_.assign(heaps, 0);
    if (device.info().max_memory_allocation)
        block_size_ = std::min<VkDeviceSize>(block_size_, device.info().max_memory_allocation);
    // A block is bindable whole (VkFFT binds its buffers from their start).
    if (device.info().max_storage_buffer_range)
        block_size_ = std::min<VkDeviceSize>(block_size_, device.info().max_storage_buffer_range);
}

Allocator::~Allocator() {
    for (auto& b : blocks_) {
        vkDestroyBuffer(device_.handle(), b->buffer, nullptr);
        vkFreeMemory(device_.handle(), b->memory, nullptr);
    }
}

uint32_t Allocator::pick_type(MemoryUsage usage) const {
    const auto& mp = device_.memory_properties();
    auto score = [&](uint32_t i) -> int {
        VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
        if (usage == MemoryUsage::device) {
            if (!(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) return 1;
            // Plain device-local memory first: host-visible device memory is
            // often a small BAR window.
            return (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) ? 2 : 3;
        }
        const VkMemoryPropertyFlags need =
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        if ((f & need) != need) return 0;
        int s = 2;
        if (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) s += 2;  // host reads of pulled data
        if (!(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) s += 1;
        return s;
    };
    int best = -1, best_score = 0;
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i) {
        int s = score(i);
        if (s > best_score) best = static_cast<int>(i), best_score = s;
    }
    if (best < 0) throw Unsupported("device '" + device_.info().name + "' has no host-visible coherent memory");
    return static_cast<uint32_t>(best);
}

bool Allocator::device_memory_mappable() const {
    return map_device_ && device_.memory_properties().memoryTypes[pick_type(MemoryUsage::device)].propertyFlags &
           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
}

Block* Allocator::new_block(VkDeviceSize size, MemoryUsage usage) {
    VkDevice dev = device_.handle();
    auto block = std::make_unique<Block>();
    block->serial = ++blocks_made_;
    block->size = size;
    block->usage = usage;

    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vkCreateBuffer(dev, &bci, nullptr, &block->buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, block->buffer, &req);

    uint32_t type = pick_type(usage);
    if (!(req.memoryTypeBits & (1u << type))) {
        vkDestroyBuffer(dev, block->buffer, nullptr);
        throw Unsupported("no memory type of device '" + device_.info().name + "' suits storage buffers");
    }
    const auto& mt = device_.memory_properties().memoryTypes[type];
    block->type = type;
    block->heap = mt.heapIndex;
    block->coherent = mt.propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    VkResult r = vkAllocateMemory(dev, &ai, nullptr, &block->memory);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(dev, block->buffer, nullptr);
        uint64_t in_use = heap_in_use_[block->heap];
        throw VulkanError("out of device memory: could not take " + mib(size) + " from heap " +
                              std::to_string(block->heap) + " of '" + device_.info().name + "' (" +
                              mib(in_use) + " in use by kiln, heap size " +
                              mib(device_.memory_properties().memoryHeaps[block->heap].size) +
                              "): " + result_name(r),
                          r);
    }
    check(vkBindBufferMemory(dev, block->buffer, block->memory, 0), "vkBindBufferMemory");
    if ((mt.propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && (usage != MemoryUsage::device || map_device_)) {
        void* p = nullptr;
        check(vkMapMemory(dev, block->memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
        block->mapped = static_cast<std::byte*>(p);
    }
    block->free[0] = size;
    blocks_.push_back(std::move(block));
    return blocks_.back().get();
}

Allocation Allocator::allocate(VkDeviceSize size, MemoryUsage usage) {
    if (size == 0) size = 1;
    size = align_up(size, alignment_);
    std::lock_guard lock(mutex_);
    auto take = [&](Block* b) -> Allocation {
        for (auto it = b->free.begin(); it != b->free.end(); ++it) {
            if (it->second < size) continue;  // ranges start aligned: sizes are multiples
            Allocation a{b, it->first, size};
            VkDeviceSize rest = it->second - size, next = it->first + size;
            b->free.erase(it);
            if (rest) b->free[next] = rest;
            return a;
        }
        return {};
    };
    Allocation a;
    const bool oversize = size > block_size_ / 2;
    for (auto& b : blocks_) {
        // A kept empty block of its own size (see release_block) serves
        // only a request of at least half its size, so a small array does
        // not pin it.
        if (b->size != block_size_ && b->used == 0 && (!oversize || size < b->size / 2)) continue;
        if (b->usage == usage && (a = take(b.get()))) break;
    }
    if (!a) {
        VkDeviceSize bs = oversize ? size : block_size_;
        Block* b = nullptr;
        try {
            b = new_block(bs, usage);
        } catch (const VulkanError&) {
            // Out of memory: give the driver back the empty blocks kept for
            // reuse, then try once more.
            release_empty_blocks();
            b = new_block(bs, usage);
        }
        a = take(b);
    }
    a.block->used += size;
    uint64_t& heap = heap_in_use_[a.block->heap];
    heap += size;
    heap_peak_[a.block->heap] = std::max(heap_peak_[a.block->heap], heap);
    uint64_t total = 0;
    for (auto h : heap_in_use_) total += h;
    peak_ = std::max(peak_, total);
    ++allocations_;
    return a;
}

void Allocator::free(const Allocation& a) {
    if (!a) return;
    std::lock_guard lock(mutex_);
    Block* b = a.block;
    auto& fl = b->free;
    VkDeviceSize off = a.offset, size = a.size;
    auto next = fl.lower_bound(off);
    if (next != fl.end() && off + size == next->first) {
        size += next->second;
        next = fl.erase(next);
    }
    if (next != fl.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == off) {
            off = prev->first;
            size += prev->second;
            fl.erase(prev);
        }
    }
    fl[off] = size;
    b->used -= a.size;
    heap_in_use_[b->heap] -= a.size;
    --allocations_;
    if (b->used == 0) release_block(b);
}

void Allocator::release_block(Block* b) {
    // Keep one empty block per usage so a loop that frees and re-allocates
    // does not go back to the driver every time; and likewise the latest
    // empty block of an array larger than half a block (a new one of 1 GiB
    // costs about 20 ms on an H100: the driver clears it). Kept blocks are
    // given back when an allocation would otherwise fail.
    if (b->size == block_size_) {
        size_t empty_same = 0;
        for (auto& o : blocks_)
            if (o->usage == b->usage && o->used == 0 && o->size == block_size_) ++empty_same;
        if (empty_same <= 1) return;
    } else {
        for (auto& o : blocks_) {
            if (o.get() != b && o->usage == b->usage && o->used == 0 && o->size != block_size_) {
                destroy_block(o.get());
                break;
            }
        }
        return;
    }
    destroy_block(b);
}

void Allocator::destroy_block(Block* b) {
    vkDestroyBuffer(device_.handle(), b->buffer, nullptr);
    vkFreeMemory(device_.handle(), b->memory, nullptr);
    blocks_.erase(std::find_if(blocks_.begin(), blocks_.end(), [&](auto& p) { return p.get() == b; }));
}

void Allocator::release_empty_blocks() {
    for (size_t i = blocks_.size(); i-- > 0;)
        if (blocks_[i]->used == 0) destroy_block(blocks_[i].get());
}

bool Allocator::find_host(const void* p, size_t bytes, VkBuffer& buffer, VkDeviceSize& offset) const {
    std::lock_guard lock(mutex_);
    auto* b = static_cast<const std::byte*>(p);
    for (auto& blk : blocks_) {
        if (blk->usage != MemoryUsage::host || !blk->mapped) continue;
        if (b >= blk->mapped && b + bytes <= blk->mapped + blk->size) {
            buffer = blk->buffer;
            offset = static_cast<VkDeviceSize>(b - blk->mapped);
            return true;
        }
    }
    return false;
}

MemoryStats Allocator::stats() const {
    std::lock_guard lock(mutex_);
    MemoryStats s;
    const auto& mp = device_.memory_properties();
    s.heaps.resize(mp.memoryHeapCount);
    for (uint32_t i = 0; i < mp.memoryHeapCount; ++i) {
        s.heaps[i].size = mp.memoryHeaps[i].size;
        s.heaps[i].in_use = heap_in_use_[i];
        s.heaps[i].peak = heap_peak_[i];
    }
    for (auto& b : blocks_) {
        s.heaps[b->heap].reserved += b->size;
        s.heaps[b->heap].blocks++;
        s.reserved += b->size;
        s.blocks++;
    }
    for (auto h : heap_in_use_) s.in_use += h;
    s.peak = peak_;
    s.allocations = allocations_;
    if (device_.enabled().memory_budget) {
        VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
        VkPhysicalDeviceMemoryProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
        p2.pNext = &budget;
        vkGetPhysicalDeviceMemoryProperties2(device_.physical(), &p2);
        for (uint32_t i = 0; i < mp.memoryHeapCount; ++i) {
            s.heaps[i].budget = budget.heapBudget[i];
            s.heaps[i].driver_usage = budget.heapUsage[i];
        }
        s.budget_available = true;
    }
    return s;
}

} // namespace kiln::vk
