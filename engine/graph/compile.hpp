#pragma once
// Compiling a graph, one small phase each:
//   schedule    - dependency levels from declared reads and writes; nodes of a
//                 level are independent and run with no barrier between them
//   lifetimes   - transient storages (no Array handle left) get first/last
//                 level; those whose lifetimes do not overlap share memory
//   barriers    - one global memory barrier per level boundary, none inside a level
//   timestamps  - query slots per node and per submission
// The plan is then recorded into a command buffer (record.cpp).
#include <cstdint>
#include <memory>
#include <vector>

#include "graph/node.hpp"

namespace kiln::detail {

struct Plan {
    std::vector<uint32_t> order;        // node indices in execution order
    std::vector<uint32_t> level;        // level of each node (by node index)
    std::vector<bool> barrier_before;   // by position in order
    uint32_t levels = 0;
    // Transient storages and their offsets inside one arena allocation.
    std::vector<std::shared_ptr<Storage>> transients;
    std::vector<VkDeviceSize> transient_offsets;
    VkDeviceSize arena_size = 0;
    VkDeviceSize transient_bytes = 0;   // what they would take without sharing
    // Storages that need persistent memory before recording.
    std::vector<std::shared_ptr<Storage>> to_allocate;
    // Timestamp slots: 0 = start of submission, 1 = end, then 2 per timed node.
    bool time_nodes = false;
    uint32_t query_count = 0;
};

/// Phase 1: levels and execution order.
void schedule(const GraphIR& g, Plan& plan);
/// Phase 2: which storages are transient, their lifetimes and shared placement.
void plan_lifetimes(const GraphIR& g, Plan& plan, VkDeviceSize alignment);
/// Phase 3: barriers at level boundaries.
void plan_barriers(Plan& plan);
/// Phase 4: timestamp query slots.
void plan_timestamps(const GraphIR& g, Plan& plan, bool timing_on, bool per_node);

inline Plan compile(const GraphIR& g, VkDeviceSize alignment, bool timing_on, bool per_node) {
    Plan p;
    schedule(g, p);
    plan_lifetimes(g, p, alignment);
    plan_barriers(p);
    plan_timestamps(g, p, timing_on, per_node);
    return p;
}

} // namespace kiln::detail
