// Records a compiled plan into a command buffer: barriers at level
// boundaries, timestamps around nodes, descriptors pushed per dispatch.
#include "graph/record.hpp"

#include "graph/device_resources.hpp"
#include "graph/submission.hpp"
#include "vk/check.hpp"

namespace kiln::detail {

using vk::check;

namespace {

VkDescriptorBufferInfo resolve(const BufferRef& b) {
    if (b.storage) {
        const Storage& s = *b.storage;
        VkDeviceSize range = b.range ? b.range : ((s.bytes - b.offset) + 3) / 4 * 4;
        return {s.buffer, s.offset + b.offset, range};
    }
    return {b.raw, b.offset, b.range};
}

// Stages a node runs in: compute for dispatches, copy for transfers, what
// an external recorder declares.
VkPipelineStageFlags2 stage_of(const Node& n) {
    if (auto* e = std::get_if<External>(&n.op)) return e->stages;
    return std::holds_alternative<Dispatch>(n.op) ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT
                                                  : VK_PIPELINE_STAGE_2_COPY_BIT;
}

// One barrier between two levels, scoped to the stages on either side: a
// compute-to-compute barrier is cheaper on some GPUs than ALL_COMMANDS.
// Consecutive barriers chain (each one's first scope holds the previous
// one's second), so dependencies across several levels hold too.
void level_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src, VkPipelineStageFlags2 dst) {
    auto writes = [](VkPipelineStageFlags2 s) {
        VkAccessFlags2 a = 0;
        if (s & VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT) a |= VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
        if (s & VK_PIPELINE_STAGE_2_COPY_BIT) a |= VK_ACCESS_2_TRANSFER_WRITE_BIT;
        return a;
    };
    auto reads = [](VkPipelineStageFlags2 s) {
        VkAccessFlags2 a = 0;
        // Images are kept in GENERAL layout (vk/image.hpp): a global barrier
        // orders them too, their samples being sampled reads.
        if (s & VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT)
            a |= VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                 VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
        if (s & VK_PIPELINE_STAGE_2_COPY_BIT) a |= VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT;
        return a;
    };
    VkMemoryBarrier2 mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    mb.srcStageMask = src;
    mb.srcAccessMask = writes(src);
    mb.dstStageMask = dst;
    mb.dstAccessMask = reads(dst);
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &mb;
    vkCmdPipelineBarrier2(cmd, &dep);
}

// What the given stages wrote becomes visible to host reads.
void level_barrier_to_host(VkCommandBuffer cmd, VkPipelineStageFlags2 src) {
    VkMemoryBarrier2 mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    mb.srcStageMask = src;
    mb.srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT;
    mb.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
    mb.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &mb;
    vkCmdPipelineBarrier2(cmd, &dep);
}


// Step 1: where descriptors cannot be pushed, one pool with a set for each
// dispatch of the graph.
void make_descriptor_pool(DeviceResources& res, Submission& sub, const GraphIR& g) {
    uint32_t sets = 0, buffers = 0, storage_images = 0, sampled_images = 0;
    for (auto& n : g.nodes)
        if (auto* d = std::get_if<Dispatch>(&n.op)) {
            ++sets;
            buffers += static_cast<uint32_t>(d->buffers.size());
            for (auto& i : d->images) ++(i.sampled ? sampled_images : storage_images);
        }
    if (!sets) return;
    VkDevice dev = res.device().handle();
    VkDescriptorPoolSize sizes[3] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(buffers, 1u)},
                                     {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, storage_images},
                                     {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, sampled_images}};
    VkDescriptorPoolSize used[3];
    uint32_t kinds = 0;
    for (auto& z : sizes)
        if (z.descriptorCount) used[kinds++] = z;
    VkDescriptorPoolCreateInfo pci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pci.maxSets = sets;
    pci.poolSizeCount = kinds;
    pci.pPoolSizes = used;
    check(vkCreateDescriptorPool(dev, &pci, nullptr, sub.descriptors.put(dev)), "vkCreateDescriptorPool");
}

// The compute and copy work of earlier submissions comes first (host
// writes are made visible by the submission itself). Scoped to those
// stages: an ALL_COMMANDS barrier here cost about 3 us per submission on an
// H200.
constexpr VkPipelineStageFlags2 work_stages = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT;

// Step 2: begins the command buffer, resets the queries and writes the
// submission's first timestamp, then the barrier after earlier work.
void begin(DeviceResources& res, Submission& sub, VkCommandBuffer cmd) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = sub.reusable ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    if (sub.queries.pool) {
        // From the host where the device allows (the pool is not in use
        // now): a reset in the command buffer cost about 2 us of GPU time
        // per submission on an H200. A graph's re-launch resets it again
        // (Scheduler::submit_recorded).
        if (res.device().enabled().host_query_reset)
            vkResetQueryPool(res.device().handle(), sub.queries.pool, 0, sub.query_count);
        else
            vkCmdResetQueryPool(cmd, sub.queries.pool, 0, sub.query_count);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, sub.queries.pool, 0);
    }
    level_barrier(cmd, work_stages, work_stages);
}

// Step 3: one dispatch (its pipeline bound unless it already is, its
// descriptors pushed or written into a set from the submission's pool, its
// push constants).
class DispatchRecorder {
public:
    DispatchRecorder(DeviceResources& res, Submission& sub, VkCommandBuffer cmd)
        : res_(res), sub_(sub), cmd_(cmd), push_descriptors_(res.device().enabled().push_descriptors) {}

    void record(const Dispatch& d) {
        vk::PipelineKey key{d.name, d.spirv, static_cast<uint32_t>(d.buffers.size()),
                            static_cast<uint32_t>(d.push.size()), d.spec, d.entry};
        for (auto& i : d.images) key.images += i.sampled ? 't' : 's';
        const vk::Pipeline& p = res_.pipelines().get(key);
        if (p.pipeline != bound_) {
            vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
            bound_ = p.pipeline;
        }
        if (!d.buffers.empty() || !d.images.empty()) bind_buffers(d, p);
        if (!d.push.empty())
            vkCmdPushConstants(cmd_, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(d.push.size()),
                               d.push.data());
        vkCmdDispatch(cmd_, d.groups[0], d.groups[1], d.groups[2]);
    }

    /// An external recorder binds pipelines of its own.
    void record(const External& e) {
        infos_.resize(e.buffers.size());
        for (size_t i = 0; i < e.buffers.size(); ++i) infos_[i] = resolve(e.buffers[i]);
        e.record(cmd_, infos_);
        bound_ = VK_NULL_HANDLE;
    }

private:
    void bind_buffers(const Dispatch& d, const vk::Pipeline& p) {
        VkDevice dev = res_.device().handle();
        const size_t nb = d.buffers.size(), total = nb + d.images.size();
        infos_.resize(nb);
        image_infos_.resize(d.images.size());
        writes_.resize(total);
        VkDescriptorSet set = VK_NULL_HANDLE;
        if (!push_descriptors_) {
            VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
            ai.descriptorPool = sub_.descriptors;
            ai.descriptorSetCount = 1;
            ai.pSetLayouts = &p.set_layout;
            check(vkAllocateDescriptorSets(dev, &ai, &set), "vkAllocateDescriptorSets");
        }
        for (size_t i = 0; i < d.buffers.size(); ++i) {
            infos_[i] = resolve(d.buffers[i]);
            writes_[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes_[i].dstSet = set;
            writes_[i].dstBinding = static_cast<uint32_t>(i);
            writes_[i].descriptorCount = 1;
            writes_[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes_[i].pBufferInfo = &infos_[i];
        }
        for (size_t k = 0; k < d.images.size(); ++k) {
            const ImageRef& r = d.images[k];
            image_infos_[k] = {r.sampled ? r.image->sampler() : VK_NULL_HANDLE, r.image->view(),
                               VK_IMAGE_LAYOUT_GENERAL};
            VkWriteDescriptorSet& w = writes_[nb + k];
            w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w.dstSet = set;
            w.dstBinding = static_cast<uint32_t>(nb + k);
            w.descriptorCount = 1;
            w.descriptorType =
                r.sampled ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
            w.pImageInfo = &image_infos_[k];
        }
        if (push_descriptors_) {
            res_.device().push_descriptor_fn(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0,
                                             static_cast<uint32_t>(writes_.size()), writes_.data());
        } else {
            vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes_.size()), writes_.data(), 0, nullptr);
            vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0, nullptr);
        }
    }

    DeviceResources& res_;
    Submission& sub_;
    VkCommandBuffer cmd_;
    const bool push_descriptors_;
    VkPipeline bound_ = VK_NULL_HANDLE;
    std::vector<VkDescriptorBufferInfo> infos_;
    std::vector<VkDescriptorImageInfo> image_infos_;
    std::vector<VkWriteDescriptorSet> writes_;
};

// Step 3 for copies.
void record_copy(VkCommandBuffer cmd, const Copy& c) {
    VkDescriptorBufferInfo src = resolve(c.src), dst = resolve(c.dst);
    VkBufferCopy region{src.offset, dst.offset, c.size};
    vkCmdCopyBuffer(cmd, src.buffer, dst.buffer, 1, &region);
}

// Step 4: results the host reads become visible to it once the fence
// signals: what copies wrote (pulls into staging, pinned or imported
// memory), and, where arrays live in mapped memory that pulls read in
// place, anything; and a submission that signals the application's
// semaphores (the application may read on the host once they are
// signalled). Other submissions need no host barrier (about 1.3 us on an
// H200). Then the last timestamp, and the end of the command buffer.
void end(DeviceResources& res, Submission& sub, VkCommandBuffer cmd, VkPipelineStageFlags2 used) {
    if ((used & VK_PIPELINE_STAGE_2_COPY_BIT) || res.host_reads_in_place() || sub.host_barrier)
        level_barrier_to_host(cmd, work_stages);
    if (sub.queries.pool) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, sub.queries.pool, 1);
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
}

} // namespace

void record_commands(DeviceResources& res, Submission& sub, const GraphIR& g, const Plan& plan) {
    if (!res.device().enabled().push_descriptors) make_descriptor_pool(res, sub, g);
    VkCommandBuffer cmd = sub.cmd;
    begin(res, sub, cmd);

    // Stages of each level, for scoped barriers between levels.
    std::vector<VkPipelineStageFlags2> level_stages(plan.levels, 0);
    for (uint32_t i : plan.order) level_stages[plan.level[i]] |= stage_of(g.nodes[i]);

    DispatchRecorder dispatches(res, sub, cmd);
    for (size_t pos = 0; pos < plan.order.size(); ++pos) {
        const Node& node = g.nodes[plan.order[pos]];
        if (plan.barrier_before[pos]) {
            uint32_t l = plan.level[plan.order[pos]];
            level_barrier(cmd, level_stages[l - 1], level_stages[l]);
        }
        if (plan.time_nodes)
            vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, sub.queries.pool,
                                 2 + 2 * static_cast<uint32_t>(pos));
        if (auto* d = std::get_if<Dispatch>(&node.op))
            dispatches.record(*d);
        else if (auto* e = std::get_if<External>(&node.op))
            dispatches.record(*e);
        else
            record_copy(cmd, std::get<Copy>(node.op));
        if (plan.time_nodes)
            vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, sub.queries.pool,
                                 3 + 2 * static_cast<uint32_t>(pos));
    }
    VkPipelineStageFlags2 used = 0;
    for (VkPipelineStageFlags2 st : level_stages) used |= st;
    end(res, sub, cmd, used);
}

} // namespace kiln::detail
