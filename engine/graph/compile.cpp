#include "graph/compile.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace kiln::detail {

void schedule(const GraphIR& g, Plan& plan) {
    // Hazards are tracked per resource: a reader waits for the last writer,
    // a writer for the last writer and every reader since.
    struct Track {
        int last_write = -1;
        int max_read = -1;
    };
    std::unordered_map<const void*, Track> tracks;
    const size_t n = g.nodes.size();
    plan.level.assign(n, 0);
    uint32_t max_level = 0;
    for (size_t i = 0; i < n; ++i) {
        int level = 0;
        g.nodes[i].for_each_resource([&](const void* key, Access access) {
            auto it = tracks.find(key);
            if (it == tracks.end()) return;
            const Track& t = it->second;
            level = std::max(level, t.last_write + 1);
            if (writes(access)) level = std::max(level, t.max_read + 1);
        });
        g.nodes[i].for_each_resource([&](const void* key, Access access) {
            Track& t = tracks[key];
            if (writes(access)) {
                t.last_write = std::max(t.last_write, level);
                t.max_read = -1;
            } else {
                t.max_read = std::max(t.max_read, level);
            }
        });
        plan.level[i] = static_cast<uint32_t>(level);
        max_level = std::max<uint32_t>(max_level, level);
    }
    plan.levels = n ? max_level + 1 : 0;
    plan.order.resize(n);
    std::iota(plan.order.begin(), plan.order.end(), 0u);
    std::stable_sort(plan.order.begin(), plan.order.end(),
                     [&](uint32_t a, uint32_t b) { return plan.level[a] < plan.level[b]; });
}

void plan_lifetimes(const GraphIR& g, Plan& plan, VkDeviceSize alignment) {
    struct Life {
        std::shared_ptr<Storage> s;
        uint32_t first = UINT32_MAX, last = 0;
    };
    std::vector<Life> lives;
    std::unordered_map<Storage*, size_t> index;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        g.nodes[i].for_each_buffer([&](const BufferRef& b) {
            if (!b.storage || b.storage->placed()) return;
            auto [it, fresh] = index.try_emplace(b.storage.get(), lives.size());
            if (fresh) lives.push_back({b.storage});
            Life& l = lives[it->second];
            l.first = std::min(l.first, plan.level[i]);
            l.last = std::max(l.last, plan.level[i]);
        });
    }
    std::vector<Life*> transient;
    for (auto& l : lives) {
        if (l.s->handles.load() == 0)
            transient.push_back(&l);
        else
            plan.to_allocate.push_back(l.s);
    }
    // Greedy placement, largest first: each goes at the lowest offset that
    // no storage with an overlapping lifetime occupies. Storages only share
    // bytes when one's last level precedes the other's first, and a barrier
    // separates every two levels.
    std::stable_sort(transient.begin(), transient.end(),
                     [](Life* a, Life* b) { return a->s->bytes > b->s->bytes; });
    struct Placed {
        VkDeviceSize begin, end;
        uint32_t first, last;
    };
    std::vector<Placed> placed;
    for (Life* l : transient) {
        VkDeviceSize size = (l->s->bytes + alignment - 1) / alignment * alignment;
        std::vector<std::pair<VkDeviceSize, VkDeviceSize>> busy;
        for (auto& p : placed)
            if (!(p.last < l->first || l->last < p.first)) busy.push_back({p.begin, p.end});
        std::sort(busy.begin(), busy.end());
        VkDeviceSize offset = 0;
        for (auto& [b, e] : busy) {
            if (offset + size <= b) break;
            offset = std::max(offset, e);
        }
        placed.push_back({offset, offset + size, l->first, l->last});
        plan.transients.push_back(l->s);
        plan.transient_offsets.push_back(offset);
        plan.arena_size = std::max(plan.arena_size, offset + size);
        plan.transient_bytes += size;
    }
}

void plan_barriers(Plan& plan) {
    plan.barrier_before.assign(plan.order.size(), false);
    for (size_t p = 1; p < plan.order.size(); ++p)
        plan.barrier_before[p] = plan.level[plan.order[p]] != plan.level[plan.order[p - 1]];
}

void plan_timestamps(const GraphIR& g, Plan& plan, bool timing_on, bool per_node) {
    plan.time_nodes = timing_on && per_node;
    plan.query_count = timing_on ? 2 + (per_node ? 2 * static_cast<uint32_t>(g.nodes.size()) : 0) : 0;
}

} // namespace kiln::detail
