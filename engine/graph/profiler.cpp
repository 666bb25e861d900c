#include "graph/profiler.hpp"

#include <vector>

#include "graph/submission.hpp"
#include "vk/device.hpp"

namespace kiln::detail {

void Profiler::read(const Submission& sub) {
    if (!sub.queries) return;
    std::vector<uint64_t> ticks(sub.query_count);
    VkResult r = vkGetQueryPoolResults(device_.handle(), sub.queries.pool, 0, sub.query_count,
                                       ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                       VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS) return;  // timings are best effort; results are not affected
    uint32_t bits = device_.timestamp_valid_bits();
    uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    double us_per_tick = device_.info().timestamp_period_ns / 1000.0;
    auto at = [&](uint32_t q) { return ticks[q] & mask; };
    if (!origin_) origin_ = at(0);
    auto rel = [&](uint64_t t) { return (static_cast<double>(t) - static_cast<double>(*origin_)) * us_per_tick; };
    profile_.add_submission((static_cast<double>(at(1) - at(0))) * us_per_tick / 1000.0);
    if (sub.time_nodes)
        for (uint32_t i = 0; i < sub.names.size(); ++i) {
            uint64_t b = at(2 + 2 * i), e = at(3 + 2 * i);
            profile_.add(sub.names[i], rel(b), e >= b ? (e - b) * us_per_tick : 0.0, sub.serial);
        }
}

} // namespace kiln::detail
