// The transfer sweep: push, pull and a round trip (push, one trivial op,
// pull) from 4 KiB to 1 GiB, from ordinary (pageable) memory and from a
// PinnedBuffer, each timed on the wall clock to completion (median of the
// repeats). For pageable memory, the staging ring's variants are measured
// beside the defaults: pieces chosen by size ("ring"), one piece per quarter
// ring as before ("big"), and importing the caller's pages ("imp").
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "bench.hpp"

namespace kiln::bench {
namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

enum class Direction { push, pull, round_trip };
enum class Memory { pageable, ring, big, import, pinned };

struct SizeStep {
    const char* label;
    size_t bytes;
};
const SizeStep steps[] = {{"4K", 4u << 10},   {"64K", 64u << 10},  {"1M", 1u << 20},    {"4M", 4u << 20},
                          {"16M", 16u << 20}, {"64M", 64u << 20}, {"256M", 256u << 20}, {"1G", 1u << 30}};

Result transfer(Context& main_ctx, Size size, int n, Direction dir, Memory memory, size_t bytes) {
    ContextOptions o;
    o.timing = Timing::submission;
    o.device_index = main_ctx.device().index;
    if (memory == Memory::ring || memory == Memory::big) o.import_threshold = ~0ull;
    if (memory == Memory::big) o.transfer_piece = o.staging_size / 4;
    if (memory == Memory::import) o.import_threshold = 0;
    Context ctx(o);
    if (memory == Memory::import && !ctx.device().external_memory_host)
        throw Unsupported("no VK_EXT_external_memory_host");
    const size_t count = bytes / 4;
    std::vector<float> pageable_in, pageable_out;
    PinnedBuffer pin_in, pin_out;
    std::span<float> in, out;
    if (memory == Memory::pinned) {
        pin_in = PinnedBuffer(ctx, bytes);
        pin_out = PinnedBuffer(ctx, bytes);
        in = pin_in.as<float>();
        out = pin_out.as<float>();
    } else {
        pageable_in.resize(count);
        pageable_out.resize(count);
        in = pageable_in;
        out = pageable_out;
    }
    for (size_t i = 0; i < count; ++i) in[i] = float(i & 1023);
    Array a = Array::from(ctx, Shape{count}, std::span<const float>(in));
    Array b;
    std::vector<double> wall;
    auto once = [&] {
        auto t0 = clock_type::now();
        if (dir == Direction::push) {
            a.push(std::span<const float>(in));
            ctx.sync();
        } else if (dir == Direction::pull) {
            a.pull(out);
        } else {
            a.push(std::span<const float>(in));
            b = add(a, 1.0);
            b.pull(out);
        }
        return ms_since(t0);
    };
    for (int i = 0; i < 2; ++i) once();
    hold_clock(ctx, size);
    for (int i = 0; i < n; ++i) wall.push_back(once());
    Result r;
    r.wall_ms = median_of(wall);
    const double moved = double(bytes) * (dir == Direction::round_trip ? 2 : 1);
    r.metrics["GB/s"] = moved / (r.wall_ms * 1e-3) / 1e9;
    r.metrics["wall_min_ms"] = *std::min_element(wall.begin(), wall.end());
    if (dir == Direction::push) {
        std::vector<float> back(count);
        a.pull(std::span<float>(back));
        r.checked = std::memcmp(back.data(), in.data(), bytes) == 0;
    } else if (dir == Direction::pull) {
        r.checked = std::memcmp(out.data(), in.data(), bytes) == 0;
    } else {
        r.checked = true;
        for (size_t i = 0; i < count && r.checked; i += 997) r.checked = out[i] == in[i] + 1.0f;
        r.checked = r.checked && out[count - 1] == in[count - 1] + 1.0f;
    }
    r.ok = r.checked;
    if (!r.ok) r.note = "transferred data differ";
    return r;
}

const bool registered = [] {
    const struct {
        Direction dir;
        const char* id;
        const char* what;
    } dirs[] = {{Direction::push, "push", "push"},
                {Direction::pull, "pull", "pull"},
                {Direction::round_trip, "rt", "push, add 1, pull"}};
    const struct {
        Memory memory;
        const char* id;
        const char* what;
        bool round_trip;
    } memories[] = {{Memory::pageable, "pg", "pageable memory (defaults)", true},
                    {Memory::pinned, "pin", "a PinnedBuffer", true},
                    {Memory::ring, "pg.ring", "pageable, staging ring, pieces by size", false},
                    {Memory::big, "pg.big", "pageable, staging ring, quarter-ring pieces", false},
                    {Memory::import, "pg.imp", "pageable, caller's pages imported", false}};
    for (const auto& m : memories) {
        for (const auto& d : dirs) {
            if (d.dir == Direction::round_trip && !m.round_trip) continue;
            for (const SizeStep& s : steps) {
                const std::string id = std::string("T-") + d.id + "-" + m.id + "-" + s.label;
                const std::string name = std::string(d.what) + " " + s.label + "B, " + m.what;
                const Direction dir = d.dir;
                const Memory memory = m.memory;
                const size_t full_bytes = s.bytes;
                registry().push_back({id, name, "transfer", [=](Context& ctx, Size size, int n) {
                                          // Small size (lavapipe) only checks that the sweep
                                          // works, with at most 256 KiB a transfer.
                                          const size_t bytes =
                                              size == Size::small ? std::min<size_t>(full_bytes, 256u << 10) : full_bytes;
                                          return transfer(ctx, size, n, dir, memory, bytes);
                                      }});
            }
        }
    }
    return true;
}();

}  // namespace
}  // namespace kiln::bench
