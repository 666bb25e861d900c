#pragma once
// One submission's GPU objects, and a recorded graph that holds one for
// repeated submission. The scheduler fills and submits them; once finished,
// their command buffer, fence and queries go back to the vk::SubmissionPool.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/compile.hpp"
#include "graph/node.hpp"
#include "vk/allocator.hpp"
#include "vk/handle.hpp"
#include "vk/submission_pool.hpp"

namespace kiln::detail {

/// A command buffer, its fence and queries: one submission's GPU objects.
struct Submission {
    uint64_t serial = 0;
    vk::CommandBuffer cmd;
    vk::Fence fence;
    vk::TimestampPool queries;
    vk::DescriptorPool descriptors;
    uint32_t query_count = 0;        // queries this submission uses
    bool time_nodes = false;
    std::vector<std::string> names;  // node names in execution order
    GraphIR keep;                    // holds the graph's storages until done
    vk::UniqueAllocation arena;      // transient memory, freed when done
    bool reusable = false;           // owned by an explicit Graph
    bool host_barrier = false;       // ends with a barrier to host reads whatever it holds
};

/// A compiled, recorded graph that can be submitted many times.
struct RecordedGraph {
    Submission sub;
    Plan plan;
    bool in_flight = false;
};

} // namespace kiln::detail
