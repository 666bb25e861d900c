#pragma once
// The context's profile, fed with the timestamps of finished submissions:
// one span per submission and, when nodes are timed, one event per node.
#include <cstdint>
#include <optional>

#include "kiln/profile.hpp"

namespace kiln::vk {
class Device;
}

namespace kiln::detail {

struct Submission;

class Profiler {
public:
    /// `capacity`: ContextOptions::profile_capacity.
    Profiler(const vk::Device& device, size_t capacity) : device_(device), profile_(capacity) {}

    Profile& profile() { return profile_; }
    /// Adds the timestamps of a finished submission (best effort: results
    /// the driver cannot give are skipped). The caller holds the context's lock.
    void read(const Submission& sub);

private:
    const vk::Device& device_;
    Profile profile_;
    std::optional<uint64_t> origin_;  // the first timestamp read: time 0 of the trace
};

} // namespace kiln::detail
